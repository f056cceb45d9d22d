import type { RouteLimits } from "../schema/mod.ts";

interface Waiter {
  grant(ok: boolean): void;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * The limits the runner holds one route to: at most `max_in_flight`
 * attempts at once (later ones wait in FIFO order) and at most `rps`
 * attempt starts per second (a token bucket holding one second of tokens,
 * later starts spaced out). Waiting is client-side latency: it counts from
 * the request's `scheduled_ms` like any other wait.
 *
 * @example Two slots: the third caller waits until one is released
 * ```ts
 * import { RouteLimiter } from "./route_limiter.ts";
 * import assert from "node:assert/strict";
 * let t = 0;
 * const l = new RouteLimiter({ max_in_flight: 2 }, () => t);
 * assert.equal(await l.acquire(1000), true);
 * assert.equal(await l.acquire(1000), true);
 * const third = l.acquire(1000);
 * l.release();
 * assert.equal(await third, true);
 * assert.equal(l.inFlight, 2);
 * ```
 */
export class RouteLimiter {
  readonly #max: number;
  readonly #perMs: number;
  readonly #capacity: number;
  readonly #now: () => number;
  readonly #waiters: Waiter[] = [];
  #inFlight = 0;
  #level: number;
  #last: number;

  /** `now`: the run clock (ms); deadlines passed to `acquire` are on it. */
  constructor(limits: RouteLimits, now: () => number) {
    this.#max = limits.max_in_flight ?? Infinity;
    this.#perMs = limits.rps === undefined ? Infinity : limits.rps / 1000;
    this.#capacity = limits.rps === undefined ? Infinity : Math.max(1, limits.rps);
    this.#now = now;
    this.#level = this.#capacity;
    this.#last = now();
  }

  /** Attempts holding a slot now. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /**
   * Waits for a slot and a start token; false (holding nothing) when
   * `deadlineMs` comes first or `abortAll` was called.
   */
  async acquire(deadlineMs: number): Promise<boolean> {
    if (this.#inFlight < this.#max && this.#waiters.length === 0) this.#inFlight++;
    else if (!(await this.#queue(deadlineMs))) return false;
    if (this.#perMs === Infinity) return true;
    // Reserve a token now (the level may go below zero) and wait until it exists: starts are spaced 1/rps apart.
    const now = this.#now();
    this.#level = Math.min(this.#capacity, this.#level + (now - this.#last) * this.#perMs) - 1;
    this.#last = now;
    const wait = this.#level < 0 ? -this.#level / this.#perMs : 0;
    if (now + wait > deadlineMs) {
      this.#level += 1;
      this.release();
      return false;
    }
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    return true;
  }

  /** Gives a slot back; the longest waiter gets it. */
  release(): void {
    const next = this.#waiters.shift();
    if (next) {
      clearTimeout(next.timer);
      next.grant(true);
    } else this.#inFlight--;
  }

  /** Every waiter gives up at once (the run is stopping). */
  abortAll(): void {
    for (const w of this.#waiters.splice(0)) {
      clearTimeout(w.timer);
      w.grant(false);
    }
  }

  #queue(deadlineMs: number): Promise<boolean> {
    return new Promise((grant) => {
      const w: Waiter = {
        grant,
        timer: setTimeout(() => {
          const i = this.#waiters.indexOf(w);
          if (i >= 0) this.#waiters.splice(i, 1);
          grant(false);
        }, Math.max(0, deadlineMs - this.#now())),
      };
      this.#waiters.push(w);
    });
  }
}
