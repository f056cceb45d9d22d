/**
 * The latency table: percentiles of every latency metric per class, per
 * stage, per class × stage and overall, each with n, a distribution-free
 * confidence interval, the support flag, the window and the inclusion rule.
 *
 * @module
 */
import pl from "nodejs-polars";
import type { LoadedRun } from "../run/loaded_run.ts";
import { latencyCaveat } from "../run/imported_run.ts";
import type { ResolvedWindow } from "../goodput/policy.ts";
import { DEFAULT_SUPPORT_CONFIDENCE } from "./early_stopping.ts";
import { percentileWithCI } from "./percentile.ts";
import { ATTEMPT_COLUMNS, finalAttemptLazy, streamingExprs } from "../goodput/_streaming.ts";

/** The metrics of the table, in output order. */
export const LATENCY_METRICS = [
  "ttft_ms",
  "tpot_ms",
  "e2e_ms",
  "send_lag_ms",
  "server_wait_ms",
  "tool_ms",
  "rounds",
] as const;
export type LatencyMetric = typeof LATENCY_METRICS[number];

/** Which requests each metric is computed over, and how: printed in every row. */
export const LATENCY_INCLUSION: Record<LatencyMetric, string> = {
  ttft_ms:
    "completed requests (outcome ok) that were streamed: first_token_ms − scheduled_ms (from the intended start, " +
    "not the send), the first token of the first model round; requests not streamed excluded (TTFT not " +
    "observable) and counted in `excluded`",
  tpot_ms: "completed requests: (last_token_ms − first_token_ms) / (output_tokens − 1) of the last attempt with both " +
    "token times in the last round; excluded (counted in `excluded`): requests or attempts not streamed, < 2 output " +
    "tokens, every token at one instant",
  e2e_ms: "completed requests (outcome ok): completed_ms − scheduled_ms",
  send_lag_ms: "requests the runner began (send_lag_ms not null), whatever their outcome",
  server_wait_ms: "requests with a first attempt that got headers: headers_ms − sent_ms of the first attempt",
  tool_ms: "requests with at least one tool call: the request's total tool_ms",
  rounds: "completed requests (outcome ok): model rounds",
};

/** A measurement window on `scheduled_ms`, half-open `[start_ms, end_ms)`. */
export interface MsWindow {
  start_ms: number;
  end_ms: number;
}

/** Options of {@linkcode latencyTable}. */
export interface LatencyOptions {
  /** Only requests with scheduled_ms in `[start_ms, end_ms)`; null = the whole run. @default {null} */
  window?: MsWindow | null;
  /** Percentiles as fractions in (0, 1]. @default {[0.5, 0.95, 0.99]} */
  percentiles?: number[];
  /** Two-sided confidence level of each interval. @default {0.95} */
  confidence?: number;
  /** One-sided confidence of the supported rule (MLPerf LoadGen early stopping). @default {0.99} */
  supportConfidence?: number;
}

/** One percentile of one metric for one group. */
export interface LatencyRow {
  /** The class, or null for all classes. */
  class: string | null;
  /** The stage, or null for all stages. */
  stage: string | null;
  metric: LatencyMetric;
  /** Percentile as a fraction (0.99 = p99). */
  p: number;
  /** Nearest-rank value; null when n = 0. */
  value: number | null;
  n: number;
  /**
   * For a metric over completed requests (TTFT, TPOT, e2e, rounds): the
   * group's completed requests without a value (not in n); null for the
   * other metrics, whose inclusion rule defines their population.
   */
  excluded: number | null;
  /** Of `excluded`, the requests that were not streamed (TTFT and TPOT not observable); null as `excluded`. */
  excluded_not_streamed: number | null;
  confidence: number;
  lower: number | null;
  upper: number | null;
  /** One-sided confidence of `supported` and `bound`. */
  support_confidence: number;
  /** Early-stopping bound: the smallest sample x with "percentile ≤ x" supported; null when not supported. */
  bound: number | null;
  /** n can bound the percentile at `support_confidence` (MLPerf LoadGen's early-stopping rule). */
  supported: boolean;
  note: string | null;
  /** The window the rows were computed over (null = whole run). */
  window: MsWindow | null;
  inclusion: string;
}

const F64 = pl.Float64;

/** Metrics computed over completed requests: their rows count the completed requests left out. */
const OVER_COMPLETED: ReadonlySet<LatencyMetric> = new Set(["ttft_ms", "tpot_ms", "e2e_ms", "rounds"]);
/** Metrics a request that was not streamed does not have. */
const NOT_OBSERVABLE: ReadonlySet<LatencyMetric> = new Set(["ttft_ms", "tpot_ms"]);

/**
 * Per-request metric columns (null where a request is not included), keyed
 * by request_id, plus `_ok` (completed) and `_not_streamed`. TTFT and TPOT
 * follow the classification's streaming rules (`_streaming.ts`).
 */
