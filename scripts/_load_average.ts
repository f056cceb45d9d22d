/**
 * The machine's load, as the sample scripts record it beside their runs: the 1-minute load average read at the start,
 * every few seconds while the runs go on, and at the end, stated as a range over the readings.
 *
 * @module
 */

/** The machine's 1-minute load average, or null where the system does not tell. */
export function load1(): number | null {
  const l = Deno.loadavg()[0];
  return l === undefined || l === 0 ? null : l;
}

/** Readings of the load average: one now, one every `everyMs` until `stop()`, one at `stop()`. */
export interface LoadSampler {
  readonly loads: readonly number[];
  stop(): void;
  /** The readings in words: `load average (1 min) 0.3–1.0 over 12 readings`, or that it was not available. */
  text(): string;
}

/** Starts reading the load average now (see {@linkcode LoadSampler}). */
export function startLoadSampler(everyMs = 5000): LoadSampler {
  const loads: number[] = [];
  const sample = () => {
    const l = load1();
    if (l !== null) loads.push(l);
  };
  sample();
  const timer = setInterval(sample, everyMs);
  let stopped = false;
  return {
    loads,
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      sample();
    },
    text: () =>
      loads.length
        ? `load average (1 min) ${Math.min(...loads).toFixed(1)}–${
          Math.max(...loads).toFixed(1)
        } over ${loads.length} ` +
          "readings"
        : "load average not available",
  };
}
