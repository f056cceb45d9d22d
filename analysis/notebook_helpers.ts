/**
 * Glue for the notebooks (and scripts) so that no analysis logic lives in a
 * cell: text tables of latency and audits, the claim moved by one rule at a
 * time, a route comparison with knee, limit and cost per accepted task, and
 * the inputs of the figures that need results from several analyses.
 *
 * @module
 */
import type { OverheadSheet, PriceSheet } from "../schema/prices.ts";
import type { SloPolicy } from "../schema/slo.ts";
import {
  DENOMINATORS,
  pickRow,
  variantPolicy,
  type VariantRules,
  type WindowVariant,
  windowVariant,
} from "./alternatives.ts";
import { audit, type AuditOptions, type AuditResult, type RuleChoice } from "./audit.ts";
import type { ResolvedClaim } from "./claim.ts";
import { type CompareResult, compareRoutes } from "./compare.ts";
import { goodput } from "./goodput.ts";
import { kneeAnalysis, type KneeReport } from "./knee.ts";
import { LATENCY_METRICS, type LatencyMetric, type LatencyRow } from "./latency.ts";
import { ledger, type LedgerResult } from "./ledger.ts";
import { type ProductionLimit, productionLimit } from "./limit.ts";
import type { LoadedRun } from "./loaded_run.ts";
import type { OutageDetection } from "./outages.ts";
import { LEDGER_ITEMS } from "./price_lines.ts";
import type { CostWaterfallInput } from "./plots/cost_waterfall.ts";
import { loadCurveFromGoodput, type LoadCurveInput } from "./plots/goodput_vs_load.ts";
import type { RouteComparisonInput } from "./plots/route_comparison.ts";
import type { ShadedPeriod } from "./plots/timeline.ts";

/** Numbers to 4 significant digits, "-" for null. */
const num = (v: number | null | undefined): string => (v === null || v === undefined ? "-" : String(+v.toPrecision(4)));

function grid(head: string[], body: string[][], left: number): string[] {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i < left ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ").trimEnd();
  return [line(head), ...body.map(line)];
}

/** Options of {@linkcode formatLatency}. */
export interface FormatLatencyOptions {
  /** Metrics shown, in this order. @default {LATENCY_METRICS} */
  metrics?: readonly LatencyMetric[];
  /** Rows per class (true) or overall only (false). @default {true} */
  byClass?: boolean;
}

/**
 * Latency rows (of `latencyInWindow` / `latencyTable`, whole window: stage
 * rows are skipped) as aligned text, one line per class × metric with n and
 * each percentile's value and CI; UNSUPPORTED where n cannot bound it.
 * Rows with n = 0 are left out.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatLatency } from "./notebook_helpers.ts";
 * const row = { class: null, stage: null, metric: "e2e_ms" as const, p: 0.99, value: 900, n: 10, confidence: 0.95,
 *   lower: 850, upper: null, supported: false, note: "n < 299", window: null, inclusion: "" };
 * assert.match(formatLatency([row]), /all\s+e2e_ms\s+10\s+900 \[850, ∞\] UNSUPPORTED/);
 * ```
 */
export function formatLatency(rows: LatencyRow[], options: FormatLatencyOptions = {}): string {
  const metrics = options.metrics ?? LATENCY_METRICS;
  const byClass = options.byClass ?? true;
  const ps = [...new Set(rows.map((r) => r.p))].sort((a, b) => a - b);
  const groups = [null, ...(byClass ? [...new Set(rows.map((r) => r.class).filter((c) => c !== null))].sort() : [])];
  const body: string[][] = [];
  for (const cls of groups) {
    for (const metric of metrics) {
      const mine = rows.filter((r) => r.class === cls && r.stage === null && r.metric === metric);
      if (!mine.length || mine[0]!.n === 0) continue;
      const cells = ps.map((p) => {
        const r = mine.find((x) => x.p === p);
        if (!r || r.value === null) return "-";
        return `${num(r.value)} [${num(r.lower)}, ${r.supported ? num(r.upper) : "∞"}]${
          r.supported ? "" : " UNSUPPORTED"
        }`;
      });
      body.push([cls ?? "all", metric, String(mine[0]!.n), ...cells]);
    }
  }
  const conf = rows[0]?.confidence ?? 0.95;
  return grid(["class", "metric", "n", ...ps.map((p) => `p${+(p * 100).toPrecision(6)} [${conf * 100} % CI]`)], body, 2)
    .join("\n");
}

