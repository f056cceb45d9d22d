/**
 * Route comparison: runs of the same workload under the same arrival
 * schedule and the same SLO policy, one per route (hosted, self-hosted,
 * hybrid, ...), side by side — accepted goodput, acceptance, tail latency per
 * class, and whatever the caller adds per run (knee, limit, cost per accepted
 * task). Runs that differ in what they ran are refused unless forced, and the
 * differences are always listed.
 *
 * @module
 */
import { InputError } from "../../schema/errors.ts";
import type { SloPolicy } from "../../schema/slo.ts";
import { DEFAULT_SUPPORT_CONFIDENCE } from "../latency/early_stopping.ts";
import { goodput, type GoodputRow } from "../goodput/goodput.ts";
import { latencyInWindow } from "../latency/latency.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import { isRunnerRun, runnerValue } from "../run/imported_run.ts";
import { policyForRuns, runWindow, workloadClasses } from "../goodput/policy.ts";

/** One field that differs between the runs, with each run's value. */
export interface Difference {
  field: string;
  /** run_id → value. */
  values: Record<string, string>;
  /** Whether this difference refuses the comparison (unless forced). */
  blocking: boolean;
}

/**
 * What must be equal for runs to be compared: the same tasks (workload
 * sha256), the same arrivals (schedule sha256) and the same output cap.
 * Routing, provider, model and deployment are what a comparison varies; they
 * are listed, never blocking.
 */
export function comparability(runs: LoadedRun[]): Difference[] {
  const fields: [string, boolean, (r: LoadedRun) => string][] = [
    // An imported run records none of the blocking fields: its value says so and matches no other run's.
    ["workload.sha256", true, (r) => runnerValue(r.manifest, (m) => m.workload.sha256)],
    ["plan.schedule_sha256", true, (r) => runnerValue(r.manifest, (m) => m.plan.schedule_sha256)],
    ["conditions.output_cap", true, (r) => runnerValue(r.manifest, (m) => String(m.conditions.output_cap))],
    ["plan.mode", true, (r) => runnerValue(r.manifest, (m) => m.plan.mode)],
    ["route", false, routeOf],
    [
      "targets",
      false,
      (r) => runnerValue(r.manifest, (m) => m.targets.map((t) => `${t.route}=${t.provider}/${t.model}`).join(", ")),
    ],
  ];
  const out: Difference[] = [];
  for (const [field, blocking, get] of fields) {
    const values = Object.fromEntries(runs.map((r) => [r.manifest.run_id, get(r)]));
    if (new Set(Object.values(values)).size > 1) out.push({ field, values, blocking });
  }
  return out;
}

/**
 * The route a run measured: its routing policy's name when it has one, else the conditions' route; for an imported
 * run, its run.json `route` (the model the source states); for a production recording, its run.json `route`.
 */
export function routeOf(run: LoadedRun): string {
  const m = run.manifest;
  return isRunnerRun(m) ? m.routing?.name ?? m.conditions.route : m.route;
}

/** Tail latency and acceptance of one class in one run. */
export interface ClassComparison {
  class: string;
  offered: number;
  accepted: number;
  acceptance_rate: number | null;
  accepted_goodput: number | null;
  /**
   * e2e p95/p99 of completed requests (ms) with their sample count; null where n does not support the percentile
   * (MLPerf LoadGen's early-stopping rule at the comparison's `support_confidence`).
   */
  e2e_p95_ms: number | null;
  e2e_p99_ms: number | null;
  e2e_n: number;
  /** Notes of percentiles that n cannot support (never shown bare). */
  notes: string[];
}

/** One run (one route) of a comparison. */
export interface RouteComparison {
  run_id: string;
  route: string;
  overall: GoodputRow;
  by_class: ClassComparison[];
  /** Figures the caller added (knee, limit, cost per accepted task, ...), by name. */
  extras: Record<string, number | string | null>;
  /** An imported run's source and what it lacks (`importCaveats`); empty for a run of our runner. */
  caveats: string[];
}

/** Per-class acceptance in the mixed run against a run of that class alone, on the same route. */
export interface CrowdingRow {
  route: string;
  class: string;
  mixed_acceptance: number | null;
  mixed_n: number;
  alone_acceptance: number | null;
  alone_n: number;
  alone_run_id: string;
  /** alone − mixed: positive when the class loses acceptance to the mix. */
  drop: number | null;
  /** The drop is larger than the 95 % two-proportion test allows by chance. */
  crowded_out: boolean;
}

export interface CompareResult {
  policy: { denominator: SloPolicy["denominator"]; window: string };
  /** One-sided confidence of the supported rule for the per-class percentiles. */
  support_confidence: number;
  differences: Difference[];
  forced: boolean;
  routes: RouteComparison[];
  crowding: CrowdingRow[];
}

export interface CompareOptions {
  /** Compare even when blocking differences exist (they are still listed). */
  force?: boolean;
  /** Runs with a single class each, on the same routes, to compare per-class acceptance against the mix. */
  singleClassRuns?: LoadedRun[];
  /** Extra per-run figures, e.g. knee rate and cost per accepted task. */
  extras?: (run: LoadedRun) => Record<string, number | string | null>;
  /** One-sided confidence of the supported rule (MLPerf LoadGen early stopping). @default {0.99} */
  supportConfidence?: number;
}