function perRequest(run: LoadedRun, window: MsWindow | null): pl.DataFrame {
  let req = run.requests;
  if (window) {
    req = req.filter(pl.col("scheduled_ms").gtEq(window.start_ms).and(pl.col("scheduled_ms").lt(window.end_ms)));
  }
  // Order of attempts within a request: (round, attempt) as one sortable key. Window
  // expressions (`over`) pick rows; per-group filters inside an aggregation are far slower.
  const att = run.attempts.withColumns(
    pl.col("round").cast(F64).mul(1e6).add(pl.col("attempt").cast(F64)).alias("_order"),
  );
  // First attempt: the server's wait before headers.
  const first = att.filter(pl.col("_order").eq(pl.col("_order").min().over("request_id"))).select(
    pl.col("request_id"),
    pl.col("headers_ms").cast(F64).sub(pl.col("sent_ms").cast(F64)).alias("server_wait_ms"),
  );
  // The final answered attempt of the last round: TPOT, and a 1.0 log's streaming inference.
  const final = finalAttemptLazy(run.attempts.lazy().select(ATTEMPT_COLUMNS)).collectSync();
  const ok = pl.col("outcome").eq(pl.lit("ok"));
  const onlyOk = (e: pl.Expr) => pl.when(ok).then(e).otherwise(pl.lit(null));
  const streaming = streamingExprs();
  return req
    .join(first, { on: "request_id", how: "left" })
    .join(final, { on: "request_id", how: "left" })
    .select(
      pl.col("class").cast(pl.Utf8),
      pl.col("stage").cast(pl.Utf8),
      onlyOk(streaming.ttft).cast(F64).alias("ttft_ms"),
      onlyOk(streaming.tpot).cast(F64).alias("tpot_ms"),
      onlyOk(pl.col("completed_ms").cast(F64).sub(pl.col("scheduled_ms").cast(F64))).alias("e2e_ms"),
      pl.col("send_lag_ms").cast(F64),
      pl.col("server_wait_ms").cast(F64),
      pl.when(pl.col("tool_calls").gt(0)).then(pl.col("tool_ms").cast(F64)).otherwise(pl.lit(null)).alias("tool_ms"),
      onlyOk(pl.col("rounds").cast(F64)).alias("rounds"),
      ok.alias("_ok"),
      ok.and(streaming.observable.not()).alias("_not_streamed"),
    );
}

/** A group of the table: its labels and, per metric, its ascending values and the completed requests left out. */
interface Group {
  class: string | null;
  stage: string | null;
  values: Map<LatencyMetric, Float64Array>;
  excluded: Map<LatencyMetric, number>;
  /** Completed requests of the group that were not streamed. */
  notStreamed: number;
}

/** The four groupings: overall, by class, by stage, by class × stage. */
const GROUPINGS = [[false, false], [true, false], [false, true], [true, true]] as const;

const int32 = (df: pl.DataFrame, c: string) => Int32Array.from(df.getColumn(c).toTypedArray() as ArrayLike<number>);

/**
 * Every group's sorted values of every metric, and its counts of completed
 * requests left out. Each metric is sorted once in polars; a stable counting
 * pass per grouping then splits it by dense class/stage codes, so each
 * group's slice stays sorted (no per-group sort, no list columns crossing
 * into JS).
 */
