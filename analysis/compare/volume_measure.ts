/**
 * What a volume costing takes from one measured run: its acceptance, the costs per offered request that scale with
 * volume (from its ledger), the costs per hour that do not, the split of its attempts between routes, each hosted
 * route's tokens and stated quota, and each self-hosted route's measured production limit per replica. Read from the
 * results `compareRouteCosts` already computed (knee, limit, ledger), never recomputed another way.
 *
 * @module
 */
import pl from "nodejs-polars";
import { InputError } from "../../schema/errors.ts";
import type { PriceSheet, SelfHostedPrice } from "../../schema/prices.ts";
import type { SloPolicy } from "../../schema/slo.ts";
import { classify } from "../goodput/classify.ts";
import { policyForRun, runWindow } from "../goodput/policy.ts";
import { routePrice } from "../cost/price_sheet.ts";
import type { LedgerItem } from "../cost/price_lines.ts";
import { isRunnerRun } from "../run/imported_run.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import type { RouteCost } from "./route_costs.ts";

/** A ledger cost that scales with the requests offered. */
export interface VariableCost {
  item: LedgerItem;
  /** The route whose price it is (null: an overhead every route pays). */
  route: string | null;
  /** Attempts refused, failed or cancelled that the sheet charges (the ledger's "(…, charged)" lines). */
  failed_charged: boolean;
  /** Its amount in the ledger's window / the window's offered requests. */
  per_offered: number;
}

/** A self-hosted route of a run: its price and what the run measured of it. */
export interface SelfHostedMeasure {
  price: Pick<
    SelfHostedPrice,
    "gpu_type" | "gpu_hour" | "gpus_per_replica" | "redundancy_replicas" | "operations_per_hour"
  >;
  /** Replicas serving while the limit was measured (mean of the timeline's `replicas`, or `fixed_replicas`). */
  measured_replicas: number;
  /** Where `measured_replicas` comes from, in words. */
  replicas_from: string;
}

/** A hosted route of a run: its stated quota, when the answers' heads stated one (contract 1.7). */
export interface HostedMeasure {
  /** The largest `rl_limit_requests` / `rl_limit_tokens` any attempt on the route stated; null: none stated. */
  stated_requests: number | null;
  stated_tokens: number | null;
  /** Attempts on the route whose head stated a limit. */
  attempts_stating: number;
  /** The stated limits were not the same on every attempt (the largest is kept). */
  varied: boolean;
}

/** One route the run's attempts went to. */
export interface RoutePart {
  route: string;
  kind: "self_hosted" | "hosted";
  /** Attempts on the route in the ledger's window, and their share of all the window's attempts. */
  attempts: number;
  attempt_share: number;
  /** The route file's weight share (split_by_percent), null for other policies. */
  stated_share: number | null;
  /** Attempts on the route / offered requests. */
  attempts_per_offered: number;
  /** The same without attempts refused with HTTP 429 (a quota large enough refuses none). */
  counted_attempts_per_offered: number;
  /** Input + output tokens of those counted attempts / offered requests. */
  tokens_per_offered: number;
  self_hosted: SelfHostedMeasure | null;
  hosted: HostedMeasure | null;
}

/** What the volume costing takes from one run (plain JSON). */
export interface VolumeMeasurement {
  run_id: string;
  route: string;
  kind: "self_hosted" | "hosted" | "hybrid";
  /** run.json `routing.policy.kind` (null: no routes file). */
  policy_kind: string | null;
  currency: string;
  /** The ledger's window, in words, and its counts. */
  window: string;
  offered: number;
  accepted: number;
  /** accepted / offered in the window: the measured acceptance every volume is divided by. */
  acceptance: number;
  /** The highest offered rate measured (the knee's levels, pooled), with its level's planned rate. */
  highest_offered_rps: number;
  highest_level_rps: number;
  /** The knee (offered req/s), the headroom and the limit = knee × (1 − headroom); null when none. */
  knee_rps: number | null;
  headroom: number | null;
  limit_rps: number | null;
  /** accepted / offered at the knee's level (at the highest level without a knee). */
  knee_acceptance: number;
  /** limit × knee_acceptance, or without a knee the highest level's accepted goodput (a lower bound). */
  limit_accepted_rps: number;
  limit_basis: "knee" | "no knee: highest level (a lower bound)";
  variable: VariableCost[];
  /** Per-hour overheads that do not scale with volume (the overheads sheet's allocated operations). */
  hourly: { detail: string; per_hour: number }[];
  parts: RoutePart[];
}

