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
import { sig } from "../../lib/number_format.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import type { RouteCostResult } from "./route_costs.ts";
import { HOURS_PER_MONTH, type PlannedDemand, SECONDS_PER_MONTH } from "./volume_demand.ts";
import { type HostedMeasure, type VolumeMeasurement, volumeMeasurement } from "./volume_measure.ts";
import { type Crossing, crossings, demandGrid } from "./volume_curve.ts";

export type { Crossing };

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

/** One self-hosted part of a route at the planned volume. */
export interface SelfHostedAtVolume {
  route: string;
  /** Share of the demand it carries (1 for a self-hosted route; the attempt share in a hybrid). */
  share: number;
  peak_accepted_rps: number;
  per_replica_accepted_rps: number;
  per_replica_from: string;
  measured_replicas: number;
  replicas_from: string;
  replicas_for_demand: number;
  redundancy: number;
  redundancy_from: "--redundancy" | "price sheet redundancy_replicas";
  replicas: number;
  gpus: number;
  gpu_type: string;
  gpu_monthly: number;
  operations_monthly: number;
  idle: {
    provisioned_replica_hours_per_day: number;
    used_replica_hours_per_day: number;
    /** 1 − used / provisioned. */
    idle_share: number;
    /** Peak demand / (replicas × limit per replica). */
    peak_utilisation: number;
  };
  extrapolated: boolean;
}

/** One hosted part of a route at the planned peak. */
export interface HostedAtVolume {
  route: string;
  share: number;
  requests_per_min: number;
  tokens_per_min: number;
  stated: HostedMeasure;
  /** The stated quota covers the need (null: not stated). */
  covers_requests: boolean | null;
  covers_tokens: boolean | null;
}

/** One route at the planned volume. */
export interface RouteAtVolume {
  run_id: string;
  route: string;
  kind: VolumeMeasurement["kind"];
  acceptance: number;
  offered_peak_rps: number;
  offered_monthly: number;
  split: { route: string; kind: "self_hosted" | "hosted"; attempt_share: number; stated_share: number | null }[];
  self_hosted: SelfHostedAtVolume[];
  hosted: HostedAtVolume[];
  monthly: {
    /** Each cost that scales with requests: per offered request and a month of it. */
    variable: { label: string; per_offered: number; amount: number }[];
    variable_total: number;
    hourly: number;
    gpu: number;
    operations: number;
    total: number;
  };
  cost_per_accepted_task: number;
  extrapolated: boolean;
  /** Why it is an extrapolation and from what, one line each. */
  extrapolation: string[];
  /** The peak demand up to which nothing of this route is extrapolated (accepted tasks/s). */
  reach_accepted_rps: number;
  caveats: string[];
}

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

/** A route's monthly cost at any peak demand, the volume scaled with it (the profile's shape kept). */
interface Model {
  m: VolumeMeasurement;
  selfParts: { part: VolumeMeasurement["parts"][number]; share: number; c: number; from: string; red: number }[];
  at: (peak: number) => RouteAtVolume;
}

const label = (v: VolumeMeasurement["variable"][number]) =>
  `${v.item}${v.failed_charged ? " (failed calls charged)" : ""}${v.route === null ? "" : ` ${v.route}`}`;
/** ceil that ignores the last bits of a float product (3 × 2.7 / 2.7 must give 3, not 4). */
const ceil = (x: number) => Math.max(0, Math.ceil(x - 1e-9));

