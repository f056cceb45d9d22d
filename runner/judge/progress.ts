/**
 * The judge's progress line on stderr, once a second: items done of the total, those that ended without a verdict,
 * calls failed, items in flight, the rate items end at, and the time left at that rate.
 *
 * @module
 */
import { fixed } from "../../lib/number_format.ts";

/** The counts a progress line shows. */
export interface JudgeProgress {
  /** Items to judge in all. */
  total: number;
  /** Items with a verdict (earlier sessions' included). */
  judged: number;
  /** Items of this session that ended without a verdict. */
  unjudged: number;
  /** Items of this session still to finish (in flight or not started). */
  left: number;
  inFlight: number;
  failedCalls: number;
  /** Items this session finished. */
  finished: number;
  /** Seconds since this session started. */
  elapsedS: number;
}

/**
 * One progress line.
 *
 * @example 10 of 40 finished in 5 s: 2 items/s, 15 s for the 30 left
 * ```ts
 * import { judgeProgressLine } from "./progress.ts";
 * import assert from "node:assert/strict";
 * const line = judgeProgressLine({
 *   total: 40, judged: 9, unjudged: 1, left: 30, inFlight: 3, failedCalls: 2, finished: 10, elapsedS: 5,
 * });
 * assert.equal(line, "judge: 10/40 done (9 judged, 1 unjudged), 2 failed calls, 3 in flight, 2.0 items/s, ETA 15 s");
 * ```
 */
export function judgeProgressLine(p: JudgeProgress): string {
  const rate = p.elapsedS > 0 ? p.finished / p.elapsedS : 0;
  const eta = rate > 0 ? `${Math.ceil(p.left / rate)} s` : "-";
  return `judge: ${p.judged + p.unjudged}/${p.total} done (${p.judged} judged, ${p.unjudged} unjudged), ` +
    `${p.failedCalls} failed call${p.failedCalls === 1 ? "" : "s"}, ${p.inFlight} in flight, ${fixed(rate, 1)} ` +
    `items/s, ETA ${eta}`;
}
