/**
 * What the comparison page (analysis/report/compare_page.ts) is built from: what the compare command computed.
 *
 * @module
 */
import type { CompareResult } from "../compare/compare.ts";
import type { DecisionResult } from "../compare/decision_result.ts";
import type { RouteCostResult } from "../compare/route_costs.ts";
import type { SensitivityResult } from "../compare/sensitivity.ts";
import type { VolumeResult } from "../compare/volume.ts";
import type { Caveat } from "./caveats.ts";

/** The price sheets a comparison was priced with, as the compare CLI's `pricing` names them. */
export interface ComparePricing {
  price_sheet: { name: string; as_of: string; source: string };
  /** The overheads sheet's name; null when none was given. */
  overheads: string | null;
}

/** The input of `buildComparePage`: what the compare command computed. */
export interface ComparePageInput {
  /** The routes side by side (`compare`, or `compareRouteCosts(...).comparison`). */
  compare: CompareResult;
  /** Knee reports, limits and load curves per route (`compareRouteCosts`); null: the knee figures are absent. */
  routeCosts: RouteCostResult | null;
  /** The ranked verdict (`decision`); null without prices. */
  decision: DecisionResult | null;
  /** The cost at the planned volume (`volumeCosts`); null when no demand was given. */
  volume: VolumeResult | null;
  /** What would change the answer (`sensitivity`); null when not computed. */
  sensitivity: SensitivityResult | null;
  /** The runs' verdict caveats, INVALID first, each line named by run (the compare CLI's `linesCaveats`). */
  caveats: Caveat[];
  /** The SLO policy file by name and sha256 (`policySourceLabel`), never a local path. */
  policy_source: string;
  /** The price sheets; null when none was given. */
  pricing: ComparePricing | null;
}
