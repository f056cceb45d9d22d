import pl from "nodejs-polars";
import type { SloPolicy } from "../../schema/slo.ts";
import { classifyLazy } from "./_classify_lazy.ts";
import { FAILURE_ORDER, type FailureReason } from "./classify.ts";
import { buildDisclosure, type Disclosure, noGates, noStreaming, type Observed } from "./disclosure.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import { policyForRun, type ResolvedWindow, runWindow } from "./policy.ts";
import type { ScannedRun } from "../run/scanned_run.ts";
import { modeLabel, undeclaredModeWarning } from "./service_modes.ts";
import { maskGates } from "./_gates.ts";
import { STREAMING } from "./_streaming.ts";
import { hasTimeWindow } from "../run/imported_run.ts";
import { refuseMeasuredQuality } from "./quality_source.ts";
import type { AcceptedEstimate } from "./accepted_estimate.ts";

/** Counts and rates of one row of a goodput table. Rates with a zero denominator are null. */
export interface GoodputRow {
  offered: number;
  sent: number;
  completed: number;
  accepted: number;
  measurement_seconds: number | null;
  accepted_goodput: number | null;
  acceptance_rate: number | null;
  slo_miss_rate: number | null;
  /** Non-accepted requests by first failing reason (every reason, zeros included). */
  failures: Record<FailureReason, number>;
  /**
   * Present when `accepted` is an estimate (a class of the row takes its quality from people's sample or a corrected
   * judge, analysis/quality/): its interval and the rates'. Absent on counts, as `goodput()` gives them.
   */
  estimate?: AcceptedEstimate;
}

/** The result of {@linkcode goodput}. */
export interface GoodputResult {
  disclosure: Disclosure;
  overall: GoodputRow;
  by_class: (GoodputRow & { class: string })[];
  by_stage: (GoodputRow & { stage: string })[];
  by_class_stage: (GoodputRow & { class: string; stage: string })[];
  /**
   * By the service mode of each request's final answer (`requests.service_mode`; null = none announced, also for
   * requests that got no answer), over the window's measurement_seconds: the modes' rows add up to `overall`.
   */
  by_mode: (GoodputRow & { mode: string | null })[];
}

const ratio = (a: number, b: number | null): number | null => (b ? a / b : null);

/** Counts of one class × stage group. */
interface Group {
  key: { class: string; stage: string; mode: string | null };
  counts: Record<string, number>;
  failures: Record<FailureReason, number>;
}

function isScanned(run: LoadedRun | ScannedRun): run is ScannedRun {
  return typeof (run.requests as { collectSync?: unknown }).collectSync === "function";
}

/**
 * Classifies and counts the window's requests by class × stage × first
 * failing reason (× how a completed request was streamed × the gates that
 * passed as n/a × sent × completed) in one polars query (a few hundred rows
 * come back; sent and completed follow from the outcome, as the reason does,
 * so they add no groups). The streaming and n/a counts per class go to
 * `observed`.
 */
