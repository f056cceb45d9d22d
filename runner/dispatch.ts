import type { RequestRow, ScheduledRequest } from "../schema/mod.ts";
import type { Clock } from "./clock.ts";
import {
  coalescedTimers,
  DISPATCH_WAIT,
  type DispatchTimers,
  type DispatchWait,
  timeoutTimers,
} from "./dispatch_timers.ts";
import type { ReadHook } from "./http/client.ts";

/** How the open-loop dispatcher hands work out and records what it could not send. */
export interface DispatchOptions {
  clock: Clock;
  entries: readonly ScheduledRequest[];
  /** A request later than this when its turn comes is recorded `not_sent` (the client fell behind). */
  maxSendLagMs: number;
  /** More requests in flight than this are recorded `client_shed`. */
  maxInFlight: number;
  /** Starts a request; must not block (it returns at its first await). */
  start(entry: ScheduledRequest, startedMs: number): Promise<RequestRow>;
  /** Writes the row of a request that was not started. */
  skip(entry: ScheduledRequest, outcome: "not_sent" | "client_shed", sendLagMs: number | null, reason: string): void;
  /** Called for every finished request row. */
  done?(row: RequestRow): void;
  /**
   * Called once when every entry of the schedule has been offered (or withheld, or given a `not_sent` row after a
   * stop), before the started requests have finished: batch routes submit their open batches then (docs/batch.md).
   */
  offeredAll?(): void;
  /** Stops dispatching: the rest of the schedule becomes `not_sent` (run_stopped). */
  signal?: AbortSignal;
  /**
   * Moments, in time order, at which to ask whether to go on. Each is asked
   * once, at its time (before any entry scheduled at or after it starts);
   * `true` withholds every entry from then on: they are not offered and get
   * no row. Entries due earlier are still dispatched.
   */
  checkpoints?: readonly Checkpoint[];
  /** What the loop sleeps and yields on. @default timeoutTimers() (the runner passes a started WakerTimers) */
  timers?: DispatchTimers;
  /** How early it wakes and how long it may poll before a due time. @default DISPATCH_WAIT */
  wait?: DispatchWait;
  /**
   * The run's HTTP clients' reads (runner/http/client.ts): right after a wake-up that started requests, with requests
   * in flight, a due time within `wait.readsMaxMs` is neither polled nor slept for: the first read after it starts what
   * is due, on a turn the event loop is awake for anyway, with `backstop` as the timer if no read comes first. Without
   * it the loop polls as `wait` says.
   */
  reads?: ReadHook;
  /** The timer behind the reads. @default coalescedTimers(timeoutTimers(), clock.now) */
  backstop?: DispatchTimers;
}

/** A moment of the run at which the dispatcher asks whether to go on (see {@linkcode DispatchOptions}). */
export interface Checkpoint {
  atMs: number;
  /** True: offer nothing scheduled at or after `atMs`. */
  stop(): boolean;
}

/** What the dispatcher offered. */
export interface DispatchResult {
  /** Entries offered (started, or given a not_sent/client_shed row): a prefix of the schedule. */
  offered: number;
  /** The checkpoint time from which the rest was withheld; null when nothing was. */
  withheldFromMs: number | null;
}

/** Live counters of the dispatcher (read by the progress line). */
export interface DispatchCounters {
  dispatched: number;
  inFlight: number;
  finished: number;
  notSent: number;
  clientShed: number;
  /**
   * Largest send lag since the last reset (ms): a started request's `send_lag_ms` (first byte written − scheduled,
   * known when it finishes), a request not started its lag when the dispatcher gave it up.
   */
  windowMaxLagMs: number;
}

/**
 * Open loop: request i starts at its scheduled time whatever happened to the
 * ones before it; sends never wait for responses. Between due times the loop
 * sleeps: a timer wakes it `wait.leadMs` before the next due time, and only
 * from `wait.spinMaxMs` before it does it poll (event-loop turns that yield to
 * I/O), so it never polls longer than that per due time — and, given `reads`, not at all right after starting
 * requests while answers are being read (dense arrivals). Each wake-up starts
 * every request due by then, in schedule order, and never one before its
 * time. Resolves when every started request has finished, with how much of
 * the schedule was offered (all of it unless a checkpoint withheld the rest).
 */
