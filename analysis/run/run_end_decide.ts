/**
 * A run already read, with the requests its stop cut off decided by e2e
 * limits: those already past their limit at the log's end failed (in the
 * window, not accepted), the rest stay censored, and the window ends at the
 * first of those (`RUN_END_RULE`, run_end_rule.ts).
 *
 * @module
 */
import pl from "nodejs-polars";
import { isRunnerRun } from "../../schema/imported_manifest.ts";
import type { LoadedRun } from "./loaded_run.ts";
import { countBetween, cutOffRows } from "./_cut_off_rows.ts";
import { clipStages, type E2eDeadlines, type RunEnd, stoppedEnd } from "./run_end_rule.ts";
import type { ScannedRun } from "./scanned_run.ts";

/**
 * The end of a run read without deadlines, recomputed under `deadlines`
 * from its requests (a killed run's restored rows included). `requests`
 * scheduled in [ms, log end) are counted to find what the new window's end
 * leaves out; the requests at or after the log's end are those the first
 * end counted: `after_cut` − (rows in [cut, log end)) + `censored`.
 */
export async function redecideEnd(
  end: RunEnd,
  requests: pl.LazyDataFrame,
  deadlines: E2eDeadlines,
): Promise<RunEnd> {
  const logEnd = end.log_end_ms;
  if (end.cut_ms === null || logEnd === null || end.log_end_rule === null) return end;
  if (end.status !== "interrupted" && end.status !== "killed") return end;
  const beyond = end.after_cut - await countBetween(requests, end.cut_ms, logEnd) + end.censored;
  return stoppedEnd(
    {
      status: end.status,
      log_end_ms: logEnd,
      log_end_rule: end.log_end_rule,
      planned_ms: end.planned_ms,
      planned_stages: end.planned_stages,
      restored: end.restored,
      beyond,
      between: (ms) => countBetween(requests, ms, logEnd),
    },
    await cutOffRows(requests, logEnd),
    deadlines,
  );
}

/**
 * A loaded or scanned run with the requests its stop cut off decided by
 * `deadlines` (`e2eDeadlines(policy, source)` from an SLO policy): a request
 * in flight at the stop whose time from scheduled_ms to the log's end
 * exceeds its e2e limit failed. It stays in the window and the denominator,
 * not accepted (late_e2e), and no longer pulls the window's end back; the
 * window ends at the first request still censored. The run's `end` is
 * recomputed and its stages clipped at the new window's end (shards share
 * run.json's stages, `end.planned_stages`); a complete run, an imported run
 * or a production recording is returned as it is. The input is not changed.
 * `loadRun` and `scanRun` do this when given `deadlines`; the commands do it
 * once their policy is known.
 *
 * @example A complete run is returned as it is
 * ```ts
 * import { decideStopped } from "./run_end_decide.ts";
 * import { completeRunEnd } from "./run_end_rule.ts";
 * import assert from "node:assert/strict";
 * import pl from "nodejs-polars";
 * const run = { end: completeRunEnd([]), requests: pl.DataFrame({ scheduled_ms: [] }) };
 * const same = await decideStopped(run as never, { limit: () => 1000, source: "a 1 s limit" });
 * assert.equal(same, run);
 * ```
 */
export async function decideStopped<R extends LoadedRun | ScannedRun>(run: R, deadlines: E2eDeadlines): Promise<R> {
  const requests = run.requests as pl.DataFrame | pl.LazyDataFrame;
  const lazy = "collectSync" in requests ? requests : requests.lazy();
  const end = await redecideEnd(run.end, lazy, deadlines);
  if (end === run.end) return run;
  const cut = end.cut_ms!;
  const manifests = run.manifests.map((m) =>
    isRunnerRun(m) ? { ...m, stages: clipStages(end.planned_stages, cut) } : m
  );
  return { ...run, end, manifests, manifest: manifests[0]! };
}