function rulesText(c: RuleChoice): string {
  if (c.slo === null) return `window ${c.window}`;
  return `${
    c.denominator === null ? "" : `denominator ${c.denominator}, `
  }window ${c.window}, SLO ${c.slo}, gates ${c.gates}`;
}

function choiceText(c: RuleChoice): string {
  const n = c.slo === null ? ` (n = ${c.n}${c.supported ? "" : ", NOT supported"})` : "";
  return `${rulesText(c)} -> ${num(c.value)}${n}`;
}

/**
 * An audit as plain text: the claim, the stated rules and the window, what
 * was assumed, MATCH or MISMATCH with the tolerance, and every combination
 * of rules that reproduces the number.
 */
export function formatAudit(r: AuditResult): string {
  const c = r.claim;
  const what = c.metric === "latency_percentile" ? `p${+(c.p! * 100).toPrecision(6)} ${c.latency_metric}` : c.metric;
  const d = r.stated.disclosure;
  return [
    `claim: ${what} = ${c.value} (class ${c.class ?? "all"}, stage ${c.stage ?? "all"}; source: ${c.source})`,
    `run ${d.run_id}; recomputed under the stated rules: ${choiceText(r.stated.rules)}`,
    `  window: ${d.window.description}; measurement_seconds = ${d.window.measurement_seconds}`,
    "assumed (not stated by the claim):",
    ...(r.assumed.length ? r.assumed.map((a) => `  - ${a}`) : ["  (nothing)"]),
    ...r.notes.map((n) => `NOTE: ${n}`),
    `${r.stated.match ? "MATCH" : "MISMATCH"}: recomputed ${num(r.stated.value)} vs claimed ${c.value} ` +
    `(difference ${num(r.stated.difference)}; tolerance ±${num(r.tolerance.allowed)}${
      r.tolerance.stated ? "" : ", default"
    })`,
    `combinations that reproduce the claim (${r.reproducing.length} of ${r.searched} searched):`,
    ...(r.reproducing.length ? r.reproducing.map((x) => `  ${choiceText(x)}`) : ["  none"]),
  ].join("\n");
}

/** The claim recomputed with one rule changed from the stated ones. */
export interface ClaimMove {
  /** Which rule was changed ("as stated" for the baseline row). */
  rule: "as stated" | "denominator" | "window" | "gates" | "SLO";
  /** The choice in words. */
  choice: string;
  value: number | null;
  /** value − claimed value. */
  difference: number | null;
  /** Within the claim's tolerance. */
  match: boolean;
}

/** The window {@linkcode audit} takes as stated: explicit, else by `warmup_included`, else the policy's. */
function statedWindow(
  claim: ResolvedClaim,
  policy: SloPolicy,
  stages: LoadedRun["manifest"]["stages"],
): SloPolicy["window"] {
  const w = policy.window;
  if (claim.window) return claim.window;
  if (claim.warmup_included === true) return windowVariant(w, "warmup_included", stages);
  if (claim.warmup_included !== false || "start_ms" in w || w.exclude_stage_kinds.includes("warmup")) return w;
  return { ...w, exclude_stage_kinds: [...w.exclude_stage_kinds, "warmup" as const] };
}

/**
 * The claim moved by each alternative rule, one at a time from the stated
 * rules (unstated ones filled as {@linkcode audit} fills them): the window
 * with warm-up stages put back and the whole run, each other denominator
 * (rates only), gates on/off, every latency limit × 2 and no latency limits.
 * Each value is {@linkcode goodput} under the {@linkcode variantPolicy} of
 * that choice, the same policy the audit's search uses; a latency claim
 * varies the window only (an audit of the claim with that window).
 */