/**
 * Compares runs route by route under one SLO policy. Throws an
 * {@linkcode InputError} naming every blocking difference unless `force`.
 */
export function compare(runs: LoadedRun[], policy: SloPolicy, options: CompareOptions = {}): CompareResult {
  policy = policyForRuns(policy, [...runs, ...(options.singleClassRuns ?? [])], "compare() policy");
  if (runs.length < 2) throw new InputError(`compare needs at least two runs, got ${runs.length}`);
  const differences = comparability(runs);
  const blocking = differences.filter((d) => d.blocking);
  if (blocking.length && !options.force) {
    const lines = blocking.map((d) =>
      `  ${d.field}: ${Object.entries(d.values).map(([id, v]) => `${id}=${v}`).join("; ")}`
    );
    throw new InputError(
      `runs are not comparable (pass --force to compare anyway; the differences stay listed):\n${lines.join("\n")}`,
    );
  }
  const support = options.supportConfidence ?? DEFAULT_SUPPORT_CONFIDENCE;
  const routes = runs.map((run) => routeComparison(run, policy, options.extras, support));
  const crowding = options.singleClassRuns ? crowdingRows(routes, options.singleClassRuns, policy) : [];
  const w = runWindow(runs[0]!, policy.window);
  return {
    policy: { denominator: policy.denominator, window: w.description },
    support_confidence: support,
    differences,
    forced: blocking.length > 0,
    routes,
    crowding,
  };
}

function routeComparison(
  run: LoadedRun,
  policy: SloPolicy,
  extras: CompareOptions["extras"],
  supportConfidence: number,
): RouteComparison {
  const g = goodput(run, policy);
  const window = runWindow(run, policy.window);
  const lat = latencyInWindow(run, window, { percentiles: [0.95, 0.99], supportConfidence })
    .filter((r) => r.metric === "e2e_ms" && r.stage === null && r.class !== null);
  const by_class = g.by_class.map((c): ClassComparison => {
    const p = (q: number) => lat.find((r) => r.class === c.class && r.p === q);
    const p95 = p(0.95), p99 = p(0.99);
    return {
      class: c.class,
      offered: c.offered,
      accepted: c.accepted,
      acceptance_rate: c.acceptance_rate,
      accepted_goodput: c.accepted_goodput,
      e2e_p95_ms: p95?.supported ? p95.value : null,
      e2e_p99_ms: p99?.supported ? p99.value : null,
      e2e_n: p95?.n ?? 0,
      notes: [p95, p99].flatMap((r) => (r?.note ? [r.note] : [])),
    };
  });
  return {
    run_id: run.manifest.run_id,
    route: routeOf(run),
    overall: g.overall,
    by_class,
    extras: extras?.(run) ?? {},
    caveats: g.disclosure.imported?.caveats ?? [],
  };
}

function crowdingRows(routes: RouteComparison[], singles: LoadedRun[], policy: SloPolicy): CrowdingRow[] {
  const out: CrowdingRow[] = [];
  for (const single of singles) {
    // The policy was checked against every compared run's workload; a 1.0 single-class log knows only its own class,
    // and the others' SLOs cannot change its numbers, so they are left out of its goodput call.
    const own = workloadClasses(single).classes;
    const classes = Object.fromEntries(Object.entries(policy.classes).filter(([c]) => own.includes(c)));
    const g = goodput(single, { ...policy, classes });
    if (g.by_class.length !== 1) {
      throw new InputError(
        `${single.dir}: a single-class run must offer one class in the window, found ${g.by_class.length}`,
      );
    }
    const alone = g.by_class[0]!;
    const route = routeOf(single);
    const mixed = routes.find((r) => r.route === route);
    if (!mixed) throw new InputError(`${single.dir}: no mixed run on route "${route}" to compare with`);
    const m = mixed.by_class.find((c) => c.class === alone.class);
    const mixedRate = m?.acceptance_rate ?? null;
    const drop = mixedRate !== null && alone.acceptance_rate !== null ? alone.acceptance_rate - mixedRate : null;
    out.push({
      route,
      class: alone.class,
      mixed_acceptance: mixedRate,
      mixed_n: m?.offered ?? 0,
      alone_acceptance: alone.acceptance_rate,
      alone_n: alone.offered,
      alone_run_id: single.manifest.run_id,
      drop,
      crowded_out: drop !== null && drop > 0 && significantDrop(alone.accepted, alone.offered, m!.accepted, m!.offered),
    });
  }
  return out;
}

/** One-sided two-proportion z-test at 95 % (z > 1.645) that p1 = a1/n1 exceeds p2 = a2/n2. */
export function significantDrop(a1: number, n1: number, a2: number, n2: number): boolean {
  if (n1 === 0 || n2 === 0) return false;
  const pooled = (a1 + a2) / (n1 + n2);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
  if (se === 0) return false;
  return (a1 / n1 - a2 / n2) / se > 1.645;
}
