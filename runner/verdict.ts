/**
 * The run's exit verdict: whether the target answered at all. Raw counts
 * only (goodput under an SLO is the analysis module's job).
 *
 * @module
 */
import type { RunManifest } from "../schema/mod.ts";
import type { RequestSummary } from "./request_tally.ts";

/** Exit code of `deno task run` when no offered request ended `ok`. */
export const EXIT_NO_SUCCESS = 3;
/** Exit code of `deno task run` when a log write failed (a full disk) and stopped the run (status `write_failed`). */
export const EXIT_WRITE_FAILED = 6;

/** The exit code of a finished run and, when it is not 0, why. */
export interface RunVerdict {
  exitCode: 0 | typeof EXIT_NO_SUCCESS | typeof EXIT_WRITE_FAILED;
  message: string | null;
}

/**
 * The verdict of a finalised run: {@link EXIT_WRITE_FAILED} with the file and the error when a log write stopped
 * it (whatever succeeded before), else {@linkcode runVerdict}.
 *
 * @example A full disk
 * ```ts
 * import { finishedRunVerdict } from "./verdict.ts";
 * import assert from "node:assert/strict";
 * const v = finishedRunVerdict({
 *   status: "write_failed",
 *   ended_ms: 5100,
 *   write_error: { file: "attempts.csv", code: "ENOSPC", message: "No space left on device (os error 28)", at_ms: 5000 },
 * }, { offered: 40, byOutcome: new Map([["ok", 30]]) });
 * assert.equal(v.exitCode, 6);
 * assert.equal(
 *   v.message,
 *   "error: cannot write attempts.csv: No space left on device (os error 28) (ENOSPC): the run stopped at 5.0 s; " +
 *     "what was written before is finalised (run.json result.status \"write_failed\"; rows after it are not on disk)",
 * );
 * ```
 */
export function finishedRunVerdict(
  result: Pick<RunManifest["result"], "status" | "ended_ms" | "write_error">,
  requests: Pick<RequestSummary, "offered" | "byOutcome">,
): RunVerdict {
  const w = result.write_error;
  if (result.status !== "write_failed" || !w) return runVerdict(requests);
  return {
    exitCode: EXIT_WRITE_FAILED,
    message: `error: cannot write ${w.file}: ${w.message}${w.code ? ` (${w.code})` : ""}: the run stopped at ${
      (w.at_ms / 1000).toFixed(1)
    } s; what was written before is finalised (run.json result.status "write_failed"; rows after it are not on disk)`,
  };
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
