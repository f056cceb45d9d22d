/**
 * Rows of the quality table (schema/quality.ts `QualityRow`) built by hand, for the tests of what reads them: one
 * verdict on one answer, every field but the request, the source and the verdict at a fixed default.
 *
 * @module
 */
import type { QualityRow } from "../schema/quality.ts";

/**
 * One verdict: `source` (a rater or a judge) passed or failed `request_id` under rubric `r` of run `run`; no scores,
 * rationale, timing or token counts.
 *
 * @example A rater's pass
 * ```ts
 * import { exampleVerdict } from "./quality_rows.ts";
 * import assert from "node:assert/strict";
 * const v = exampleVerdict("q1", "human:ana", true);
 * assert.deepEqual([v.request_id, v.source, v.pass, v.rubric_id], ["q1", "human:ana", true, "r"]);
 * ```
 */
export function exampleVerdict(request_id: string, source: string, pass: boolean): QualityRow {
  return {
    run_id: "run",
    request_id,
    source,
    rubric_id: "r",
    rubric_sha256: "0".repeat(64),
    scores: "{}",
    pass,
    rationale: null,
    time_spent_ms: null,
    judged_epoch_ms: 0,
    input_tokens: null,
    output_tokens: null,
    calls: null,
  };
}
