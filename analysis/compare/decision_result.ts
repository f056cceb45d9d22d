/**
 * The result types of the ranked verdict (analysis/compare/decision.ts).
 *
 * @module
 */
import type { OverheadSheet, PriceSheet } from "../../schema/prices.ts";
import type { SloPolicy } from "../../schema/slo.ts";
import type { KneeResult } from "../knee/knee.ts";
import type { ProductionLimit } from "../knee/limit.ts";
import type { ResampleOptions } from "./decision_flags.ts";
import type { LevelAtLimit } from "./decision_level.ts";
import type { BootInterval, Stratum } from "./paired_resample.ts";

/** Options of `decision()`. */
export interface DecisionOptions extends ResampleOptions {
  prices: PriceSheet;
  /** @default null */
  overheads?: OverheadSheet | null;
  /** The user's headroom in [0, 1): production limit = knee × (1 − headroom). @default none: at the knee */
  headroom?: number;
  /** How the SLO policy is named in the disclosure (its file). @default "the SLO policy given" */
  sloLabel?: string;
  /** Knee reports and limits already computed (`compareRouteCosts`), by run_id; the rest are computed. */
  knees?: readonly { run_id: string; knee: KneeResult; limit: ProductionLimit }[];
}

/** A point estimate with its bootstrap interval. */
export interface Estimate extends BootInterval {
  point: number | null;
}

/** One route's figures. */
export interface RouteDecision {
  run_id: string;
  route: string;
  /** Requests in the cost window (the ledger's: the policy's window) and those accepted. */
  offered: number;
  accepted: number;
  /** The ledger's total, split as resampled: fixed over the window, variable with the requests. */
  cost: { total: number; fixed: number; variable: number };
  /** The ledger's cost per accepted task, with its interval. */
  cost_per_accepted: Estimate;
  cost_rank: number | null;
  /** Accepted goodput (tasks/s) of the knee level at or below the production limit, with its interval. */
  goodput_at_limit: Estimate & { at: LevelAtLimit };
  goodput_rank: number | null;
  /** The ledger's warnings (npx deno task ledger RUN shows them). */
  ledger_warnings: number;
}

/** A route's figure minus the best route's (cost) or the best's minus the route's (goodput): ≥ 0 at the point. */
export interface RankDifference extends Estimate {
  run_id: string;
  route: string;
  versus: string;
  /** The interval excludes 0. */
  distinguishable: boolean;
  /** Requests the figure is measured on now: the best route's window (cost) or its limit level (goodput). */
  n: number;
  /** n × (z · sd / point)², the requests that would separate them at the observed spread; null when point = 0. */
  n_needed: number | null;
  /** ⌈n_needed⌉ − n, at least 0. */
  more_requests: number | null;
}

/** The verdict: one route cheapest beyond its intervals, or the routes not distinguishable from it. */
export interface DecisionVerdict {
  kind: "cheapest" | "not_distinguishable" | "no_cost";
  /** The cheapest route's run_id (point estimate), null when no route accepted anything. */
  best: string | null;
  /** Routes whose difference to the best contains 0 (run_ids). */
  tied: string[];
  /** The most requests any tied route needs, more than now. */
  more_requests: number | null;
  text: string;
}

/** The result of `decision()`. */
export interface DecisionResult {
  currency: string;
  slo: { label: string; denominator: SloPolicy["denominator"]; window: string };
  method: {
    paired: boolean;
    /** plan.schedule_sha256 of the runs when paired. */
    schedule_sha256: string | null;
    unit: "blocks" | "requests";
    block_seconds: number | null;
    resamples: number;
    seed: number;
    level: number;
    /** z = Φ⁻¹((1 + level) / 2), of the n-needed formula. */
    z: number;
    strata: Stratum[];
    /** The rules in words. */
    rules: string[];
  };
  /** In input order. */
  routes: RouteDecision[];
  cost_differences: RankDifference[];
  goodput_differences: RankDifference[];
  verdict: DecisionVerdict;
  /** Whether the cheapest route is the one with the most accepted goodput at its limit, in words. */
  headroom: string;
  caveats: string[];
}
