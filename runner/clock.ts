/**
 * The run's one monotonic clock: float milliseconds since the run epoch.
 * `epochUnixMs` is the wall-clock time of ms 0 (run.json `epoch_iso`).
 */
export interface Clock {
  now(): number;
  readonly epochUnixMs: number;
}

/** A clock whose ms 0 is the moment it was created. */
export function startClock(): Clock {
  const perf0 = performance.now();
  const epochUnixMs = performance.timeOrigin + perf0;
  return { now: () => performance.now() - perf0, epochUnixMs };
}
