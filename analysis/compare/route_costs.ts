/**
 * Routes compared with their knee, production limit and cost per accepted
 * task, and the figure inputs that need results from several analyses
 * (cost waterfall, goodput vs load with the knee).
 *
 * @module
 */
import type { OverheadSheet, PriceSheet } from "../../schema/prices.ts";
import type { SloPolicy } from "../../schema/slo.ts";
import { compare, type CompareResult } from "./compare.ts";
import { goodput } from "../goodput/goodput.ts";
import { knee, type KneeResult } from "../knee/knee.ts";
import { ledger, type LedgerResult } from "../cost/ledger.ts";
import { limitFromKnee, type ProductionLimit } from "../knee/limit.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import { gpuTimeNote, ledgerWaterfall } from "../plots/cost_waterfall.ts";
import { loadCurveFromGoodput, type LoadCurveInput } from "../plots/goodput_vs_load.ts";
import type { RouteComparisonInput } from "../plots/route_comparison.ts";
import { policyForRun, policyForRuns } from "../goodput/policy.ts";

export { gpuTimeNote, ledgerWaterfall };

/**
 * The goodput-vs-load input of a staged run with the knee and the limits
 * marked: the limit at every headroom choice, and at the chosen headroom
 * (`headroom`, drawn as chosen) when one was given. Without a knee, the
 * title's reason: no capacity, or no knee found in the levels tested.
 */
export function kneeCurve(run: LoadedRun, policy: SloPolicy, knee: KneeResult, limit: ProductionLimit): LoadCurveInput {
  policy = policyForRun(policy, run, "kneeCurve() policy");
  const curve = loadCurveFromGoodput(goodput(run, policy), run.manifest.stages);
  const limits = limit.choices.map((c) => ({ headroom: c.headroom, rps: c.limit_rps }));
  if (limit.headroom !== null && limit.limit_rps !== null && !limits.some((l) => l.headroom === limit.headroom)) {
    limits.push({ headroom: limit.headroom, rps: limit.limit_rps });
    limits.sort((a, b) => a.headroom - b.headroom);
  }
  const signal = knee.first_degrading?.signals[0] ?? knee.knee?.source;
  const n = knee.levels.length;
  const note = knee.no_capacity !== null
    ? "no knee: no capacity can be derived from this run"
    : `no knee found in ${n} load level${n === 1 ? "" : "s"}${
      knee.excluded.length ? ` (${knee.excluded.length} excluded)` : ""
    }`;
  return {
    ...curve,
    knee_rps: knee.knee?.offered_rps ?? null,
    ...(signal ? { knee_signal: signal } : {}),
    ...(knee.knee ? {} : { knee_note: note }),
    limits,
    headroom: limit.headroom,
  };
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
  /** One-sided confidence of the per-class percentiles' supported rule. @default {0.99} */
  supportConfidence?: number;
}

/** One route's knee, limit and ledger. */
export interface RouteCost {
  run_id: string;
  route: string;
  knee: KneeResult;
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
 * Routes compared as `deno task compare` does: {@linkcode compare}
 * with each run's knee, production limit and cost per accepted task (whole
 * ledger / accepted tasks) as extra columns, the knee reports, load curves
 * and ledgers kept for their own tables and figures.
 */
export function compareRouteCosts(runs: LoadedRun[], policy: SloPolicy, options: RouteCostOptions): RouteCostResult {
  policy = policyForRuns(policy, [...runs, ...(options.singleClassRuns ?? [])], "compareRouteCosts() policy");
  const overheads = options.overheads ?? null;
  const per = new Map<string, RouteCost>();
  const comparison = compare(runs, policy, {
    ...(options.singleClassRuns?.length ? { singleClassRuns: options.singleClassRuns } : {}),
    ...(options.supportConfidence === undefined ? {} : { supportConfidence: options.supportConfidence }),
    extras: (run) => {
      const k = knee([run], policy);
      const tested = Math.max(...k.levels.map((l) => l.pooled.offered_rps));
      const limit = limitFromKnee(k, options.headroom, { highestTestedRps: tested });
      const l = ledger(run, policy, options.prices, { overheads });
      const curve = kneeCurve(run, policy, k, limit);
      per.set(run.manifest.run_id, { run_id: run.manifest.run_id, route: "", knee: k, limit, curve, ledger: l });
      return {
        knee_rps: k.knee?.offered_rps ?? null,
        knee_signal: k.first_degrading?.signals[0] ?? (k.knee ? k.knee.source : "none in tested range"),
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
