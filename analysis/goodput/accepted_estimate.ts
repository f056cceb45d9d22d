import { fixed } from "../../lib/number_format.ts";

/**
 * The interval of a goodput row whose accepted count is an estimate: a class whose quality is known on a sample
 * (`human`) or corrected for a judge's measured error (`calibrated-judge`) is in it (analysis/quality/). Absent on a
 * row of counts.
 */
export interface AcceptedEstimate {
  /** The accepted count's interval (the row's `accepted` is the point estimate). */
  accepted_low: number;
  accepted_high: number;
  /** The point estimate's standard error, in requests. */
  standard_error: number;
  /** Two-sided confidence level. */
  level: number;
  acceptance_rate_low: number | null;
  acceptance_rate_high: number | null;
  accepted_goodput_low: number | null;
  accepted_goodput_high: number | null;
  /** The estimated classes in the row, with their method (`long_summary: stratified`). */
  classes: string[];
}

/**
 * A row's counts with its accepted count replaced by an estimate and its interval: the rates follow (acceptance over
 * offered, goodput over the row's seconds, the miss rate over the denominator's count), `failures.gate_quality_ok`
 * takes what the estimate moves (`quality_failed`, itself an estimate). Pure.
 *
 * @example 10 offered, 4.5 estimated accepted in [3, 6] over 5 s
 * ```ts
 * import assert from "node:assert/strict";
 * import { estimatedRow } from "./accepted_estimate.ts";
 * const row = { offered: 10, sent: 10, completed: 8, accepted: 6, measurement_seconds: 5, accepted_goodput: 1.2,
 *   acceptance_rate: 0.6, slo_miss_rate: 0.4, failures: { gate_quality_ok: 0 } };
 * const r = estimatedRow(row, "offered", { point: 4.5, low: 3, high: 6, standard_error: 0.75, level: 0.95,
 *   classes: ["qa: stratified"], quality_failed: 1.5 });
 * assert.deepEqual([r.accepted, r.acceptance_rate, r.accepted_goodput, r.slo_miss_rate], [4.5, 0.45, 0.9, 0.55]);
 * assert.deepEqual([r.estimate.acceptance_rate_low, r.estimate.accepted_goodput_high], [0.3, 1.2]);
 * assert.equal(r.failures.gate_quality_ok, 1.5);
 * ```
 */
export function estimatedRow<
  R extends {
    offered: number;
    sent: number;
    completed: number;
    accepted: number;
    measurement_seconds: number | null;
    failures: Record<string, number>;
  },
>(
  row: R,
  denominator: "offered" | "sent" | "completed",
  e: {
    point: number;
    low: number;
    high: number;
    standard_error: number;
    level: number;
    classes: string[];
    quality_failed: number;
  },
): R & {
  accepted_goodput: number | null;
  acceptance_rate: number | null;
  slo_miss_rate: number | null;
  estimate: AcceptedEstimate;
} {
  const ratio = (a: number, b: number | null) => (b ? a / b : null);
  const d = row[denominator];
  return {
    ...row,
    accepted: e.point,
    accepted_goodput: ratio(e.point, row.measurement_seconds),
    acceptance_rate: ratio(e.point, row.offered),
    slo_miss_rate: d ? (d - e.point) / d : null,
    failures: { ...row.failures, gate_quality_ok: (row.failures.gate_quality_ok ?? 0) + e.quality_failed },
    estimate: {
      accepted_low: e.low,
      accepted_high: e.high,
      standard_error: e.standard_error,
      level: e.level,
      acceptance_rate_low: ratio(e.low, row.offered),
      acceptance_rate_high: ratio(e.high, row.offered),
      accepted_goodput_low: ratio(e.low, row.measurement_seconds),
      accepted_goodput_high: ratio(e.high, row.measurement_seconds),
      classes: e.classes,
    },
  };
}

/** A count that may be an estimate, for a table cell: an integer as is, an estimate `≈4.5 [3.0, 6.0]`. */
export function countText(accepted: number, estimate: AcceptedEstimate | undefined | null): string {
  if (!estimate) return String(accepted);
  return `≈${fixed(accepted, 1)} [${fixed(estimate.accepted_low, 1)}, ${fixed(estimate.accepted_high, 1)}]`;
}
