/**
 * Cost at the volume a buyer plans: for each compared route, the replicas (self-hosted) or the provider quota
 * (hosted) a planned peak needs, the idle time that implies across the day, and the monthly cost; a hybrid route
 * split between its routes as its run measured; the monthly cost against demand from 0 to twice the peak with the
 * points where routes cross; and whether each answer stands on the measured runs or is an EXTRAPOLATION.
 *
 * @module
 */
import { InputError } from "../../schema/errors.ts";
import type { PriceSheet } from "../../schema/prices.ts";
import type { SloPolicy } from "../../schema/slo.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import type { RouteCostResult } from "./route_costs.ts";
import { HOURS_PER_MONTH, type PlannedDemand } from "./volume_demand.ts";
import { type VolumeMeasurement, volumeMeasurement } from "./volume_measure.ts";
import { type Crossing, crossings, demandGrid } from "./volume_curve.ts";
import { type HostedAtVolume, type RouteAtVolume, routeModel, type SelfHostedAtVolume } from "./volume_route.ts";

export type { Crossing, HostedAtVolume, RouteAtVolume, SelfHostedAtVolume };

/** How every figure of a volume costing is computed, in words (docs/cost.md "Cost at the volume you plan"). */
export const VOLUME_RULES: readonly string[] = [
  `a month is ${HOURS_PER_MONTH} h (365 × 24 / 12); the monthly volume is stated (--monthly) or the profile's: ` +
  `peak × 3600 × Σ hourly fractions × ${HOURS_PER_MONTH} / 24`,
  "offered = accepted / acceptance, the acceptance measured over the ledger's window (accepted / offered)",
  "costs that scale with requests (tokens, retries, failed calls charged, tools, storage, observability, review): " +
  "the ledger's amount in its window / its offered requests, × the offered volume",
  "per-hour overheads (allocated operations) and a self-hosted route's operations_per_hour: × the hours of the month",
  "limit per replica (accepted tasks/s) = knee × (1 − headroom) × acceptance at the knee's level / replicas serving " +
  "at that level (mean of the server timeline's replicas, or the sheet's fixed_replicas); without a knee, the " +
  "highest level's accepted goodput / replicas (a lower bound on capacity, so replicas an upper bound)",
  "replicas = ceil(peak accepted on the route / limit per replica) + redundancy (--redundancy, else the sheet's " +
  "redundancy_replicas), kept all month (no autoscaling assumed): GPU cost = replicas × GPUs per replica × GPU-hour " +
  `price × ${HOURS_PER_MONTH} h`,
  "idle = 1 − used / provisioned replica-hours per day; used = Σ over the 24 hours of the hour's demand on the route " +
  "/ limit per replica (a flat hour at the monthly average without a profile); provisioned = replicas × 24",
  "a hybrid route's share of each route = its measured share of the window's attempts; its self-hosted part is " +
  "sized for peak × share at the limit per replica of that route's own run when one is compared (else its own)",
  "quota needed at peak = offered peak × attempts per offered request on the route (429-refused attempts left out) " +
  "× 60 requests/min, and × input + output tokens per offered request × 60 tokens/min; a stated quota " +
  "(rl_limit_requests / rl_limit_tokens, the largest stated) is read as per minute",
  "EXTRAPOLATION: a hosted or hybrid route whose offered peak is above the highest offered rate its run measured; " +
  "a self-hosted part that needs more replicas than its run had (linear scaling per replica assumed)",
];

/** The result of {@linkcode costAtVolume}. */
export interface VolumeResult {
  demand: PlannedDemand;
  currency: string;
  hours_per_month: number;
  routes: RouteAtVolume[];
  /** Monthly cost against peak demand, 0 to 2 × the planned peak (both sides of every replica step). */
  curve: { demand_rps: number[]; routes: { route: string; monthly: number[]; reach_accepted_rps: number }[] };
  crossings: Crossing[];
  rules: readonly string[];
  /** The measured inputs, for the disclosure: each run's window and n. */
  measured: { run_id: string; route: string; window: string; offered: number; accepted: number }[];
}

/**
 * Each measured route costed at the planned demand `d`, with the cost-vs-demand curve and its crossings. Throws an
 * {@linkcode InputError} naming `--demand` when the peak is above every route's measured capacity and
 * `d.extrapolate` is false, and when the runs' currencies differ.
 */
export function costAtVolume(measured: VolumeMeasurement[], d: PlannedDemand): VolumeResult {
  if (!measured.length) throw new InputError("cost at volume needs at least one measured route");
  const currencies = [...new Set(measured.map((m) => m.currency))];
  if (currencies.length > 1) throw new InputError(`the routes' ledgers are in different currencies: ${currencies}`);
  const models = measured.map((m) => routeModel(m, measured, d));
  const routes = models.map((x) => x.at(d.peak_accepted_rps));
  if (!d.extrapolate && routes.every((r) => r.extrapolated)) {
    throw new InputError(
      `--demand ${d.peak_accepted_rps}/s is above every route's measured capacity; pass --extrapolate to cost it ` +
        `anyway (marked EXTRAPOLATION)`,
      routes.map((r) => `${r.route}: ${r.extrapolation.join("; ")}`),
    );
  }
  const steps = models.flatMap((x) => x.selfParts.map((p) => (p.share > 0 ? p.c / p.share : Infinity)));
  const grid = demandGrid(2 * d.peak_accepted_rps, steps);
  const curves = models.map((x) => ({
    route: x.m.route,
    monthly: grid.map((g) => x.at(g).monthly.total),
    reach_accepted_rps: x.at(d.peak_accepted_rps).reach_accepted_rps,
  }));
  return {
    demand: d,
    currency: currencies[0]!,
    hours_per_month: HOURS_PER_MONTH,
    routes,
    curve: { demand_rps: grid, routes: curves },
    crossings: crossings(grid, models.map((x) => ({ route: x.m.route, cost: (p: number) => x.at(p).monthly.total }))),
    rules: VOLUME_RULES,
    measured: measured.map((m) => ({
      run_id: m.run_id,
      route: m.route,
      window: m.window,
      offered: m.offered,
      accepted: m.accepted,
    })),
  };
}

/**
 * The compared routes of a `compareRouteCosts` result (`runs` in the same order) at the planned demand: each run's
 * {@linkcode volumeMeasurement}, then {@linkcode costAtVolume}.
 *
 * @example
 * ```ts ignore
 * const cmp = compareRouteCosts(runs, policy, { prices, overheads, headroom: 0.2 });
 * const v = volumeCosts(runs, cmp, policy, prices, parseVolumeFlags({ demand: "8/s", monthly: "10M" }));
 * console.log(formatVolume(v).join("\n"));
 * ```
 */
export function volumeCosts(
  runs: LoadedRun[],
  compared: Pick<RouteCostResult, "routes">,
  policy: SloPolicy,
  prices: PriceSheet,
  d: PlannedDemand,
): VolumeResult {
  const measured = compared.routes.map((rc) => {
    const run = runs.find((r) => r.manifest.run_id === rc.run_id);
    if (!run) throw new InputError(`no loaded run for compared route ${rc.route} (run ${rc.run_id})`);
    return volumeMeasurement(run, rc, policy, prices);
  });
  return costAtVolume(measured, d);
}