function model(m: VolumeMeasurement, all: VolumeMeasurement[], d: PlannedDemand): Model {
  const selfParts = m.parts.filter((p) => p.self_hosted).map((part) => {
    const s = part.self_hosted!;
    const share = m.kind === "hybrid" ? part.attempt_share : 1;
    const alone = m.kind === "hybrid"
      ? all.find((o) => o.kind === "self_hosted" && o.parts.length === 1 && o.parts[0]!.route === part.route)
      : undefined;
    const src = alone ?? m;
    const srcReplicas = alone ? alone.parts[0]!.self_hosted!.measured_replicas : s.measured_replicas;
    const c = alone ? alone.limit_accepted_rps / srcReplicas : m.limit_accepted_rps * share / srcReplicas;
    const whose = alone
      ? `run ${src.run_id}`
      : m.kind === "hybrid"
      ? `this run (× its share ${sig(share, 4)})`
      : "this run";
    const from = `${whose}: ${sig(src.limit_accepted_rps, 6)} accepted/s at its ${
      src.limit_basis === "knee" ? `limit ${sig(src.limit_rps, 6)} req/s` : "highest level"
    } / ${sig(srcReplicas, 4)} replicas`;
    return { part, share, c, from, red: d.redundancy ?? s.price.redundancy_replicas };
  });
  const at = (peak: number): RouteAtVolume => {
    const monthlyAccepted = d.monthly_accepted * peak / d.peak_accepted_rps;
    const offeredMonthly = monthlyAccepted / m.acceptance;
    const offeredPeak = peak / m.acceptance;
    const variable = m.variable.map((v) => ({
      label: label(v),
      per_offered: v.per_offered,
      amount: v.per_offered * offeredMonthly,
    }));
    const hourly = m.hourly.reduce((s, h) => s + h.per_hour, 0) * HOURS_PER_MONTH;
    const extrapolation: string[] = [];
    const self_hosted = selfParts.map(({ part, share, c, from, red }): SelfHostedAtVolume => {
      const s = part.self_hosted!;
      const partPeak = peak * share;
      const need = ceil(partPeak / c);
      const replicas = need + red;
      const hours = d.profile
        ? d.profile.map((f) => peak * f * share)
        : Array.from({ length: 24 }, () => monthlyAccepted / SECONDS_PER_MONTH * share);
      const used = hours.reduce((t, x) => t + x / c, 0);
      const provisioned = replicas * 24;
      if (need > s.measured_replicas + 1e-9) {
        extrapolation.push(
          `${m.kind === "hybrid" ? `its ${part.route} part: ` : ""}${need} replicas needed at ${
            sig(c, 4)
          } accepted/s each, measured on ${sig(s.measured_replicas, 4)}: linear scaling per replica assumed`,
        );
      }
      return {
        route: part.route,
        share,
        peak_accepted_rps: partPeak,
        per_replica_accepted_rps: c,
        per_replica_from: from,
        measured_replicas: s.measured_replicas,
        replicas_from: s.replicas_from,
        replicas_for_demand: need,
        redundancy: red,
        redundancy_from: d.redundancy === null ? "price sheet redundancy_replicas" : "--redundancy",
        replicas,
        gpus: replicas * s.price.gpus_per_replica,
        gpu_type: s.price.gpu_type,
        gpu_monthly: replicas * s.price.gpus_per_replica * s.price.gpu_hour * HOURS_PER_MONTH,
        operations_monthly: s.price.operations_per_hour * HOURS_PER_MONTH,
        idle: {
          provisioned_replica_hours_per_day: provisioned,
          used_replica_hours_per_day: used,
          idle_share: provisioned ? 1 - used / provisioned : 0,
          peak_utilisation: replicas ? partPeak / (replicas * c) : 0,
        },
        extrapolated: need > s.measured_replicas + 1e-9,
      };
    });
    const hosted = m.parts.filter((p) => p.hosted).map((p): HostedAtVolume => {
      const rpm = offeredPeak * p.counted_attempts_per_offered * 60;
      const tpm = offeredPeak * p.tokens_per_offered * 60;
      const q = p.hosted!;
      return {
        route: p.route,
        share: p.attempt_share,
        requests_per_min: rpm,
        tokens_per_min: tpm,
        stated: q,
        covers_requests: q.stated_requests === null ? null : rpm <= q.stated_requests,
        covers_tokens: q.stated_tokens === null ? null : tpm <= q.stated_tokens,
      };
    });
    if (m.kind !== "self_hosted" && offeredPeak > m.highest_offered_rps * (1 + 1e-9)) {
      extrapolation.unshift(
        `offered peak ${sig(offeredPeak, 4)} req/s (${sig(peak, 4)} / acceptance ${sig(m.acceptance, 4)}) is above ` +
          `the highest offered rate measured, ${
            sig(m.highest_offered_rps, 4)
          } req/s (level ${m.highest_level_rps} req/s)`,
      );
    }
    const caveats: string[] = [];
    if (m.kind === "hosted" && m.limit_rps !== null && offeredPeak > m.limit_rps) {
      caveats.push(
        `${m.route}: the offered peak ${sig(offeredPeak, 4)} req/s is above the route's production limit ` +
          `${sig(m.limit_rps, 4)} req/s: the run degraded above its knee; this cost assumes the quota below is granted`,
      );
    }
    if (m.limit_basis !== "knee" && self_hosted.length) {
      caveats.push(
        `${m.route}: no knee in the tested range: the limit per replica is a lower bound, replicas an upper bound`,
      );
    }
    for (const h of hosted.filter((h) => h.stated.varied)) {
      caveats.push(`${h.route}: the stated quota varied between attempts; the largest is compared`);
    }
    const variable_total = variable.reduce((s, v) => s + v.amount, 0);
    const gpu = self_hosted.reduce((s, p) => s + p.gpu_monthly, 0);
    const operations = self_hosted.reduce((s, p) => s + p.operations_monthly, 0);
    const total = variable_total + hourly + gpu + operations;
    const reaches = [
      ...(m.kind === "self_hosted" ? [] : [m.highest_offered_rps * m.acceptance]),
      ...selfParts.map((p) => p.part.self_hosted!.measured_replicas * p.c / (p.share || 1)),
    ];
    return {
      run_id: m.run_id,
      route: m.route,
      kind: m.kind,
      acceptance: m.acceptance,
      offered_peak_rps: offeredPeak,
      offered_monthly: offeredMonthly,
      split: m.parts.map((p) => ({
        route: p.route,
        kind: p.kind,
        attempt_share: p.attempt_share,
        stated_share: p.stated_share,
      })),
      self_hosted,
      hosted,
      monthly: { variable, variable_total, hourly, gpu, operations, total },
      cost_per_accepted_task: monthlyAccepted ? total / monthlyAccepted : NaN,
      extrapolated: extrapolation.length > 0,
      extrapolation,
      reach_accepted_rps: Math.min(...reaches),
      caveats,
    };
  };
  return { m, selfParts, at };
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
  const models = measured.map((m) => model(m, measured, d));
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
