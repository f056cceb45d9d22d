import type { DispatchCounters } from "./dispatch.ts";

/** Outcome tallies kept for the progress line only (the log is the record). */
export interface ProgressTally {
  ok: number;
  errors: number;
  rejected: number;
}

/**
 * A live progress line on stderr every second: offered, in flight, done,
 * errors, current send lag. On a terminal it rewrites one line; otherwise
 * it prints a line every `plainEveryS` seconds.
 */
export function startProgress(
  counters: DispatchCounters,
  tally: ProgressTally,
  options: { total: number; now: () => number; enabled: boolean; plainEveryS?: number },
): { stop(): void } {
  if (!options.enabled) return { stop() {} };
  const tty = Deno.stderr.isTerminal();
  const every = tty ? 1 : options.plainEveryS ?? 5;
  const enc = new TextEncoder();
  let ticks = 0;
  const line = () => {
    const c = counters;
    const offered = c.dispatched + c.notSent + c.clientShed;
    const total = options.total > 0 ? `/${options.total}` : "";
    const text = `t=${(options.now() / 1000).toFixed(1)}s offered ${offered}${total} in-flight ${c.inFlight} ` +
      `done ${c.finished} ok ${tally.ok} rejected ${tally.rejected} errors ${tally.errors} ` +
      `not-sent ${c.notSent} shed ${c.clientShed} send-lag(max,1s) ${c.windowMaxLagMs.toFixed(2)}ms`;
    c.windowMaxLagMs = 0;
    Deno.stderr.writeSync(enc.encode(tty ? `\r\x1b[2K${text}` : `${text}\n`));
  };
  const timer = setInterval(() => {
    if (++ticks % every === 0) line();
  }, 1000);
  return {
    stop() {
      clearInterval(timer);
      line();
      if (tty) Deno.stderr.writeSync(enc.encode("\n"));
    },
  };
}