export function claimMoves(run: LoadedRun, claim: ResolvedClaim, options: AuditOptions): ClaimMove[] {
  const base = audit(run, claim, options);
  const stated = base.stated.rules;
  const move = (rule: ClaimMove["rule"], choice: string, value: number | null): ClaimMove => ({
    rule,
    choice,
    value,
    difference: value === null ? null : value - claim.value,
    match: value !== null &&
      Math.abs(value - claim.value) <= base.tolerance.allowed + 1e-9 * Math.max(1, Math.abs(claim.value)),
  });
  const out = [move("as stated", rulesText(stated), base.stated.value)];
  const stages = run.manifest.stages;
  const policy = claim.slo ?? options.policy;
  const window = statedWindow(claim, policy, stages);
  const WINDOWS = [["warmup_included", "warm-up stages put back"], [
    "whole_run",
    "whole run (every stage, drain included)",
  ]];
  if (claim.metric === "latency_percentile") {
    const { warmup_included: _w, ...rest } = claim;
    for (const [w, words] of WINDOWS as [WindowVariant, string][]) {
      out.push(
        move("window", words, audit(run, { ...rest, window: windowVariant(window, w, stages) }, options).stated.value),
      );
    }
    return out;
  }
  const den = stated.denominator ?? "offered";
  const value = (rules: Partial<VariantRules> & { window?: WindowVariant }): number | null => {
    const r = {
      denominator: den,
      slo: "strict",
      factor: 1,
      gates: stated.gates ?? "on",
      window: "policy",
      ...rules,
    } as const;
    const row = pickRow(goodput(run, variantPolicy({ ...policy, window }, r, stages)), claim.class, claim.stage);
    if (claim.metric === "accepted_goodput") {
      return row.measurement_seconds ? row.accepted / row.measurement_seconds : null;
    }
    const d = row[r.denominator];
    if (!d) return null;
    return claim.metric === "acceptance_rate" ? row.accepted / d : (d - row.accepted) / d;
  };
  for (const [w, words] of WINDOWS as [WindowVariant, string][]) out.push(move("window", words, value({ window: w })));
  if (claim.metric !== "accepted_goodput") {
    for (const d of DENOMINATORS.filter((d) => d !== den)) {
      out.push(move("denominator", `over ${d}`, value({ denominator: d })));
    }
  }
  const gatesOn = stated.gates === "on";
  out.push(
    move("gates", gatesOn ? "no gate required" : "every gate of the SLO", value({ gates: gatesOn ? "off" : "on" })),
  );
  out.push(
    move("SLO", "every latency limit × 2", value({ slo: "lenient", factor: 2 })),
    move("SLO", "no latency limits", value({ slo: "no_latency" })),
  );
  return out;
}

/** {@linkcode claimMoves} as aligned text. */
export function formatClaimMoves(moves: ClaimMove[]): string {
  return grid(
    ["rule changed", "choice", "value", "difference", "matches"],
    moves.map((m) => [m.rule, m.choice, num(m.value), num(m.difference), m.match ? "yes" : "no"]),
    2,
  ).join("\n");
}

/**
 * The cost waterfall input of a ledger: one component per ledger item (in
 * the design formula's order, zeros included so an unpriced item shows),
 * the overall accepted tasks, and the sheets and window in the disclosure.
 */
export function ledgerWaterfall(l: LedgerResult): CostWaterfallInput {
  const d = l.disclosure;
  return {
    currency: l.currency,
    components: LEDGER_ITEMS.map((item) => ({ name: item, amount: l.overall.cost[item] })),
    accepted_tasks: l.overall.accepted,
    disclosure: `run ${d.run_id}; prices ${l.pricing.price_sheet.name} (as of ${l.pricing.price_sheet.as_of}); ` +
      `overheads ${
        l.pricing.overheads?.name ?? "not priced"
      }; window ${d.window.description}; n = ${l.overall.offered}`,
  };
}

/**
 * The goodput-vs-load input of a staged run with the knee and the limits
 * marked: the limit at the chosen headroom, else every headroom choice.
 */
export function kneeCurve(run: LoadedRun, policy: SloPolicy, knee: KneeReport, limit: ProductionLimit): LoadCurveInput {
  const curve = loadCurveFromGoodput(goodput(run, policy), run.manifest.stages);
  const limits = limit.headroom !== null && limit.limit_rps !== null
    ? [{ headroom: limit.headroom, rps: limit.limit_rps }]
    : limit.choices.map((c) => ({ headroom: c.headroom, rps: c.limit_rps }));
  const signal = knee.first_degrading?.signals[0] ?? knee.knee?.source;
  return { ...curve, knee_rps: knee.knee?.offered_rps ?? null, ...(signal ? { knee_signal: signal } : {}), limits };
}

