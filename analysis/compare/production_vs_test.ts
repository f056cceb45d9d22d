/**
 * A production recording beside a load test of the same workload, under one SLO policy: per-class latency (TTFT and
 * e2e percentiles with n), acceptance, the share of the wait spent outside the model server, and the segments of the
 * wait the load test did not see.
 *
 * @module
 */
import { InputError } from "../../schema/errors.ts";
import type { SloPolicy } from "../../schema/slo.ts";
import { goodput, type GoodputResult, type GoodputRow } from "../goodput/goodput.ts";
import { policyForRuns, runWindow } from "../goodput/policy.ts";
import { latencyInWindow, type LatencyRow } from "../latency/latency.ts";
import {
  WAIT_SEGMENTS,
  waitBreakdown,
  type WaitBreakdownResult,
  type WaitBreakdownRow,
  type WaitSegment,
} from "../latency/wait_breakdown.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import { runKind } from "../run/imported_run.ts";

/** Every definition of the comparison, as its disclosure states it (docs/production_analysis.md). */
export const PRODUCTION_VS_TEST_RULES = {
  pairing: "the production recording and the load test are compared under one SLO policy; each run's numbers are " +
    "over its own requests scheduled in the policy's window, and every difference is production − load test",
  latency: "TTFT and e2e percentiles per class and over all classes (nearest rank, with the distribution-free 95 % " +
    "confidence interval and n) of each run's completed requests, each measured from its own scheduled_ms: the " +
    "user's action in a recording, the planned arrival in a load test",
  acceptance:
    "acceptance = accepted / the policy's denominator (offered, sent or completed) of each run under the same " +
    "policy, per class; a recording's offered = the user actions it observed and sampled, a load test's = its " +
    "planned arrivals",
  outside_model: "the share of the wait outside the model server = Σ (e2e − model) / Σ e2e over each run's " +
    "completed tasks of the class (where the wait went, pooled); a load test has no page, network, queue or render " +
    "phases, and its send lag stands in its page segment",
  unseen: "a segment the load test did not see, per class: one that the recording measured (n > 0) with time in " +
    "it (pooled share > 0), and that the load test did not measure (n/a) or measured at 0 ms (no such step in it)",
} as const;

/** One run's value of one percentile. */
export interface LatencySide {
  /** Nearest-rank value, ms; null when n = 0. */
  value: number | null;
  n: number;
  lower: number | null;
  upper: number | null;
  /** n can bound the percentile (MLPerf LoadGen's early-stopping rule, latencyTable's). */
  supported: boolean;
}

/** One percentile of one metric for one class (null = all), in both runs. */
export interface LatencyComparison {
  class: string | null;
  metric: "ttft_ms" | "e2e_ms";
  p: number;
  production: LatencySide;
  test: LatencySide;
  /** production − test, ms; null when either is null. */
  difference_ms: number | null;
}

/** One run's acceptance of one class. */
export interface AcceptanceSide {
  offered: number;
  sent: number;
  completed: number;
  accepted: number;
  acceptance_rate: number | null;
}

/** Acceptance of one class (null = all) in both runs. */
export interface AcceptanceComparison {
  class: string | null;
  production: AcceptanceSide;
  test: AcceptanceSide;
  /** production − test acceptance rate; null when either is null. */
  difference: number | null;
}

/** One run's wait outside the model server for one class. */
export interface OutsideModelSide {
  /** Completed tasks of the class. */
  n: number;
  /** Σ (e2e − model) / Σ e2e; null when n = 0. */
  pooled_share: number | null;
  /** Median of e2e − model, ms. */
  median_ms: number | null;
  /** Median e2e, ms. */
  e2e_median_ms: number | null;
}

/** The wait outside the model server of one class (null = all) in both runs. */
export interface OutsideModelComparison {
  class: string | null;
  production: OutsideModelSide;
  test: OutsideModelSide;
  /** production − test pooled share; null when either is null. */
  difference: number | null;
}

