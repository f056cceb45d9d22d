import type { DispatchCounters } from "./dispatch.ts";

/** Outcome tallies kept for the progress line only (the log is the record). */
export interface ProgressTally {
  ok: number;
  errors: number;
  rejected: number;
}

/** What one progress line says: the run's counts at one moment (a worker of `--workers` sends it to its parent). */
export interface ProgressSnapshot {
  /** Seconds since ms 0 of the run. */
  t_s: number;
  /** Requests offered so far: dispatched, `not_sent` and `client_shed`. */
  offered: number;
  /** Requests the schedule holds (0: unknown before the run, a closed loop). */
  total: number;
  in_flight: number;
  done: number;
  ok: number;
  rejected: number;
  errors: number;
  not_sent: number;
  shed: number;
  /** The largest send lag since the previous snapshot (ms). */
  lag_max_ms: number;
}

/** Takes a snapshot of the counters and starts the next send-lag window. */
export function progressSnapshot(
  counters: DispatchCounters,
  tally: ProgressTally,
  o: { total: number; nowMs: number },
): ProgressSnapshot {
  const c = counters;
  const snapshot = {
    t_s: o.nowMs / 1000,
    offered: c.dispatched + c.notSent + c.clientShed,
    total: o.total,
    in_flight: c.inFlight,
    done: c.finished,
    ok: tally.ok,
    rejected: tally.rejected,
    errors: tally.errors,
    not_sent: c.notSent,
    shed: c.clientShed,
    lag_max_ms: c.windowMaxLagMs,
  };
  c.windowMaxLagMs = 0;
  return snapshot;
}

/**
 * The progress line's text.
 *
 * @example One second into a run
 * ```ts
 * import { formatProgress } from "./progress.ts";
 * import assert from "node:assert/strict";
 * const line = formatProgress({
 *   t_s: 1, offered: 10, total: 100, in_flight: 2, done: 8, ok: 7, rejected: 0, errors: 1, not_sent: 0, shed: 0,
 *   lag_max_ms: 0.5,
 * });
 * assert.equal(
 *   line,
 *   "t=1.0s offered 10/100 in-flight 2 done 8 ok 7 rejected 0 errors 1 not-sent 0 shed 0 send-lag(max,1s) 0.50ms",
 * );
 * ```
 */
export function formatProgress(s: ProgressSnapshot): string {
  const total = s.total > 0 ? `/${s.total}` : "";
  return `t=${s.t_s.toFixed(1)}s offered ${s.offered}${total} in-flight ${s.in_flight} ` +
    `done ${s.done} ok ${s.ok} rejected ${s.rejected} errors ${s.errors} ` +
    `not-sent ${s.not_sent} shed ${s.shed} send-lag(max,1s) ${s.lag_max_ms.toFixed(2)}ms`;
}

/** A live line on stderr (see {@linkcode stderrLine}). */
export interface LiveLine {
  /** The line now. */
  write(text: string): void;
  /** The last line (written whatever `plainEvery` says). */
  end(text: string): void;
  /** A line of its own, kept (on a terminal the live line is cleared first, and redrawn by the next `write`). */
  note(text: string): void;
}

/**
 * A live line on stderr: on a terminal one line rewritten in place; otherwise every `plainEvery`-th line written,
 * and the last one (`end`) always.
 */
export function stderrLine(plainEvery: number): LiveLine {
  const tty = Deno.stderr.isTerminal();
  const enc = new TextEncoder();
  let calls = 0;
  return {
    note(text) {
      Deno.stderr.writeSync(enc.encode(tty ? `\r\x1b[2K${text}\n` : `${text}\n`));
    },
    write(text) {
      if (tty) Deno.stderr.writeSync(enc.encode(`\r\x1b[2K${text}`));
      else if (++calls % plainEvery === 0) Deno.stderr.writeSync(enc.encode(`${text}\n`));
    },
    end(text) {
      Deno.stderr.writeSync(enc.encode(tty ? `\r\x1b[2K${text}\n` : `${text}\n`));
    },
  };
}

/**
 * A live progress line on stderr every second: offered, in flight, done,
 * errors, current send lag. On a terminal it rewrites one line; otherwise
 * it prints a line every `plainEveryS` seconds. With `onSnapshot`, each
 * second's snapshot goes there instead (a worker of `--workers` sends it to
 * its parent, which prints one line for every worker).
 */
export function startProgress(
  counters: DispatchCounters,
  tally: ProgressTally,
  options: {
    total: number;
    now: () => number;
    enabled: boolean;
    plainEveryS?: number;
    onSnapshot?: (s: ProgressSnapshot) => void;
  },
): { stop(): void } {
  if (!options.enabled && !options.onSnapshot) return { stop() {} };
  const snap = () => progressSnapshot(counters, tally, { total: options.total, nowMs: options.now() });
  const out = options.onSnapshot ? null : stderrLine(options.plainEveryS ?? 5);
  const timer = setInterval(() => {
    const s = snap();
    if (options.onSnapshot) options.onSnapshot(s);
    else out!.write(formatProgress(s));
  }, 1000);
  return {
    stop() {
      clearInterval(timer);
      const s = snap();
      if (options.onSnapshot) options.onSnapshot(s);
      else out!.end(formatProgress(s));
    },
  };
}
