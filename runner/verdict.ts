/**
 * The run's exit verdict: whether the target answered at all. Raw counts
 * only (goodput under an SLO is the analysis module's job).
 *
 * @module
 */
import type { RequestSummary } from "./request_tally.ts";

/** Exit code of `deno task run` when no offered request ended `ok`. */
export const EXIT_NO_SUCCESS = 3;

/** The exit code of a finished run and, when it is not 0, why. */
export interface RunVerdict {
  exitCode: 0 | typeof EXIT_NO_SUCCESS;
  message: string | null;
}

/**
 * A run in which no offered request ended `ok` (zero ok outcomes among every
 * row of requests.csv, whatever the reason) failed as a measurement: exit
 * {@link EXIT_NO_SUCCESS} with the outcome counts that say why. A run with no
 * offered request at all is not judged (exit 0).
 *
 * @example Every request failed
 * ```ts
 * import { runVerdict } from "./verdict.ts";
 * import assert from "node:assert/strict";
 * const v = runVerdict({ offered: 3, byOutcome: new Map([["transport_error", 2], ["timeout", 1]]) });
 * assert.equal(v.exitCode, 3);
 * assert.equal(v.message, "no request succeeded: 0 of 3 offered requests ended ok (transport_error 2, timeout 1)");
 * ```
 */
export function runVerdict(requests: Pick<RequestSummary, "offered" | "byOutcome">): RunVerdict {
  if (requests.offered === 0 || requests.byOutcome.get("ok")) return { exitCode: 0, message: null };
  const by = [...requests.byOutcome].map(([o, n]) => `${o} ${n}`).join(", ");
  return {
    exitCode: EXIT_NO_SUCCESS,
    message: `no request succeeded: 0 of ${requests.offered} offered requests ended ok (${by})`,
  };
}