const FAILED_CHARGED = /\((rejected|failed|cancelled), charged\)/;

/**
 * The measurement of one compared run: `cost` is its `compareRouteCosts` entry (knee, limit, ledger), `policy` the
 * comparison's SLO policy and `prices` its price sheet. Throws an {@linkcode InputError} when a self-hosted route's
 * replica count cannot be read (no timeline rows at the measured level and no `fixed_replicas`).
 */
export function volumeMeasurement(
  run: LoadedRun,
  cost: Pick<RouteCost, "route" | "knee" | "limit" | "ledger">,
  policy: SloPolicy,
  prices: PriceSheet,
): VolumeMeasurement {
  policy = policyForRun(policy, run, "volumeMeasurement() policy");
  const { ledger: l, knee: k, limit } = cost;
  const offered = l.overall.offered;
  if (!offered || !l.overall.accepted) {
    throw new InputError(`${run.dir}: no accepted task in the window: no volume can be costed from this run`);
  }
  const variable = new Map<string, VariableCost>();
  const hourly: VolumeMeasurement["hourly"] = [];
  for (const line of l.lines) {
    if (line.unit === "GPU-hour" || (line.unit === "hour" && line.route !== null)) continue; // re-sized at volume
    if (line.unit === "hour") {
      hourly.push({ detail: line.detail, per_hour: line.unit_price });
      continue;
    }
    const failed = FAILED_CHARGED.test(line.detail);
    const key = JSON.stringify([line.item, line.route, failed]);
    const v = variable.get(key) ?? { item: line.item, route: line.route, failed_charged: failed, per_offered: 0 };
    v.per_offered += line.amount / offered;
    variable.set(key, v);
  }

  const levels = k.levels;
  if (!levels.length) throw new InputError(`${run.dir}: no load level (steady or burst stage) to measure a rate at`);
  const top = levels.reduce((a, b) => (b.pooled.offered_rps > a.pooled.offered_rps ? b : a));
  const kneeLevel = k.knee
    ? levels.reduce((a, b) =>
      Math.abs(b.pooled.offered_rps - k.knee!.offered_rps) < Math.abs(a.pooled.offered_rps - k.knee!.offered_rps)
        ? b
        : a
    )
    : top;
  if (k.knee && limit.limit_rps === null) {
    throw new InputError(
      `--headroom: cost at a planned volume needs a production limit for ${run.manifest.run_id} (knee ` +
        `${k.knee.offered_rps} req/s): pass --headroom H (the margin kept below the knee)`,
    );
  }
  const knee_acceptance = kneeLevel.pooled.offered ? kneeLevel.pooled.accepted / kneeLevel.pooled.offered : 0;
  const limit_accepted_rps = limit.limit_rps !== null ? limit.limit_rps * knee_acceptance : top.pooled.accepted_goodput;

  const window = runWindow(run, policy.window);
  const keep = classify(run, policy, window).select("request_id");
  const att = run.attempts.join(keep, { on: "request_id", how: "inner" });
  const m = run.manifest;
  const routing = isRunnerRun(m) ? m.routing ?? null : null;
  const weights = routing?.policy.kind === "split_by_percent" ? routing.policy.weights : null;
  const weightSum = weights ? Object.values(weights).reduce((s, w) => s + w, 0) : 0;
  const total = att.height;
  const names = [...new Set(att.getColumn("route").toArray() as string[])].sort();
  const parts = names.map((route): RoutePart => {
    const mine = att.filter(pl.col("route").eq(pl.lit(route)));
    const counted = mine.filter(pl.col("http_status").isNull().or(pl.col("http_status").neq(429)));
    const tokens = counted.height
      ? Number(
        counted.select(pl.col("input_tokens").add(pl.col("output_tokens")).sum().alias("t")).getColumn("t").get(0),
      )
      : 0;
    const price = routePrice(prices, route);
    return {
      route,
      kind: price.kind,
      attempts: mine.height,
      attempt_share: total ? mine.height / total : 0,
      stated_share: weights ? (weights[route] ?? 0) / weightSum : null,
      attempts_per_offered: mine.height / offered,
      counted_attempts_per_offered: counted.height / offered,
      tokens_per_offered: tokens / offered,
      self_hosted: price.kind === "self_hosted" ? selfHostedMeasure(run, cost, route, price, kneeLevel) : null,
      hosted: price.kind === "hosted" ? statedQuota(mine) : null,
    };
  });
  const kinds = new Set(parts.map((p) => p.kind));
  const multi = routing !== null && routing.policy.kind !== "single";
  return {
    run_id: m.run_id,
    route: cost.route,
    kind: multi || kinds.size > 1 ? "hybrid" : kinds.has("self_hosted") ? "self_hosted" : "hosted",
    policy_kind: routing?.policy.kind ?? null,
    currency: l.currency,
    window: l.disclosure.window.description,
    offered,
    accepted: l.overall.accepted,
    acceptance: l.overall.accepted / offered,
    highest_offered_rps: top.pooled.offered_rps,
    highest_level_rps: top.planned_rps,
    knee_rps: k.knee?.offered_rps ?? null,
    headroom: limit.headroom,
    limit_rps: limit.limit_rps,
    knee_acceptance,
    limit_accepted_rps,
    limit_basis: k.knee ? "knee" : "no knee: highest level (a lower bound)",
    variable: [...variable.values()],
    hourly,
    parts,
  };
}

