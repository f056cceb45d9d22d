/**
 * When a task's rows are built: a finished task at the next flush (so a `rendered()`, `responded()` or a call's
 * `end()` that comes just after `complete()` still counts), unless it waits for its page record; a task never
 * finished once its time is up, or at close.
 *
 * @module
 */
import type { TaskState } from "./task.ts";
import { actionTime } from "./task_rows.ts";

/** What a flush does with an open task: wait, build its rows, or build them as unfinished (and why). */
export type Readiness = "wait" | "ready" | "unfinished_timeout" | "unfinished_at_close";

/**
 * An open task at `now` (service clock, ms since the Unix epoch): a task that `complete()` or `fail()` ended is ready,
 * unless a page record was announced (`TaskStart.page`), has not joined, and less than `page_wait_ms` passed since it
 * ended (at close it is ready regardless, without its page); a task not ended is unfinished at close, or once
 * `task_timeout_ms` passed since its user action (scheduled_ms), and waits otherwise.
 *
 * @example Ended at 100 ms, page announced, 500 ms wait
 * ```ts
 * import { readiness } from "./readiness.ts";
 * import assert from "node:assert/strict";
 * const s = { done: 100, page_expected: true, page: null, at: 0, begun: 0 } as never;
 * const opts = { page_wait_ms: 500, task_timeout_ms: 1000 };
 * assert.equal(readiness(s, 599, opts, false), "wait");
 * assert.equal(readiness(s, 600, opts, false), "ready");
 * assert.equal(readiness(s, 101, opts, true), "ready");
 * ```
 */
export function readiness(
  s: TaskState,
  now: number,
  opts: { page_wait_ms: number; task_timeout_ms: number },
  closing: boolean,
): Readiness {
  if (s.done !== null) {
    const waiting = s.page_expected && s.page === null && now - s.done < opts.page_wait_ms;
    return waiting && !closing ? "wait" : "ready";
  }
  if (closing) return "unfinished_at_close";
  return now - actionTime(s) >= opts.task_timeout_ms ? "unfinished_timeout" : "wait";
}
