/**
 * Audit of a peer tool's published headline (issue 14): (1) recomputed from the imported per-request rows under the
 * TOOL's stated rules (its denominator, clock start, percentile method and window: analysis/audit/tool_rules.ts),
 * (2) moved to this toolkit's rules (offered denominator, schedule-based latency where the source has a schedule,
 * nearest-rank percentiles, accepted goodput under the SLO policy given), (3) the rule choices that reproduce it.
 * A summary-only source has no rows: the headline is checked against the tool's own other numbers only.
 *
 * @module
 */
import type { ImportedHeadline, ImportedLack, ImportedTool } from "../../schema/imported_manifest.ts";
import type { HeadlineRecipe, PercentileMethod } from "./tool_rules.ts";
import { headlineRecipe, METHOD_TEXT, percentileBy } from "./tool_rules.ts";

/** One request as the audit of a headline needs it (times in ms on the run's clock; null = not recorded). */
export interface HeadlineRow {
  stage: string;
  /** The tool counted it as successful (contract outcome "ok"). */
  ok: boolean;
  scheduled_ms: number | null;
  sent_ms: number | null;
  first_token_ms: number | null;
  completed_ms: number | null;
  output_tokens: number | null;
}

/** What the import holds about the tool's run: its headlines, stages, rows (null: summary only) and lacks. */
export interface HeadlineSource {
  tool: ImportedTool;
  tool_version: string | null;
  headlines: ImportedHeadline[];
  stages: { name: string; tool_duration_s: number | null; totals: { ok: number | null; error: number | null } }[];
  rows: HeadlineRow[] | null;
  /** Where the rows' scheduled_ms comes from: the tool's schedule, its send time, or nowhere. */
  scheduled_from: "schedule" | "send" | "none";
  lacks: ImportedLack[];
}

/** A value under one set of rule choices. */
export interface HeadlineChoice {
  choice: string;
  value: number | null;
  n: number | null;
  match: boolean;
}

/** The result of {@linkcode auditHeadline}. */
export interface HeadlineAudit {
  headline: string;
  stage: string | null;
  claimed: number;
  unit: string;
  definition: string | null;
  tolerance: { absolute: number; relative: number; allowed: number; stated: boolean };
  /** The tool's rules in words, or null when the key is not in the table. */
  tool_rules: string | null;
  /** (1) Recomputed under the tool's rules from the rows; null with `why_not`. */
  recomputed: HeadlineChoice | null;
  why_not: string | null;
  /** The headline against the tool's own other numbers (totals, durations). */
  consistency: HeadlineChoice[];
  /** (2) Under this toolkit's rules. */
  ours: HeadlineChoice[];
  /** (3) Every choice searched whose value reproduces the headline. */
  searched: number;
  reproducing: HeadlineChoice[];
  notes: string[];
}

/** Tolerance as stated, else 1 % of the claimed value (as a metric claim's). */
export type Tolerance = { absolute?: number; relative?: number } | undefined;

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
const finite = (v: number) => (Number.isFinite(v) ? v : null);

/** The latency of a row from `start` (send or schedule); null when a time is missing. */
function latencyOf(r: HeadlineRow, latency: "ttft" | "e2e" | "itl_per_request", start: "send" | "schedule") {
  const t0 = start === "send" ? r.sent_ms : r.scheduled_ms;
  if (t0 === null) return null;
  if (latency === "ttft") return r.first_token_ms === null ? null : r.first_token_ms - t0;
  if (latency === "e2e") return r.completed_ms === null ? null : r.completed_ms - t0;
  // AIPerf: (request_latency − ttft) / (osl − 1) = (completed − first token) / (output tokens − 1).
  if (r.completed_ms === null || r.first_token_ms === null || r.output_tokens === null || r.output_tokens < 2) {
    return null;
  }
  return (r.completed_ms - r.first_token_ms) / (r.output_tokens - 1);
}

function windowSeconds(rows: HeadlineRow[], from: "send" | "schedule"): number | null {
  const starts = rows.map((r) => from === "send" ? r.sent_ms : r.scheduled_ms).filter((x): x is number => x !== null);
  const ends = rows.map((r) => r.completed_ms).filter((x): x is number => x !== null);
  if (!starts.length || !ends.length) return null;
  return (Math.max(...ends) - Math.min(...starts)) / 1000;
}

/** A headline value of the tool's (same stage, else run-level) by key. */
function toolValue(src: HeadlineSource, keys: string[], stage: string | null): number | null {
  for (const k of keys) {
    const h = src.headlines.find((x) => x.key === k && (x.stage === stage || x.stage === null));
    if (h?.value !== undefined && h.value !== null) return h.value;
  }
  return null;
}

/**
 * Audits a tool's headline `key` (stage `stage`) against what the import holds. `claimed` defaults to the tool's
 * own value in the files. `goodputUnder` (when an SLO policy is given) gives accepted goodput, req/s, of the stage
 * under that policy with the offered denominator (analysis/goodput), for a rate headline's move to ours.
 */