/** The stated request and token limits of a route's attempts (their largest), when any head stated one. */
function statedQuota(attempts: pl.DataFrame): HostedMeasure {
  const col = (c: string) => attempts.columns.includes(c) ? (attempts.getColumn(c).toArray() as (number | null)[]) : [];
  const req = col("rl_limit_requests").filter((v): v is number => v !== null);
  const tok = col("rl_limit_tokens").filter((v): v is number => v !== null);
  const stating = attempts.columns.includes("rl_limit_requests")
    ? attempts.filter(pl.col("rl_limit_requests").isNotNull().or(pl.col("rl_limit_tokens").isNotNull())).height
    : 0;
  const max = (xs: number[]) => (xs.length ? Math.max(...xs.map(Number)) : null);
  return {
    stated_requests: max(req),
    stated_tokens: max(tok),
    attempts_stating: stating,
    varied: new Set(req.map(Number)).size > 1 || new Set(tok.map(Number)).size > 1,
  };
}

/**
 * Replicas serving while the limit was measured: the mean of the server timeline's `replicas` (rows labelled with the
 * route's target) over the stages of the knee's level, as the ledger's `gpu_time` says the timeline priced it; the
 * sheet's `fixed_replicas` when the ledger priced the route by them.
 */
function selfHostedMeasure(
  run: LoadedRun,
  cost: Pick<RouteCost, "ledger">,
  route: string,
  price: SelfHostedPrice,
  level: RouteCost["knee"]["levels"][number],
): SelfHostedMeasure {
  const summary = cost.ledger.gpu_time.find((g) => g.route.split("+").includes(route));
  const kept = {
    gpu_type: price.gpu_type,
    gpu_hour: price.gpu_hour,
    gpus_per_replica: price.gpus_per_replica,
    redundancy_replicas: price.redundancy_replicas,
    operations_per_hour: price.operations_per_hour,
  };
  const stages = level.pooled.parts.filter((p) => p.run_id === run.manifest.run_id);
  const where = stages.map((p) => p.stage).join("+");
  if (summary?.basis === "fixed_replicas" && price.fixed_replicas !== null) {
    return {
      price: kept,
      measured_replicas: price.fixed_replicas,
      replicas_from: `price sheet fixed_replicas (${price.fixed_replicas}): the run has no replica timeline`,
    };
  }
  const label = summary?.route ?? route;
  const server = run.server;
  if (server && server.height && stages.length) {
    let rows = server;
    if (server.columns.includes("route")) rows = rows.filter(pl.col("route").eq(pl.lit(label)));
    const inStage = stages.map((p) => pl.col("t_ms").gtEq(p.start_ms).and(pl.col("t_ms").lt(p.end_ms)))
      .reduce((a, b) => a.or(b));
    rows = rows.filter(inStage);
    if (rows.height) {
      const mean = Number(rows.getColumn("replicas").mean());
      if (mean > 0) {
        return {
          price: kept,
          measured_replicas: mean,
          replicas_from: `server timeline (${label}): mean replicas over ${rows.height} rows of stage ${where}`,
        };
      }
    }
  }
  if (price.fixed_replicas !== null) {
    return {
      price: kept,
      measured_replicas: price.fixed_replicas,
      replicas_from:
        `price sheet fixed_replicas (${price.fixed_replicas}): no replica count in the timeline at ${where}`,
    };
  }
  throw new InputError(
    `${run.dir}: route ${route} is self-hosted but no replica count was recorded at stage ${where} (server timeline ` +
      `replicas) and the price sheet has no fixed_replicas: the limit per replica cannot be derived`,
  );
}
