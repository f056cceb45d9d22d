/**
 * When a task's rows are built: a finished task once `settle_ms` passed since it ended (so a `rendered()`,
 * `responded()` or a call's `end()` that comes that soon after `complete()` still counts), unless it waits for its
 * page record; a task never finished once its time is up, or at close.
 *
 * @module
 */
import type { TaskState } from "./task.ts";
import { actionTime } from "./task_rows.ts";

/** What a flush does with an open task: wait, build its rows, or build them as unfinished (and why). */
export type Readiness = "wait" | "ready" | "unfinished_timeout" | "unfinished_at_close";

/**
 * An open task at `now` (service clock, ms since the Unix epoch): a task that `complete()` or `fail()` ended is ready
 * once `settle_ms` passed since it ended, unless a page record was announced (`TaskStart.page`), has not joined, and
 * less than `page_wait_ms` passed since it ended (at close it is ready regardless, without its page); a task not
 * ended is unfinished at close, or once `task_timeout_ms` passed since its user action (scheduled_ms), and waits
 * otherwise. An explicit `flush()` passes `settle_ms` 0.
 *
 * @example Ended at 100 ms, page announced, 500 ms wait, 50 ms settle
 * ```ts
 * import { readiness } from "./readiness.ts";
 * import assert from "node:assert/strict";
 * const s = { done: 100, page_expected: true, page: null, at: 0, begun: 0 } as never;
 * const opts = { page_wait_ms: 500, task_timeout_ms: 1000, settle_ms: 50 };
 * assert.equal(readiness(s, 599, opts, false), "wait");
 * assert.equal(readiness(s, 600, opts, false), "ready");
 * assert.equal(readiness(s, 101, opts, true), "ready");
 * const joined = { done: 100, page_expected: true, page: {}, at: 0, begun: 0 } as never;
 * assert.equal(readiness(joined, 149, opts, false), "wait");
 * assert.equal(readiness(joined, 150, opts, false), "ready");
 * assert.equal(readiness(joined, 100, { ...opts, settle_ms: 0 }, false), "ready");
 * ```
 */
export function readiness(
  s: TaskState,
  now: number,
  opts: { page_wait_ms: number; task_timeout_ms: number; settle_ms: number },
  closing: boolean,
): Readiness {
  if (s.done !== null) {
    if (closing) return "ready";
    const waiting = s.page_expected && s.page === null && now - s.done < opts.page_wait_ms;
    return waiting || now - s.done < opts.settle_ms ? "wait" : "ready";
  }
  if (closing) return "unfinished_at_close";
  return now - actionTime(s) >= opts.task_timeout_ms ? "unfinished_timeout" : "wait";
}