export function auditHeadline(
  src: HeadlineSource,
  claim: { headline: string; stage: string | null; value?: number; tolerance?: Tolerance },
  goodputUnder?: { value: number | null; policy: string },
): HeadlineAudit {
  const notes: string[] = [];
  const stages = src.stages.map((s) => s.name);
  const stage = claim.stage ?? (stages.length === 1 ? stages[0]! : null);
  const h = src.headlines.find((x) => x.key === claim.headline && (x.stage === stage || x.stage === null)) ?? null;
  if (!h) notes.push(`the import holds no headline "${claim.headline}"${stage ? ` for stage ${stage}` : ""}`);
  const claimed = claim.value ?? h?.value ?? NaN;
  if (claim.value !== undefined && h?.value != null && Math.abs(claim.value - h.value) > 1e-9 * Math.abs(h.value)) {
    notes.push(`the claim's value ${claim.value} differs from the imported file's ${h.value}`);
  }
  const t = claim.tolerance;
  const absolute = t?.absolute ?? 0;
  const relative = t?.relative ?? (t ? 0 : 0.01);
  const allowed = Math.max(absolute, relative * Math.abs(claimed));
  const within = (v: number | null) =>
    v !== null && Number.isFinite(claimed) && Math.abs(v - claimed) <= allowed + 1e-9 * Math.max(1, Math.abs(claimed));
  const pick = (choice: string, value: number | null, n: number | null): HeadlineChoice => ({
    choice,
    value,
    n,
    match: within(value),
  });
  const recipe = headlineRecipe(src.tool, claim.headline);
  const st = src.stages.find((s) => s.name === stage) ?? null;
  const base = {
    headline: claim.headline,
    stage,
    claimed,
    unit: h?.unit ?? recipe?.rules.unit ?? "",
    definition: h?.definition ?? null,
    tolerance: { absolute, relative, allowed, stated: !!t },
    tool_rules: recipe?.rules.text ?? null,
  };
  const consistency = recipe ? consistencyChecks(src, recipe, stage, st, pick) : [];
  if (!recipe) {
    return {
      ...base,
      recomputed: null,
      why_not: `no rule of ${src.tool} is known for the key "${claim.headline}" (analysis/audit/tool_rules.ts): ` +
        "it is not recomputed (request rate, output-token rate, counts, TTFT/e2e percentiles and means are)",
      consistency,
      ours: [],
      searched: 0,
      reproducing: [],
      notes,
    };
  }
  if (src.rows === null) {
    return {
      ...base,
      recomputed: null,
      why_not: "a summary-only source has no per-request data: the headline cannot be recomputed under any rule; " +
        "it is compared with the tool's own other numbers only",
      consistency,
      ours: [],
      searched: 0,
      reproducing: [],
      notes,
    };
  }
  const rows = src.rows.filter((r) => stage === null || r.stage === stage);
  const okRows = rows.filter((r) => r.ok);
  const counted = st?.totals.ok ?? null;
  if (counted !== null && counted > okRows.length) {
    notes.push(
      `the file keeps ${okRows.length} successful record(s) of the ${counted} the tool counted: the tool's ` +
        "headline cannot be reproduced from the records kept (a sample); the tool's own totals are checked instead",
    );
  }
  const hasSchedule = src.scheduled_from === "schedule";
  if (!hasSchedule) notes.push("the source keeps no schedule: latency can only run from the send, as the tool's");
  const { recomputed, ours, choices } = recipe.kind !== "latency_percentile" && recipe.kind !== "latency_mean"
    ? rateAudit(recipe, rows, okRows, st?.tool_duration_s ?? null, hasSchedule, pick, goodputUnder)
    : latencyAudit(recipe, rows, okRows, hasSchedule, pick);
  return {
    ...base,
    recomputed,
    why_not: null,
    consistency,
    ours,
    searched: choices.length,
    reproducing: choices.filter((c) => c.match),
    notes,
  };
}

type Pick = (choice: string, value: number | null, n: number | null) => HeadlineChoice;

function consistencyChecks(
  src: HeadlineSource,
  recipe: HeadlineRecipe,
  stage: string | null,
  st: HeadlineSource["stages"][number] | null,
  pick: Pick,
): HeadlineChoice[] {
  const ok = st?.totals.ok ?? null;
  const secs = st?.tool_duration_s ?? null;
  if (recipe.kind === "request_rate" && ok !== null && secs) {
    return [pick(`the tool's successful total / the tool's duration = ${ok} / ${secs} s`, ok / secs, ok)];
  }
  if (recipe.kind === "count" && ok !== null) return [pick("the tool's successful total", ok, ok)];
  if (recipe.kind === "output_token_rate" && secs) {
    const tokens = toolValue(src, ["total_output_tokens", "records.total_osl.avg", "total_osl.avg"], stage);
    if (tokens !== null) {
      return [pick(`the tool's output tokens / its duration = ${tokens} / ${secs} s`, tokens / secs, ok)];
    }
  }
  return [];
}

