/**
 * One route at a planned volume: its self-hosted parts' replicas and idle time, its hosted parts' quota, its monthly
 * cost, and whether any of it is an extrapolation, at any peak demand (the monthly volume scaled with the peak).
 *
 * @module
 */
import { sig } from "../../lib/number_format.ts";
import { HOURS_PER_MONTH, type PlannedDemand, SECONDS_PER_MONTH } from "./volume_demand.ts";
import type { HostedMeasure, VolumeMeasurement } from "./volume_measure.ts";

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

/** A route's monthly cost at any peak demand, the volume scaled with it (the profile's shape kept). */
export interface Model {
  m: VolumeMeasurement;
  selfParts: { part: VolumeMeasurement["parts"][number]; share: number; c: number; from: string; red: number }[];
  at: (peak: number) => RouteAtVolume;
}

const label = (v: VolumeMeasurement["variable"][number]) =>
  `${v.item}${v.failed_charged ? " (failed calls charged)" : ""}${v.route === null ? "" : ` ${v.route}`}`;
/** ceil that ignores the last bits of a float product (3 × 2.7 / 2.7 must give 3, not 4). */
const ceil = (x: number) => Math.max(0, Math.ceil(x - 1e-9));

/**
 * The cost model of measured route `m` under demand `d`: each self-hosted part's limit per replica (from the route's
 * own single-route run among `all` when `m` is a hybrid and one was compared), and `at(peak)`, the route at that peak
 * with the monthly volume scaled in proportion (`costAtVolume` calls it at the planned peak and along the curve).
 */
export function routeModel(m: VolumeMeasurement, all: VolumeMeasurement[], d: PlannedDemand): Model {
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