/** A segment of the wait the load test did not see, for one class (null = all). */
export interface UnseenSegment {
  class: string | null;
  segment: WaitSegment;
  /** The recording's tasks that measured it, its pooled share of their class's waiting time, median and p95 ms. */
  production: { n: number; pooled_share: number; median_ms: number | null; p95_ms: number | null };
  /** How the load test had it: not measured (n/a), or measured at 0 ms. */
  test: "not measured" | "0 ms";
}

/** The result of {@linkcode productionVsTest}. */
export interface ProductionVsTestResult {
  /** Each run's own results, as computed here. */
  production: { run_id: string; goodput: GoodputResult; wait: WaitBreakdownResult };
  test: { run_id: string; goodput: GoodputResult; wait: WaitBreakdownResult };
  /** Every class (sorted) then all (null): TTFT then e2e, each percentile. */
  latency: LatencyComparison[];
  acceptance: AcceptanceComparison[];
  outside_model: OutsideModelComparison[];
  unseen: UnseenSegment[];
  disclosure: {
    workload: string;
    denominator: SloPolicy["denominator"];
    windows: { production: string; test: string };
    measurement_seconds: { production: number; test: number };
    rules: typeof PRODUCTION_VS_TEST_RULES;
    /** Where each run came from (a recording's meaning of offered and seconds), as each verb states it. */
    caveats: { production: string[]; test: string[] };
  };
}

/** Options of {@linkcode productionVsTest}. */
export interface ProductionVsTestOptions {
  /** Percentiles as fractions. @default {[0.5, 0.95]} */
  percentiles?: number[];
}

const workloadName = (run: LoadedRun): string | null =>
  (run.manifest as { workload?: { name?: string } }).workload?.name ?? null;

const minus = (a: number | null, b: number | null) => (a === null || b === null ? null : a - b);

function latencySide(rows: LatencyRow[], cls: string | null, metric: string, p: number): LatencySide {
  const r = rows.find((x) => x.class === cls && x.stage === null && x.metric === metric && x.p === p);
  return r
    ? { value: r.value, n: r.n, lower: r.lower, upper: r.upper, supported: r.supported }
    : { value: null, n: 0, lower: null, upper: null, supported: false };
}

function acceptanceSide(g: GoodputResult, cls: string | null): AcceptanceSide {
  const row: GoodputRow | undefined = cls === null ? g.overall : g.by_class.find((r) => r.class === cls);
  return row
    ? {
      offered: row.offered,
      sent: row.sent,
      completed: row.completed,
      accepted: row.accepted,
      acceptance_rate: row.acceptance_rate,
    }
    : { offered: 0, sent: 0, completed: 0, accepted: 0, acceptance_rate: null };
}

const waitRow = (w: WaitBreakdownResult, cls: string | null): WaitBreakdownRow | undefined =>
  w.rows.find((r) => r.population === "completed" && r.class === cls);

function outsideSide(w: WaitBreakdownResult, cls: string | null): OutsideModelSide {
  const r = waitRow(w, cls);
  return r
    ? {
      n: r.n,
      pooled_share: r.outside_model.pooled_share,
      median_ms: r.outside_model.median_ms,
      e2e_median_ms: r.e2e.median_ms,
    }
    : { n: 0, pooled_share: null, median_ms: null, e2e_median_ms: null };
}

/** The segments (but the model) the recording had time in and the load test did not measure or had at 0 ms. */
function unseenOf(prod: WaitBreakdownResult, test: WaitBreakdownResult, cls: string | null): UnseenSegment[] {
  const p = waitRow(prod, cls), t = waitRow(test, cls);
  if (!p) return [];
  return WAIT_SEGMENTS.filter((s) => s !== "model" && s !== "other").flatMap((s): UnseenSegment[] => {
    const ps = p.segments[s], ts = t?.segments[s];
    if (ps.n === 0 || !ps.pooled_share) return [];
    const seen = ts !== undefined && ts.n > 0 && (ts.pooled_share ?? 0) > 0;
    if (seen) return [];
    return [{
      class: cls,
      segment: s,
      production: { n: ps.n, pooled_share: ps.pooled_share, median_ms: ps.median_ms, p95_ms: ps.p95_ms },
      test: ts === undefined || ts.n === 0 ? "not measured" : "0 ms",
    }];
  });
}