/**
 * Detected outages as periods to shade on the run timeline: from the first
 * down attempt to the first answered one (to the last down attempt when the
 * service was not back by the end of the log).
 */
export function outagePeriods(detection: OutageDetection): ShadedPeriod[] {
  return detection.outages.map((o, i) => ({
    start_ms: o.start_ms,
    end_ms: o.end_ms ?? o.last_down_ms,
    label: `outage ${i + 1}${o.end_ms === null ? " (not back)" : ""}`,
  }));
}

/** Options of {@linkcode compareRouteCosts}. */
export interface RouteCostOptions {
  prices: PriceSheet;
  /** @default {null} */
  overheads?: OverheadSheet | null;
  /** The user's headroom in [0, 1); absent = no limit applied, the choices shown. */
  headroom?: number;
  /** Single-class runs on the same routes, for the crowding-out table. @default {[]} */
  singleClassRuns?: LoadedRun[];
}

/** One route's knee, limit and ledger. */
export interface RouteCost {
  run_id: string;
  route: string;
  knee: KneeReport;
  limit: ProductionLimit;
  /** Goodput vs offered load of the run with the knee and limits marked. */
  curve: LoadCurveInput;
  ledger: LedgerResult;
}

/** The result of {@linkcode compareRouteCosts}. */
export interface RouteCostResult {
  comparison: CompareResult;
  routes: RouteCost[];
  /** The route comparison figure's input. */
  figure: RouteComparisonInput;
}

/**
 * Routes compared as `deno task compare` does: {@linkcode compareRoutes}
 * with each run's knee, production limit and cost per accepted task (whole
 * ledger / accepted tasks) as extra columns, the knee reports, load curves
 * and ledgers kept for their own tables and figures.
 */
export function compareRouteCosts(runs: LoadedRun[], policy: SloPolicy, options: RouteCostOptions): RouteCostResult {
  const overheads = options.overheads ?? null;
  const per = new Map<string, RouteCost>();
  const comparison = compareRoutes(runs, policy, {
    ...(options.singleClassRuns?.length ? { singleClassRuns: options.singleClassRuns } : {}),
    extras: (run) => {
      const knee = kneeAnalysis([run], policy);
      const tested = Math.max(...knee.levels.map((l) => l.pooled.offered_rps));
      const limit = productionLimit(knee.knee?.offered_rps ?? null, options.headroom, { highestTestedRps: tested });
      const l = ledger(run, policy, options.prices, { overheads });
      const curve = kneeCurve(run, policy, knee, limit);
      per.set(run.manifest.run_id, { run_id: run.manifest.run_id, route: "", knee, limit, curve, ledger: l });
      return {
        knee_rps: knee.knee?.offered_rps ?? null,
        knee_signal: knee.first_degrading?.signals[0] ?? (knee.knee ? knee.knee.source : "none in tested range"),
        [options.headroom === undefined ? "limit_rps (no headroom given)" : `limit_rps @${options.headroom}`]:
          limit.limit_rps,
        [`cost/accepted ${l.currency}`]: l.overall.cost_per_accepted_task,
        [`naive/request ${l.currency}`]: l.overall.naive.per_request,
      };
    },
  });
  const routes = comparison.routes.map((r) => ({ ...per.get(r.run_id)!, route: r.route }));
  return {
    comparison,
    routes,
    figure: {
      currency: options.prices.currency,
      disclosure: `denominator ${comparison.policy.denominator}; window ${comparison.policy.window}; prices ` +
        `${options.prices.name} (as of ${options.prices.as_of}); overheads ${overheads?.name ?? "not priced"}`,
      routes: comparison.routes.map((r, i) => ({
        route: r.route,
        accepted_goodput: r.overall.accepted_goodput,
        acceptance_rate: r.overall.acceptance_rate,
        cost_per_accepted_task: routes[i]!.ledger.overall.cost_per_accepted_task,
        n: r.overall.offered,
      })),
    },
  };
}
