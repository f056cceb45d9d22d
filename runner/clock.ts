/**
 * The run's one monotonic clock: float milliseconds since the run epoch.
 * `epochUnixMs` is the wall-clock time of ms 0 (run.json `epoch_iso`).
 */
export interface Clock {
  now(): number;
  readonly epochUnixMs: number;
}

/** A clock whose ms 0 is the moment it was created or last restarted. */
export class RunClock implements Clock {
  #perf0 = 0;
  epochUnixMs = 0;

  constructor() {
    this.restart();
  }

  /** Moves ms 0 to now (after warm-up, before the first arrival). */
  restart(): void {
    this.#perf0 = performance.now();
    this.epochUnixMs = performance.timeOrigin + this.#perf0;
  }

  readonly now = (): number => performance.now() - this.#perf0;
}

/** A clock whose ms 0 is the moment it was created. */
export function startClock(): RunClock {
  return new RunClock();
}
