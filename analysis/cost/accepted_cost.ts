import type { AcceptedEstimate } from "../goodput/accepted_estimate.ts";

/**
 * A cost per accepted task whose accepted count may be an estimate (a class of a `human` or `calibrated-judge`
 * quality source is in it): the point and the interval that the accepted count's interval gives. Prices are taken as
 * exact, so the interval says nothing about them.
 */
export interface AcceptedCost {
  /** The row's total cost (every ledger line). */
  total: number;
  /** Accepted tasks: a count, or the point estimate. */
  accepted: number;
  /** The accepted count's interval; both null when the count is exact (inline and judge sources only). */
  accepted_low: number | null;
  accepted_high: number | null;
  /** Two-sided confidence level of the interval; null when exact. */
  level: number | null;
  /** total / accepted; null when nothing was accepted. */
  cost_per_accepted_task: number | null;
  /** total / accepted_high; null when exact, or when even accepted_high is 0 (no finite cost). */
  cost_per_accepted_task_low: number | null;
  /** total / accepted_low; null when exact, or when accepted_low is 0 (no upper bound: `unbounded_above`). */
  cost_per_accepted_task_high: number | null;
  /** True when the interval has no upper bound (accepted_low 0 and a positive total). */
  unbounded_above: boolean;
}

/**
 * Cost per accepted task of a row from its total and its accepted count, with the interval
 * [total / accepted_high, total / accepted_low] when the count is an estimate (`estimate` of a goodput row,
 * analysis/goodput/accepted_estimate.ts). An accepted_low of 0 leaves the interval without an upper bound. Pure.
 *
 * @example 0.125 USD over ≈15 accepted in [10, 20]; an exact count has no interval
 * ```ts
 * import assert from "node:assert/strict";
 * import { acceptedCost } from "./accepted_cost.ts";
 * const e = { accepted_low: 10, accepted_high: 20, standard_error: 2.5, level: 0.95, acceptance_rate_low: null,
 *   acceptance_rate_high: null, accepted_goodput_low: null, accepted_goodput_high: null, classes: ["s: stratified"] };
 * const c = acceptedCost(0.125, 15, e);
 * // 0.125 / 15; 0.125 / 20 = 0.00625; 0.125 / 10 = 0.0125.
 * assert.deepEqual([c.cost_per_accepted_task, c.cost_per_accepted_task_low, c.cost_per_accepted_task_high],
 *   [0.125 / 15, 0.00625, 0.0125]);
 * assert.equal(acceptedCost(0.125, 5, { ...e, accepted_low: 0 }).unbounded_above, true);
 * assert.deepEqual([acceptedCost(0.12, 16, null).cost_per_accepted_task, acceptedCost(0.12, 16, null).level],
 *   [0.0075, null]);
 * ```
 */
export function acceptedCost(total: number, accepted: number, estimate: AcceptedEstimate | null): AcceptedCost {
  const per = (n: number) => (n > 0 ? total / n : null);
  if (!estimate) {
    return {
      total,
      accepted,
      accepted_low: null,
      accepted_high: null,
      level: null,
      cost_per_accepted_task: per(accepted),
      cost_per_accepted_task_low: null,
      cost_per_accepted_task_high: null,
      unbounded_above: false,
    };
  }
  const { accepted_low: low, accepted_high: high } = estimate;
  return {
    total,
    accepted,
    accepted_low: low,
    accepted_high: high,
    level: estimate.level,
    cost_per_accepted_task: per(accepted),
    cost_per_accepted_task_low: per(high),
    cost_per_accepted_task_high: per(low),
    unbounded_above: low <= 0 && total > 0,
  };
}