/**
 * A production recording (run.json kind `production`) beside a load test of the same workload (a runner's run, or an
 * imported one), under one SLO policy: per class and over all classes, TTFT and e2e percentiles with n and their
 * difference, acceptance, the share of the wait spent outside the model server (from {@linkcode waitBreakdown}), and
 * the segments of the wait the load test did not see. Refuses (InputError) a first run that is not a recording, and
 * two runs that name different workloads. The rules are {@linkcode PRODUCTION_VS_TEST_RULES}.
 *
 * @example The chat example's recording beside its load test
 * ```ts ignore
 * const r = productionVsTest(await loadRun("data/runs/production-chat"),
 *   await loadRun("data/runs/production-chat-loadtest"), await loadSloPolicy("data/slo/chat-example.json"));
 * console.log(r.outside_model.at(-1));
 * ```
 */
export function productionVsTest(
  production: LoadedRun,
  test: LoadedRun,
  policy: SloPolicy,
  options: ProductionVsTestOptions = {},
): ProductionVsTestResult {
  if (runKind(production.manifest) !== "production") {
    throw new InputError(
      `${production.dir}/run.json: kind: productionVsTest() compares a production recording (kind production) ` +
        `with a load test; run ${production.manifest.run_id} is a ${runKind(production.manifest)} run`,
    );
  }
  const [wp, wt] = [workloadName(production), workloadName(test)];
  if (wp !== null && wt !== null && wp !== wt) {
    throw new InputError("productionVsTest(): not the same workload", [
      `${production.dir}/run.json: workload.name: ${wp}`,
      `${test.dir}/run.json: workload.name: ${wt}`,
    ]);
  }
  policy = policyForRuns(policy, [production, test], "productionVsTest() policy");
  const ps = options.percentiles ?? [0.5, 0.95];
  const side = (run: LoadedRun) => {
    const window = runWindow(run, policy.window);
    return {
      window,
      latency: latencyInWindow(run, window, { percentiles: ps }),
      goodput: goodput(run, policy),
      wait: waitBreakdown(run, policy),
    };
  };
  const p = side(production), t = side(test);
  const classes: (string | null)[] = [
    ...new Set([...p.goodput.by_class, ...t.goodput.by_class].map((r) => r.class)),
  ].sort();
  classes.push(null);
  const latency = classes.flatMap((cls) =>
    (["ttft_ms", "e2e_ms"] as const).flatMap((metric) =>
      ps.map((q): LatencyComparison => {
        const a = latencySide(p.latency, cls, metric, q), b = latencySide(t.latency, cls, metric, q);
        return { class: cls, metric, p: q, production: a, test: b, difference_ms: minus(a.value, b.value) };
      })
    )
  );
  const acceptance = classes.map((cls): AcceptanceComparison => {
    const a = acceptanceSide(p.goodput, cls), b = acceptanceSide(t.goodput, cls);
    return { class: cls, production: a, test: b, difference: minus(a.acceptance_rate, b.acceptance_rate) };
  });
  const outside = classes.map((cls): OutsideModelComparison => {
    const a = outsideSide(p.wait, cls), b = outsideSide(t.wait, cls);
    return { class: cls, production: a, test: b, difference: minus(a.pooled_share, b.pooled_share) };
  });
  return {
    production: { run_id: production.manifest.run_id, goodput: p.goodput, wait: p.wait },
    test: { run_id: test.manifest.run_id, goodput: t.goodput, wait: t.wait },
    latency,
    acceptance,
    outside_model: outside,
    unseen: classes.flatMap((cls) => unseenOf(p.wait, t.wait, cls)),
    disclosure: {
      workload: wp ?? wt ?? "(not named)",
      denominator: policy.denominator,
      windows: { production: p.window.description, test: t.window.description },
      measurement_seconds: { production: p.window.measurement_seconds, test: t.window.measurement_seconds },
      rules: PRODUCTION_VS_TEST_RULES,
      caveats: { production: p.wait.disclosure.caveats, test: t.wait.disclosure.caveats },
    },
  };
}
