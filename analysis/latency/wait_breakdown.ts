/**
 * Where the wait went: each completed task's e2e wait (scheduled_ms → completed_ms) split into disjoint segments —
 * page, network, queue, retrieval, model, tools, render and the rest — per class and overall, for the accepted tasks
 * and for every completed task, with the share of the wait spent outside the model server.
 *
 * @module
 */
import pl from "nodejs-polars";
import type { SloPolicy } from "../../schema/slo.ts";
import { classify } from "../goodput/classify.ts";
import { policyForRun, runWindow } from "../goodput/policy.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import { runKind } from "../run/imported_run.ts";
import { runSourceCaveats } from "../run/production_run.ts";
import { stats, type WaitColumns, waitColumns } from "./_wait_stats.ts";
import { chargeWaits, measuredSegments, WAIT_SEGMENTS, type WaitSegment } from "./_wait_intervals.ts";
import { WAIT_RULES, waitNotMeasured } from "./_wait_rules.ts";

export { WAIT_RULES, WAIT_SEGMENTS, type WaitSegment };

/** One segment of one group's waits. */
export interface WaitSegmentStats {
  /** Tasks of the group that measured the segment (the others' time is in `other`). */
  n: number;
  /** Mean over those tasks (with a wait longer than 0) of segment ms / e2e ms; null when n = 0. */
  mean_share: number | null;
  /**
   * Σ segment ms / Σ e2e ms over every task of the group: its share of the group's whole waiting time (a task that
   * did not measure the segment adds 0: its time is in its `other`, so these add up to 1 over the segments); null
   * when n = 0.
   */
  pooled_share: number | null;
  /** Mean, median and p95 (nearest rank) of the segment's ms over those tasks; null when n = 0. */
  mean_ms: number | null;
  median_ms: number | null;
  p95_ms: number | null;
}

/** The waits of one group: a population (accepted or completed tasks) of one class, or of every class (null). */
export interface WaitBreakdownRow {
  population: "accepted" | "completed";
  class: string | null;
  /** Tasks in the group. */
  n: number;
  e2e: { mean_ms: number | null; median_ms: number | null; p95_ms: number | null };
  segments: Record<WaitSegment, WaitSegmentStats>;
  /** Everything but `model`: the wait spent outside the model server. */
  outside_model: {
    /** Mean over the tasks of (e2e − model) / e2e. */
    mean_share: number | null;
    /** Σ (e2e − model) / Σ e2e over the tasks: the share of all the group's waiting time. */
    pooled_share: number | null;
    median_ms: number | null;
    p95_ms: number | null;
  };
}

/** What a wait breakdown is conditional on, printed with it. */
export interface WaitDisclosure {
  run_id: string;
  run_kind: "runner" | "imported" | "production";
  window: { description: string; stages: string[]; measurement_seconds: number };
  /** The rules in words: populations, e2e, each segment, overlaps, shares, percentiles, outside the model. */
  rules: typeof WAIT_RULES;
  /** Tasks with at least one phase row, and the widest clock-error bound of their page-side phases, ms. */
  phases: { tasks_with_phases: number; max_clock_error_ms: number | null };
  /** The segments no task of the window measured, with why (n/a, not 0). */
  not_measured: Partial<Record<WaitSegment, string>>;
  /** Completed tasks of the window left out: no completed_ms, or one before scheduled_ms. */
  excluded: number;
  n: { accepted: number; completed: number };
  /** Where the run came from (an import's lacks, a recording's meaning), as every verb states it. */
  caveats: string[];
}

/** The result of {@linkcode waitBreakdown}. */
export interface WaitBreakdownResult {
  /** Accepted then completed; in each, every class (sorted) then all classes (class null). */
  rows: WaitBreakdownRow[];
  /** One row per completed task of the window: request_id, class, accepted, e2e_ms, `<segment>_ms`, `has_<segment>`. */
  tasks: pl.DataFrame;
  disclosure: WaitDisclosure;
}

const F64 = pl.Float64;