function aggregate(
  run: LoadedRun | ScannedRun,
  policy: SloPolicy,
  window: ResolvedWindow,
  observed: Observed,
): Group[] {
  const groups = new Map<string, Group>();
  const add = (df: pl.DataFrame) => {
    const cls = df.getColumn("class").toArray() as string[];
    const stage = df.getColumn("stage").toArray() as string[];
    const mode = df.getColumn("service_mode").toArray() as (string | null)[];
    const reason = df.getColumn("reason").toArray() as (number | null)[];
    const streaming = df.getColumn("streaming").toArray() as (number | null)[];
    const na = df.getColumn("gates_na").toArray() as number[];
    const sent = df.getColumn("sent").toArray() as boolean[];
    const completed = df.getColumn("completed").toArray() as boolean[];
    const n = df.getColumn("n").toArray() as number[];
    for (let i = 0; i < df.height; i++) {
      const c = String(cls[i]), k = Number(n[i]);
      const s = streaming[i] ?? null;
      if (s !== null) (observed.streaming[c] ??= noStreaming())[STREAMING[s]!] += k;
      for (const g of maskGates(Number(na[i]))) (observed.gates_na[c] ??= noGates())[g] += k;
      const key = { class: c, stage: String(stage[i]), mode: mode[i] ?? null };
      const id = JSON.stringify([key.class, key.stage, key.mode]);
      let g = groups.get(id);
      if (!g) {
        g = { key, counts: { offered: 0, sent: 0, completed: 0, accepted: 0 }, failures: zeroFailures() };
        groups.set(id, g);
      }
      const r = reason[i] ?? null;
      g.counts.offered! += k;
      if (sent[i]) g.counts.sent! += k;
      if (completed[i]) g.counts.completed! += k;
      if (r === null) g.counts.accepted! += k;
      else g.failures[FAILURE_ORDER[r]!] += k;
    }
  };
  const query = (req: pl.LazyDataFrame, att: pl.LazyDataFrame) =>
    classifyLazy(req, att, policy, window).groupBy([
      "class",
      "stage",
      "service_mode",
      "reason",
      "streaming",
      "gates_na",
      "sent",
      "completed",
    ])
      .agg(pl.len().alias("n"));
  if (!isScanned(run)) add(query(run.requests.lazy(), run.attempts.lazy()).collectSync());
  else {
    // A scanned run may not fit in memory: one shard at a time (a request's attempts are in its own shard, and the
    // counts add up), each on polars' streaming engine, so memory follows the largest shard, not the whole log.
    for (const s of run.shards) add(query(s.requests, s.attempts).collectSync({ engine: "streaming" }));
  }
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...groups.values()].sort((a, b) => cmp(a.key.class, b.key.class) || cmp(a.key.stage, b.key.stage));
}

/** Mode order: none announced first, then by name. */
function byMode(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return a < b ? -1 : 1;
}

/** Sums groups that share `keyOf` (counts and failures are additive). */
function rollUp(groups: Group[], keyOf: (g: Group) => string): Map<string, Pick<Group, "counts" | "failures">> {
  const out = new Map<string, Pick<Group, "counts" | "failures">>();
  for (const g of groups) {
    const k = keyOf(g);
    const acc = out.get(k) ?? { counts: { offered: 0, sent: 0, completed: 0, accepted: 0 }, failures: zeroFailures() };
    for (const [c, n] of Object.entries(g.counts)) acc.counts[c] = (acc.counts[c] ?? 0) + n;
    for (const f of FAILURE_ORDER) acc.failures[f] += g.failures[f];
    out.set(k, acc);
  }
  return out;
}

function zeroFailures(): Record<FailureReason, number> {
  return Object.fromEntries(FAILURE_ORDER.map((f) => [f, 0])) as Record<FailureReason, number>;
}

function makeRow(
  c: Record<string, number>,
  failures: Record<FailureReason, number>,
  seconds: number | null,
  denominator: SloPolicy["denominator"],
): GoodputRow {
  const offered = c.offered ?? 0, sent = c.sent ?? 0, completed = c.completed ?? 0, accepted = c.accepted ?? 0;
  const d = { offered, sent, completed }[denominator];
  return {
    offered,
    sent,
    completed,
    accepted,
    measurement_seconds: seconds,
    accepted_goodput: ratio(accepted, seconds),
    acceptance_rate: ratio(accepted, offered),
    slo_miss_rate: d ? (d - accepted) / d : null,
    failures,
  };
}

