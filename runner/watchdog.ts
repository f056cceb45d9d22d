/** The longest delay a timer keeps (2^31 − 1 ms); a longer one would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

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
 * One sweep timer instead of a timer per request: aborts attempts past their request, attempt, header or idle
 * deadline. Until the response head arrives only the header deadline applies (waiting in the target's queue is not
 * silence inside a stream); from then on, the idle limit.
 *
 * The timer is set for the earliest instant a watched attempt can be due — its next deadline, and never later than
 * `idleMs` after the timer is set (a head that arrives later starts an idle limit that ends no sooner) — and never
 * sooner than `periodMs` after the last sweep. A deadline only moves later while an attempt runs (bytes arrive, the
 * head ends the header deadline), so the sweep is never late for one; it is early at worst, finds nothing due, and
 * sets the timer again. A runner waiting on long streams sweeps about once per deadline instead of every `periodMs`
 * (each wake-up of the process costs 0.25–0.42 ms of CPU on a virtual machine like the one in bench/README.md).
 *
 * When the last watched attempt ends, the timer is kept but no longer holds the process (`Deno.unrefTimer`): the next
 * attempt, whose deadlines are later, reuses it instead of setting one and clearing it again (at 50 requests a second,
 * one at a time, that was a timer made and cleared per request). If it fires with nothing watched it sweeps nothing
 * and is not set again, so a runner with nothing in flight wakes at most once for it.
 */
export class Watchdog {
  readonly #active = new Set<Watched>();
  #timer: ReturnType<typeof setTimeout> | null = null;
  /** The timer was kept when the last attempt ended and does not hold the process. */
  #idle = false;
  /** When the timer is set to sweep (run clock, ms); Infinity when none is set. */
  #due = Infinity;
  #lastSweep = -Infinity;
  #stopped = false;
  readonly #periodMs: number;
  readonly #now: () => number;
  readonly #idleMs: number;

  constructor(now: () => number, idleMs: number, periodMs = 20) {
    this.#now = now;
    this.#idleMs = idleMs;
    this.#periodMs = periodMs;
  }

  /** Whether the sweep's timer is set and holds the process (something is watched). */
  get sweeping(): boolean {
    return this.#timer !== null && !this.#idle;
  }

  /** Whether a timer is kept from the last attempt, not holding the process (nothing is watched). */
  get keptIdle(): boolean {
    return this.#timer !== null && this.#idle;
  }

  /** When the next sweep is set for (run clock, ms); Infinity when none is. */
  get nextSweepMs(): number {
    return this.#due;
  }

  watch(w: Watched): void {
    this.#active.add(w);
    if (this.#stopped) return;
    const at = Math.min(this.#deadline(w), this.#now() + this.#idleMs);
    if (at < this.#due) this.#arm(at);
    else if (this.#idle && this.#timer !== null) {
      // The kept timer is due no later than this attempt can be: it holds the process again.
      Deno.refTimer(this.#timer);
      this.#idle = false;
    }
  }
  unwatch(w: Watched): void {
    this.#active.delete(w);
    if (this.#active.size > 0 || this.#timer === null || this.#idle) return;
    Deno.unrefTimer(this.#timer);
    this.#idle = true;
  }

  sweep(): void {
    const now = this.#now();
    this.#lastSweep = now;
    let next = now + this.#idleMs;
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
      else next = Math.min(next, this.#deadline(w));
    }
    this.#pause();
    if (this.#active.size > 0 && !this.#stopped) this.#arm(next);
  }

  /** The next instant an attempt can be due: its request, attempt, and header (or, after the head, idle) deadline. */
  #deadline(w: Watched): number {
    const open = w.headersDeadlineMs ?? w.lastActivityMs + this.#idleMs;
    return Math.min(w.requestDeadlineMs, w.attemptDeadlineMs, open);
  }

  /** Sets the sweep's timer for `at` (run clock), but not sooner than `periodMs` after the last sweep. */
  #arm(at: number): void {
    const when = Math.max(at, this.#lastSweep + this.#periodMs);
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#due = when;
    this.#idle = false;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#idle = false;
      this.#due = Infinity;
      this.sweep();
    }, Math.min(MAX_TIMER_MS, Math.max(0, when - this.#now())));
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
    clearTimeout(this.#timer);
    this.#timer = null;
    this.#idle = false;
    this.#due = Infinity;
  }

  #abort(w: Watched, reason: NonNullable<Watched["reason"]>): void {
    w.reason = reason;
    this.#active.delete(w);
    w.controller.abort(reason);
  }
}
