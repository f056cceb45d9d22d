/**
 * The rules of the wait breakdown, in words: stated in its disclosure, its figure's notes, the report and
 * docs/production_analysis.md.
 *
 * @module
 */
import { WAIT_SEGMENTS, type WaitSegment } from "./_wait_intervals.ts";

/** Every definition of the wait breakdown. */
export const WAIT_RULES = {
  accepted: "accepted tasks: the completed tasks of the window that meet their class's SLO and every gate it " +
    "requires (the goodput classification)",
  completed: "completed tasks: outcome ok, scheduled_ms inside the policy's window, with a completed_ms at or " +
    "after scheduled_ms",
  e2e: "the e2e wait of a task = completed_ms − scheduled_ms: from the user's action (a recording: the page's " +
    "action, else the service's begin; a runner: the planned arrival) to the complete answer (a recording with a " +
    "page record: the page's render)",
  segments: {
    page: "the task's page phase (the user's action → the page's send); a task with no phase row at all (every " +
      "task of a runner's or an imported run) has its send lag instead, scheduled_ms → first_sent_ms (a runner's " +
      "lateness; in a recording, the app's time before its send)",
    network: "phases network_up (the page's send → the service receiving it) and network_down (the service's last " +
      "byte → the page holding it)",
    queue: "the app's own phases named queue",
    retrieval: "tools rows whose tool is retrieval",
    model: "the union of the task's model calls (attempts), each sent_ms → completed_ms (a failed call: its latest " +
      "recorded time: last token, first token, headers), minus what retrieval and tools cover",
    tools: "tools rows of every other tool",
    render: "the render phase (the page holding the answer → the first paint after the final DOM update)",
    other: "the rest of the wait: time in none of the above (the service's own work, validation, backoff between " +
      "retries, and any segment the task did not measure)",
  } satisfies Record<WaitSegment, string>,
  overlap: "each segment's intervals are clipped to the task's wait and merged (interval union); an instant covered " +
    "by several segments is charged once, to the first of: page phase, network, queue, retrieval, tools, model, " +
    "render, send lag, other. So the model's time excludes its overlap with tool steps, and the send lag counts " +
    "only time no measured segment covers. An interval with no length inside the wait covers nothing (clock error " +
    "can make a network phase negative). A task's segments add up to its e2e wait",
  measured: "a segment is measured for a task when the task has its rows: page (a page phase, or the send lag of a " +
    "task with no phase row), network, queue and render (such a phase); retrieval, model and tools always (the " +
    "attempts and tools tables are in every log: a task without such rows had none, 0 ms). A segment's numbers are " +
    "over the tasks that measured it (n); a task's unmeasured segment is in its other; a segment no task measured is " +
    "n/a, not 0",
  share: "mean share = the mean, over the tasks that measured the segment and waited longer than 0 ms, of segment " +
    "ms / e2e ms (for segments every task measured, the mean shares add up to 1); pooled share = Σ segment ms / Σ " +
    "e2e ms over every task of the group: the share of all its waiting time, where a task that did not measure the " +
    "segment adds 0 (its time is in its other), so the pooled shares add up to 1 and a partly measured segment's is " +
    "a lower bound",
  percentiles: "median and p95 are nearest-rank (x₍⌈p·n⌉₎) over the tasks that measured the segment",
  outside_model: "the wait outside the model server = e2e − model: every segment but model; its mean share over the " +
    "tasks, and pooled: Σ (e2e − model) / Σ e2e over the group",
  clock: "page and network phases are placed on the service's clock with the page's estimated clock offset, each " +
    "within its clock_error_ms",
} as const;

/** The segments no task measured, each with why (a segment some task measured is absent). */
export function waitNotMeasured(
  has: Record<WaitSegment, readonly boolean[]>,
  logHasPhases: boolean,
): Partial<Record<WaitSegment, string>> {
  const out: Partial<Record<WaitSegment, string>> = {};
  const noPhases = "the log has no phase rows (the recorder alone writes phases: a runner's or an imported run " +
    "records none)";
  const why: Partial<Record<WaitSegment, string>> = {
    page: "no task has a page phase, and none without phases has a first_sent_ms",
    network: logHasPhases ? "no task has a network_up or network_down phase (no page record joined)" : noPhases,
    queue: logHasPhases ? "no task has a queue phase (the app records none)" : noPhases,
    render: logHasPhases ? "no task has a render phase (no page record joined)" : noPhases,
  };
  for (const s of WAIT_SEGMENTS) {
    if (why[s] && !has[s].some(Boolean)) out[s] = why[s];
  }
  return out;
}
