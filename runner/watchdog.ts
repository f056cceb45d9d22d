/** One attempt the watchdog looks after. */
export interface Watched {
  controller: AbortController;
  /** Absolute run-clock deadlines. */
  attemptDeadlineMs: number;
  requestDeadlineMs: number;
  /** Deadline of the response head; null once it has arrived (the idle limit applies from then on). */
  headersDeadlineMs: number | null;
  /** Last time bytes arrived; idle time is measured from here once the head has arrived. */
  lastActivityMs: number;
  /** Why it was aborted, set by the watchdog. */
  reason: "attempt_timeout" | "request_timeout" | "header_timeout" | "idle_timeout" | "run_stopped" | null;
}

/**
 * One periodic sweep instead of a timer per request: aborts attempts past
 * their request, attempt, header or idle deadline. Until the response head
 * arrives only the header deadline applies (waiting in the target's queue is
 * not silence inside a stream); from then on, the idle limit. Resolution is
 * `periodMs`. The sweep runs only while something is watched: an idle runner
 * pays no timer.
 */
export class Watchdog {
  readonly #active = new Set<Watched>();
  #timer: ReturnType<typeof setInterval> | null = null;
  #stopped = false;
  readonly #periodMs: number;
  readonly #now: () => number;
  readonly #idleMs: number;

  constructor(now: () => number, idleMs: number, periodMs = 20) {
    this.#now = now;
    this.#idleMs = idleMs;
    this.#periodMs = periodMs;
  }

  /** Whether the sweep's timer is running (something is watched). */
  get sweeping(): boolean {
    return this.#timer !== null;
  }

  watch(w: Watched): void {
    this.#active.add(w);
    if (this.#timer === null && !this.#stopped) this.#timer = setInterval(() => this.sweep(), this.#periodMs);
  }
  unwatch(w: Watched): void {
    this.#active.delete(w);
    if (this.#active.size === 0) this.#pause();
  }

  sweep(): void {
    const now = this.#now();
    for (const w of this.#active) {
      const reason = now >= w.requestDeadlineMs
        ? "request_timeout"
        : now >= w.attemptDeadlineMs
        ? "attempt_timeout"
        : w.headersDeadlineMs !== null
        ? (now >= w.headersDeadlineMs ? "header_timeout" : null)
        : now - w.lastActivityMs >= this.#idleMs
        ? "idle_timeout"
        : null;
      if (reason) this.#abort(w, reason);
    }
    if (this.#active.size === 0) this.#pause();
  }

  /** Aborts everything in flight (the run is stopping). */
  abortAll(): void {
    for (const w of this.#active) this.#abort(w, "run_stopped");
  }

  stop(): void {
    this.#stopped = true;
    this.#pause();
  }

  #pause(): void {
    if (this.#timer === null) return;
    clearInterval(this.#timer);
    this.#timer = null;
  }

  #abort(w: Watched, reason: NonNullable<Watched["reason"]>): void {
    w.reason = reason;
    this.#active.delete(w);
    w.controller.abort(reason);
  }
}