function rateAudit(
  recipe: HeadlineRecipe,
  rows: HeadlineRow[],
  okRows: HeadlineRow[],
  toolSecs: number | null,
  hasSchedule: boolean,
  pick: Pick,
  goodputUnder: { value: number | null; policy: string } | undefined,
) {
  const amount = (rs: HeadlineRow[]) =>
    recipe.kind === "output_token_rate" ? rs.reduce((a, r) => a + (r.output_tokens ?? 0), 0) : rs.length;
  const windows: [string, number | null][] = [
    ["the tool's duration", toolSecs],
    ["first send → last response", windowSeconds(rows, "send")],
    ...(hasSchedule ? [["first scheduled → last response", windowSeconds(rows, "schedule")] as [string, number]] : []),
  ];
  const rate = (rs: HeadlineRow[], secs: number | null) =>
    recipe.kind === "count" ? amount(rs) : secs ? amount(rs) / secs : null;
  const toolWindow = recipe.rules.window === "tool_duration" ? windows[0]! : windows[1]!;
  const recomputed = pick(
    recipe.kind === "count"
      ? `successful requests`
      : `${recipe.kind === "output_token_rate" ? "output tokens of successful requests" : "successful requests"} / ${
        toolWindow[0]
      } (${toolWindow[1]} s)`,
    rate(okRows, toolWindow[1]),
    okRows.length,
  );
  const choices: HeadlineChoice[] = [];
  for (const [den, rs] of [["successful", okRows], ["every record (offered)", rows]] as const) {
    for (const [w, secs] of recipe.kind === "count" ? [windows[0]!] : windows) {
      choices.push(
        pick(`denominator ${den}${recipe.kind === "count" ? "" : `, window ${w}`}`, rate(rs, secs), rs.length),
      );
    }
  }
  const ours = [
    pick(
      `over every record offered (failed and cancelled included) / ${toolWindow[0]}`,
      rate(rows, toolWindow[1]),
      rows.length,
    ),
  ];
  if (recipe.kind === "request_rate") {
    ours.push(
      goodputUnder
        ? pick(`accepted goodput under ${goodputUnder.policy} (offered denominator)`, goodputUnder.value, rows.length)
        : pick("accepted goodput: no SLO policy given (--slo, the claim's slo or the run's own)", null, null),
    );
  }
  return { recomputed, ours, choices };
}

function latencyAudit(
  recipe: Extract<HeadlineRecipe, { kind: "latency_percentile" | "latency_mean" }>,
  rows: HeadlineRow[],
  okRows: HeadlineRow[],
  hasSchedule: boolean,
  pick: Pick,
) {
  const to = recipe.rules.to_ms;
  const values = (rs: HeadlineRow[], start: "send" | "schedule") =>
    rs.map((r) => latencyOf(r, recipe.latency, start)).filter((x): x is number => x !== null).sort((a, b) => a - b);
  const stat = (xs: number[], method: PercentileMethod) =>
    recipe.kind === "latency_mean" ? finite(mean(xs) / to) : finite(percentileBy(xs, recipe.p, method) / to);
  const toolMethod = recipe.kind === "latency_percentile" ? recipe.method : "linear";
  const statText = (m: PercentileMethod) =>
    recipe.kind === "latency_mean" ? "mean" : `p${recipe.p * 100} by ${METHOD_TEXT[m]}`;
  const okSend = values(okRows, "send");
  const recomputed = pick(
    `${statText(toolMethod)} over successful requests, from send`,
    stat(okSend, toolMethod),
    okSend.length,
  );
  const methods: PercentileMethod[] = recipe.kind === "latency_mean"
    ? ["linear"]
    : ["linear", "nearest_rank", "lower", "higher"];
  const starts: ("send" | "schedule")[] = hasSchedule ? ["send", "schedule"] : ["send"];
  const choices: HeadlineChoice[] = [];
  for (const start of starts) {
    for (const [inc, rs] of [["successful", okRows], ["every record with a time", rows]] as const) {
      const xs = values(rs, start);
      for (const m of methods) choices.push(pick(`${statText(m)}, ${inc}, from ${start}`, stat(xs, m), xs.length));
    }
  }
  const ours: HeadlineChoice[] = [];
  if (recipe.kind === "latency_percentile") {
    ours.push(
      pick(
        `p${recipe.p * 100} by nearest rank (ours), successful, from send`,
        stat(okSend, "nearest_rank"),
        okSend.length,
      ),
    );
    // The offered denominator: a request that did not succeed never met any limit: +∞ in the distribution.
    const offered = [...okSend, ...Array(rows.length - okRows.length).fill(Infinity)].sort((a, b) => a - b);
    const v = percentileBy(offered, recipe.p, "nearest_rank");
    ours.push(pick(
      `p${recipe.p * 100} by nearest rank over every record offered (a request that did not succeed counts as ∞)` +
        (Number.isFinite(v) ? "" : ": more than 1 − p of the offered requests did not succeed"),
      finite(v / to),
      offered.length,
    ));
  }
  if (hasSchedule) {
    const xs = values(okRows, "schedule");
    ours.push(
      pick(`${statText("nearest_rank")}, successful, from the tool's schedule`, stat(xs, "nearest_rank"), xs.length),
    );
  } else {
    ours.push(
      pick("from schedule: the source keeps no schedule (coordinated omission cannot be ruled out)", null, null),
    );
  }
  return { recomputed, ours, choices };
}
