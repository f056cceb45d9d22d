import type { StopSignal } from "../schema/run_manifest.ts";

/** The signals that stop a run: Ctrl-C, and what `timeout`, `docker stop`, Kubernetes, CI and a closed terminal send. */
export const STOP_SIGNALS: readonly StopSignal[] = ["SIGINT", "SIGTERM", "SIGHUP"];

const SIGNAL_NUMBER: Record<StopSignal, number> = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };

/** Listening for the stop signals; {@linkcode StopListener.remove} (or leaving its `using` scope) ends it. */
export interface StopListener extends Disposable {
  /** The first stop signal received, or null. */
  readonly received: StopSignal | null;
  remove(): void;
}

/** What a run does on its first and on a second stop signal. */
export interface StopHandlers {
  /** The first signal: stop cleanly (the run still finalises its log). */
  first: (signal: StopSignal) => void;
  /** A second signal, just before the process exits at once: write what can be written synchronously. */
  beforeExit: () => void;
}

/**
 * The first SIGINT, SIGTERM or SIGHUP calls `first`; a second one (of any of them) calls `beforeExit` and exits at
 * once with 128 + the signal's number (130, 143, 129): run.json then still says `running`, as after a kill.
 */
export function listenForStop(h: StopHandlers): StopListener {
  let received: StopSignal | null = null;
  const handlers = STOP_SIGNALS.map((signal) => {
    const handler = () => {
      if (received !== null) {
        console.error(`\n${signal} again: exiting at once (run.json stays "running"; rows flushed so far are kept)`);
        h.beforeExit();
        Deno.exit(128 + SIGNAL_NUMBER[signal]);
      }
      received = signal;
      h.first(signal);
    };
    try {
      Deno.addSignalListener(signal, handler);
      return { signal, handler };
    } catch {
      // Platforms without this signal (SIGTERM and SIGHUP on Windows): it then ends the process as before.
      return null;
    }
  });
  return {
    get received() {
      return received;
    },
    remove() {
      for (const l of handlers.splice(0)) if (l) Deno.removeSignalListener(l.signal, l.handler);
    },
    [Symbol.dispose]() {
      this.remove();
    },
  };
}