/** One group's row: its tasks `idx` (a population of one class, or of all classes). */
function groupRow(
  population: WaitBreakdownRow["population"],
  cls: string | null,
  idx: number[],
  c: WaitColumns,
): WaitBreakdownRow {
  const total = idx.reduce((n, i) => n + c.e2e[i]!, 0);
  const all = () => true;
  const segments = Object.fromEntries(WAIT_SEGMENTS.map((s) => {
    const { n, mean_share, pooled_share, mean_ms, median_ms, p95_ms } = stats(
      idx,
      c,
      (i) => c.ms[s][i]!,
      (i) => c.has[s][i]!,
      total,
    );
    return [s, { n, mean_share, pooled_share, mean_ms, median_ms, p95_ms }];
  })) as Record<WaitSegment, WaitSegmentStats>;
  const e2e = stats(idx, c, (i) => c.e2e[i]!, all, total);
  const outside = stats(idx, c, (i) => c.e2e[i]! - c.ms.model[i]!, all, total);
  return {
    population,
    class: cls,
    n: idx.length,
    e2e: { mean_ms: e2e.mean_ms, median_ms: e2e.median_ms, p95_ms: e2e.p95_ms },
    segments,
    outside_model: {
      mean_share: outside.mean_share,
      pooled_share: outside.pooled_share,
      median_ms: outside.median_ms,
      p95_ms: outside.p95_ms,
    },
  };
}

/**
 * Where the wait went in a run under an SLO policy: every completed task scheduled in the policy's window (and,
 * separately, the accepted ones, by `classify`), its e2e wait split into the disjoint segments of
 * {@linkcode WAIT_SEGMENTS} by the rules of {@linkcode WAIT_RULES}: each segment's mean share of the wait, its median
 * and p95 ms and n, per class and overall, and the share of the wait outside the model server. The split is one
 * polars query over the run's requests, attempts, tools and phases. A run without phases (a runner's or an imported
 * run) gets page = its send lag, and network, queue and render not measured (n/a, never 0).
 *
 * @example Where the accepted tasks of a recording waited
 * ```ts ignore
 * const w = waitBreakdown(await loadRun("out/recording"), policy);
 * const all = w.rows.find((r) => r.population === "accepted" && r.class === null)!;
 * console.log(all.segments.model.mean_share, all.outside_model.mean_share);
 * ```
 */
export function waitBreakdown(run: LoadedRun, policy: SloPolicy): WaitBreakdownResult {
  policy = policyForRun(policy, run, "waitBreakdown() policy");
  const window = runWindow(run, policy.window);
  const classified = classify(run, policy, window).filter(pl.col("completed"))
    .select("request_id", "class", "accepted");
  const times = run.requests.select(
    "request_id",
    pl.col("scheduled_ms").cast(F64),
    pl.col("first_sent_ms").cast(F64),
    pl.col("completed_ms").cast(F64).alias("done_ms"),
  );
  const joined = classified.join(times, { on: "request_id", how: "left" });
  const ok = pl.col("done_ms").isNotNull().and(pl.col("done_ms").gtEq(pl.col("scheduled_ms")));
  const tasks = joined.filter(ok);
  const tables = { phases: run.phases, tools: run.tools, attempts: run.attempts };
  const perTask = tasks.select(
    "request_id",
    "class",
    "accepted",
    pl.col("done_ms").sub(pl.col("scheduled_ms")).alias("e2e_ms"),
  )
    .join(chargeWaits(tasks, tables), { on: "request_id", how: "left" })
    .join(measuredSegments(tasks, run.phases), { on: "request_id", how: "left" });

  const c = waitColumns(perTask);
  const classes = [...new Set(c.cls)].sort();
  const every = Array.from({ length: c.cls.length }, (_, i) => i);
  const rows: WaitBreakdownRow[] = [];
  for (const population of ["accepted", "completed"] as const) {
    const pop = population === "accepted" ? every.filter((i) => c.accepted[i]) : every;
    for (const k of classes) rows.push(groupRow(population, k, pop.filter((i) => c.cls[i] === k), c));
    rows.push(groupRow(population, null, pop, c));
  }

  const ids = tasks.select("request_id");
  const own = run.phases.join(ids, { on: "request_id", how: "inner" });
  const maxError = own.height ? own.getColumn("clock_error_ms").max() : null;
  return {
    rows,
    tasks: perTask,
    disclosure: {
      run_id: run.manifest.run_id,
      run_kind: runKind(run.manifest),
      window: {
        description: window.description,
        stages: window.stages,
        measurement_seconds: window.measurement_seconds,
      },
      rules: WAIT_RULES,
      phases: {
        tasks_with_phases: own.select("request_id").unique().height,
        max_clock_error_ms: maxError === null || maxError === undefined || Number.isNaN(Number(maxError))
          ? null
          : Number(maxError),
      },
      not_measured: waitNotMeasured(c.has, run.phases.height > 0),
      excluded: joined.height - tasks.height,
      n: { accepted: c.accepted.filter(Boolean).length, completed: c.cls.length },
      caveats: runSourceCaveats(run.manifest),
    },
  };
}