export async function dispatchOpenLoop(
  o: DispatchOptions,
  counters: DispatchCounters = newCounters(),
): Promise<DispatchResult> {
  const { clock, entries } = o;
  const timers = o.timers ?? timeoutTimers();
  const waiting = o.wait ?? DISPATCH_WAIT;
  const { leadMs, spinMaxMs } = waiting;
  const readsMaxMs = waiting.readsMaxMs ?? spinMaxMs;
  const spinShare = waiting.spinShare ?? Infinity;
  /** The due time the loop last chose its lead and polling for, and those (ms): chosen once per due time. */
  let pollTarget = NaN;
  let pollLead = leadMs;
  let pollSpin = spinMaxMs;
  const checkpoints = o.checkpoints ?? [];
  let i = 0;
  let c = 0;
  // Lowered when a checkpoint withholds the rest of the schedule.
  let end = entries.length;
  let withheldFromMs: number | null = null;
  let cancelSleep: (() => void) | null = null;
  /** The loop waits for a read (or the backstop's timer), not for a turn or its own timer: a read may tick it. */
  let onReads = false;
  const backstop = o.backstop ?? coalescedTimers(timeoutTimers(), () => clock.now());
  let finishedAll: () => void;
  const finished = new Promise<void>((r) => finishedAll = r);
  let arrivalsOver = false;
  const settle = () => {
    if (i >= end && !arrivalsOver) {
      arrivalsOver = true;
      o.offeredAll?.();
    }
    if (i >= end && counters.inFlight === 0) finishedAll();
  };
  /** Asks every checkpoint due by `ms` (and by the clock); true when one withheld the rest. */
  const askCheckpoints = (ms: number, now: number): boolean => {
    while (c < checkpoints.length && checkpoints[c]!.atMs <= ms && checkpoints[c]!.atMs <= now) {
      const cp = checkpoints[c++]!;
      if (cp.stop()) {
        end = i;
        withheldFromMs = cp.atMs;
        return true;
      }
    }
    return false;
  };
  const onDone = (row: RequestRow) => {
    if (row.send_lag_ms !== null && row.send_lag_ms > counters.windowMaxLagMs) {
      counters.windowMaxLagMs = row.send_lag_ms;
    }
    counters.inFlight--;
    counters.finished++;
    o.done?.(row);
    settle();
  };

  // start() records its own failures (runner/request_guard.ts); a rejection here is a bug that must not hang or end the run.
  const onFailed = (e: ScheduledRequest, err: unknown) => {
    console.error(`error: request ${e.request_id} failed without a row: ${String(err)}`);
    counters.inFlight--;
    counters.finished++;
    settle();
  };

  const tick = () => {
    cancelSleep = null;
    onReads = false;
    if (o.signal?.aborted) {
      for (; i < end; i++) {
        o.skip(entries[i]!, "not_sent", null, "run_stopped");
        counters.notSent++;
      }
      settle();
      return;
    }
    let now = clock.now();
    let n = 0;
    while (i < end) {
      const e = entries[i]!;
      if (e.scheduled_ms > now) break;
      if (askCheckpoints(e.scheduled_ms, now)) break;
      i++;
      const lag = now - e.scheduled_ms;
      if (lag > o.maxSendLagMs) {
        if (lag > counters.windowMaxLagMs) counters.windowMaxLagMs = lag;
        o.skip(e, "not_sent", lag, `send_lag>${o.maxSendLagMs}ms`);
        counters.notSent++;
      } else if (counters.inFlight >= o.maxInFlight) {
        if (lag > counters.windowMaxLagMs) counters.windowMaxLagMs = lag;
        o.skip(e, "client_shed", lag, `in_flight>=${o.maxInFlight}`);
        counters.clientShed++;
      } else {
        counters.inFlight++;
        counters.dispatched++;
        o.start(e, now).then(onDone, (err) => onFailed(e, err));
      }
      // Re-read the clock now and then: starting a request takes time too.
      if ((++n & 15) === 0) now = clock.now();
    }
    // Starting requests took time; a tick that started none (a poll) reads the clock once.
    if (n > 0) now = clock.now();
    // A checkpoint between entries is asked at its own time, not at the next arrival.
    if (i < end && c < checkpoints.length) askCheckpoints(entries[i]!.scheduled_ms, now);
    if (i < end) {
      const nextCheck = c < checkpoints.length ? checkpoints[c]!.atMs : Infinity;
      const target = Math.min(entries[i]!.scheduled_ms, nextCheck);
      const wait = target - now;
      // Polling costs CPU all the while: for each due time, at most `spinShare` of the time the loop first saw left
      // before it (and at most `spinMaxMs`), so it never polls more than that share of a core.
      if (target !== pollTarget) {
        pollTarget = target;
        // Already due when first seen (starting requests took time): no lead, no polling, the next turn.
        const share = wait > 0 ? spinShare * wait : 0;
        pollLead = Math.min(leadMs, share);
        pollSpin = Math.min(spinMaxMs, share);
      }
      // Right after starting requests while answers are being read (arrivals this dense keep reads coming), a due
      // time within `readsMaxMs`: the first read after it is due, with the backstop's timer if none comes. Else, due
      // or due within the polling bound: the next turn (I/O first). Else sleep until the lead before it.
      if (o.reads && n > 0 && counters.inFlight > 0 && wait > 0 && wait <= readsMaxMs) {
        onReads = true;
        cancelSleep = backstop.after(wait, tick);
      } else if (wait <= pollSpin) {
        timers.turn(tick);
      } else {
        cancelSleep = timers.after(wait - pollLead, tick);
      }
    } else settle();
  };
  /** After a read: starts what is due when the loop waits for reads (a turn it asked for comes anyway). */
  const onRead = (nowMs: number) => {
    if (!onReads || i >= end || entries[i]!.scheduled_ms > nowMs) return;
    cancelSleep?.();
    try {
      tick();
    } catch (err) {
      // Not this read's failure: thrown where a timer's tick would have thrown it.
      setTimeout(() => {
        throw err;
      });
    }
  };
  if (o.reads) o.reads.fn = onRead;
  const onAbort = () => {
    cancelSleep?.();
    onReads = false;
    timers.turn(tick);
  };
  o.signal?.addEventListener("abort", onAbort, { once: true });
  tick();
  try {
    await finished;
  } finally {
    if (o.reads?.fn === onRead) o.reads.fn = null;
  }
  o.signal?.removeEventListener("abort", onAbort);
  return { offered: end, withheldFromMs };
}

export function newCounters(): DispatchCounters {
  return { dispatched: 0, inFlight: 0, finished: 0, notSent: 0, clientShed: 0, windowMaxLagMs: 0 };
}