function groups(frame: pl.DataFrame): Group[] {
  const coded = frame.withColumns(
    pl.col("class").rank("dense").cast(pl.Int32).sub(1).alias("_c"),
    pl.col("stage").rank("dense").cast(pl.Int32).sub(1).alias("_s"),
  );
  const labels = coded.select("class", "stage", "_c", "_s").unique().toRecords();
  const classes: string[] = [];
  const stages: string[] = [];
  const combos = new Set<number>();
  let nStages = 0;
  for (const l of labels) nStages = Math.max(nStages, Number(l._s) + 1);
  for (const l of labels) {
    classes[Number(l._c)] = String(l.class);
    stages[Number(l._s)] = String(l.stage);
    combos.add(Number(l._c) * nStages + Number(l._s));
  }
  const out: Group[] = [];
  const index = new Map<string, Group>();
  const group = (cls: string | null, stage: string | null): Group => {
    const key = JSON.stringify([cls, stage]);
    let g = index.get(key);
    if (!g) {
      g = { class: cls, stage, values: new Map(), excluded: new Map(), notStreamed: 0 };
      index.set(key, g);
      out.push(g);
    }
    return g;
  };
  // Fix the output order: overall, classes, stages, class × stage present in the data.
  group(null, null);
  classes.forEach((c) => group(c, null));
  stages.forEach((st) => group(null, st));
  [...combos].sort((x, y) => x - y).forEach((k) => group(classes[Math.floor(k / nStages)]!, stages[k % nStages]!));
  // Per grouping: a row's slot from its class and stage codes, and each slot's group (null: a class × stage absent).
  const slotted = GROUPINGS.map(([byClass, byStage]) => {
    const size = (byClass ? classes.length : 1) * (byStage ? nStages : 1);
    const slot = (c: number, st: number) => (byClass ? c : 0) * (byStage ? nStages : 1) + (byStage ? st : 0);
    const at = Array.from({ length: size }, (_, k) => {
      if (byClass && byStage && !combos.has(k)) return null;
      return group(
        byClass ? classes[Math.floor(k / (byStage ? nStages : 1))]! : null,
        byStage ? stages[k % nStages]! : null,
      );
    });
    return { size, slot, at };
  });
  /** Rows of `rows` per group, over every grouping. */
  const tally = (rows: pl.DataFrame, add: (g: Group, n: number) => void) => {
    const c = int32(rows, "_c"), st = int32(rows, "_s");
    for (const { size, slot, at } of slotted) {
      const counts = new Int32Array(size);
      for (let i = 0; i < c.length; i++) counts[slot(c[i]!, st[i]!)]!++;
      for (let k = 0; k < size; k++) if (at[k]) add(at[k]!, counts[k]!);
    }
  };
  tally(coded.filter(pl.col("_not_streamed")), (g, n) => g.notStreamed = n);
  for (const metric of LATENCY_METRICS) {
    const col = pl.col(metric);
    if (OVER_COMPLETED.has(metric)) {
      tally(coded.filter(pl.col("_ok").and(col.isNull())), (g, n) => g.excluded.set(metric, n));
    }
    const sorted = coded.select("_c", "_s", metric).filter(col.isNotNull().and(col.isNotNan())).sort(metric);
    const values = Float64Array.from(sorted.getColumn(metric).toTypedArray() as ArrayLike<number>);
    const c = int32(sorted, "_c"), st = int32(sorted, "_s");
    for (const { size, slot, at } of slotted) {
      const counts = new Int32Array(size + 1);
      for (let i = 0; i < values.length; i++) counts[slot(c[i]!, st[i]!) + 1]!++;
      for (let k = 0; k < size; k++) counts[k + 1]! += counts[k]!;
      const starts = counts.slice(0, size);
      const split = new Float64Array(values.length);
      for (let i = 0; i < values.length; i++) split[starts[slot(c[i]!, st[i]!)]!++] = values[i]!;
      for (let k = 0; k < size; k++) at[k]?.values.set(metric, split.subarray(counts[k]!, counts[k + 1]!));
    }
  }
  return out;
}

/**
 * Latency percentiles per class, per stage, per class × stage and overall
 * (class/stage null = all), for every metric in {@linkcode LATENCY_METRICS}.
 * Each row carries n, the completed requests left out (`excluded`, of which
 * `excluded_not_streamed`: a request that was not streamed has no TTFT or
 * TPOT), the confidence interval, `supported` and `bound` (MLPerf LoadGen's
 * early-stopping rule at `supportConfidence`; false with a note when n cannot
 * bound the percentile), the window and the inclusion rule.
 *
 * @example
 * ```ts ignore
 * const rows = latencyTable(run, { window: { start_ms: 10_000, end_ms: 70_000 } });
 * ```
 */
export function latencyTable(run: LoadedRun, options: LatencyOptions = {}): LatencyRow[] {
  const window = options.window ?? null;
  if (window && !(window.end_ms > window.start_ms)) {
    throw new RangeError(`latencyTable: window end_ms ${window.end_ms} must exceed start_ms ${window.start_ms}`);
  }
  const ps = options.percentiles ?? [0.5, 0.95, 0.99];
  const confidence = options.confidence ?? 0.95;
  const supportConfidence = options.supportConfidence ?? DEFAULT_SUPPORT_CONFIDENCE;
  const frame = perRequest(run, window);
  const rows: LatencyRow[] = [];
  for (const g of groups(frame)) {
    for (const metric of LATENCY_METRICS) {
      const sorted = g.values.get(metric) ?? new Float64Array(0);
      for (const p of ps) {
        const ci = percentileWithCI(sorted, p, { confidence, supportConfidence, sorted: true });
        rows.push({
          class: g.class,
          stage: g.stage,
          metric,
          p,
          value: ci.value,
          n: ci.n,
          excluded: OVER_COMPLETED.has(metric) ? g.excluded.get(metric) ?? 0 : null,
          excluded_not_streamed: NOT_OBSERVABLE.has(metric) ? g.notStreamed : OVER_COMPLETED.has(metric) ? 0 : null,
          confidence,
          lower: ci.lower,
          upper: ci.upper,
          support_confidence: ci.support_confidence,
          bound: ci.bound,
          supported: ci.supported,
          note: ci.note,
          window,
          inclusion: [LATENCY_INCLUSION[metric], latencyCaveat(run.manifest, metric)].filter(Boolean).join("; "),
        });
      }
    }
  }
  return rows;
}

/**
 * {@linkcode latencyTable} over the requests scheduled in a resolved window
 * (stage windows may be several disjoint intervals, which the table's single
 * ms range cannot express).
 */
export function latencyInWindow(run: LoadedRun, window: ResolvedWindow, options: LatencyOptions = {}): LatencyRow[] {
  const sched = pl.col("scheduled_ms");
  const inWindow = window.intervals.map(([a, b]) => sched.gtEq(a).and(sched.lt(b))).reduce((x, y) => x.or(y));
  return latencyTable({ ...run, requests: run.requests.filter(inWindow) }, { ...options, window: null });
}