/**
 * Accepted goodput of a run under an SLO policy: overall, by class, by
 * stage and by class × stage, with the disclosure (denominator, window,
 * inclusion rules, SLO per class as applied, TTFT/TPOT definitions, gates
 * passed as n/a, n). See `classify` for the per-request rules. The policy,
 * from a file or built in code, is validated first (`policyForRun`: the
 * schema, and its classes against the run's workload): a bad one is an
 * `InputError` naming the field. Pure: the run's frames are not changed.
 * Stages of the window without requests get a zero row.
 *
 * The classification and the counts are one polars query that returns one
 * row per class × stage × reason (1 M requests in 0.3–0.7 s, bench/README.md).
 * A {@linkcode ScannedRun} (`scanRun`) is queried with polars' streaming
 * engine, reading only the columns the rules need, so the log need not fit
 * in memory; the result is the same as for the loaded run.
 *
 * @example Goodput of a loaded run (see docs/analysis.md for the definitions)
 * ```ts ignore
 * const result = goodput(await loadRun("out/run-1"), await loadSloPolicy("data/slo/design-v1.json"));
 * console.log(result.overall.accepted_goodput, result.disclosure.denominator);
 * ```
 */
export function goodput(run: LoadedRun | ScannedRun, policy: SloPolicy): GoodputResult {
  policy = policyForRun(policy, run, "goodput() policy");
  // A measured quality source is applied by analysis/quality/quality_goodput.ts, which calls goodput() with it inline.
  refuseMeasuredQuality(policy, "goodput() policy");
  const window = runWindow(run, policy.window);
  const den = policy.denominator;
  // An imported run of durations only has no time window: every rate is null (NO_TIME_WINDOW_RULE).
  const timed = hasTimeWindow(run.manifest);
  const seconds = timed ? window.measurement_seconds : null;
  const secs = (stage: string) => (timed ? window.stage_seconds[stage] ?? null : null);

  // One pass over the requests (class × stage); the coarser tables are sums of its small result.
  const observed: Observed = { streaming: {}, gates_na: {} };
  const fine = aggregate(run, policy, window, observed);
  const all = rollUp(fine, () => "all").get("all");
  const overall = makeRow(all?.counts ?? {}, all?.failures ?? zeroFailures(), seconds, den);
  const by_class = [...rollUp(fine, (g) => g.key.class)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([cls, g]) => ({ class: cls, ...makeRow(g.counts, g.failures, seconds, den) }));
  const stageGroups = rollUp(fine, (g) => g.key.stage);
  const by_stage = [
    ...[...stageGroups].map(([stage, g]) => ({ stage, ...makeRow(g.counts, g.failures, secs(stage), den) })),
    ...window.stages.filter((s) => !stageGroups.has(s)).map((s) => ({
      stage: s,
      ...makeRow({}, zeroFailures(), secs(s), den),
    })),
  ];
  const order = new Map(run.manifest.stages.map((s, i) => [s.name, i]));
  by_stage.sort((a, b) => (order.get(a.stage) ?? Infinity) - (order.get(b.stage) ?? Infinity));
  const by_class_stage = [...rollUp(fine, (g) => JSON.stringify([g.key.class, g.key.stage]))].map(([k, g]) => {
    const [cls, stage] = JSON.parse(k) as [string, string];
    return { class: cls, stage, ...makeRow(g.counts, g.failures, secs(stage), den) };
  });
  const by_mode = [...rollUp(fine, (g) => JSON.stringify(g.key.mode))]
    .map(([k, g]) => ({
      mode: JSON.parse(k) as string | null,
      ...makeRow(g.counts, g.failures, seconds, den),
    }))
    .sort((a, b) => byMode(a.mode, b.mode));

  // The disclosure reads only the run's metadata (folder, manifests, format, warnings, whether a server table exists).
  const disclosure = buildDisclosure(run as LoadedRun, policy, window, {
    overall: overall.offered,
    by_class: Object.fromEntries(by_class.map((r) => [r.class, r.offered])),
    by_stage: Object.fromEntries(by_stage.map((r) => [r.stage, r.offered])),
    by_mode: Object.fromEntries(by_mode.map((r) => [modeLabel(r.mode), r.offered])),
  }, observed);
  const undeclared = undeclaredModeWarning(by_mode);
  if (undeclared) disclosure.warnings = [...disclosure.warnings, undeclared];
  return { disclosure, overall, by_class, by_stage, by_class_stage, by_mode };
}
