import type { SimStall } from "../schema/mod.ts";

/**
 * The stall windows of a profile on the sim's clock: relative to an origin
 * (sim start, or the last reset), like the outage windows. While one is in
 * force the engine makes no progress; work timed across one pauses for it.
 */
export class StallWindows {
  readonly #stalls: readonly SimStall[];
  readonly #now: () => number;
  #origin = 0;

  constructor(stalls: readonly SimStall[], now: () => number) {
    this.#stalls = [...stalls].sort((a, b) => a.start_ms - b.start_ms);
    this.#now = now;
    this.reset();
  }

  /** Windows count from now. */
  reset(): void {
    this.#origin = this.#now();
  }

  /** True when the profile has no stall at all. */
  get none(): boolean {
    return this.#stalls.length === 0;
  }

  /** The end (on the `now` clock) of the stall in force at `t`, or null when none is. */
  endAt(t: number = this.#now()): number | null {
    const rel = t - this.#origin;
    const w = this.#stalls.find((s) => rel >= s.start_ms && rel < s.end_ms);
    return w ? this.#origin + w.end_ms : null;
  }

  /**
   * When work of `ms` that starts at `start` is done, pausing through every
   * stall it meets (a stall in force at `start` delays the start).
   *
   * @example 100 ms of work from 0 through a stall at 50–250 ms ends at 300
   * ```ts
   * import assert from "node:assert/strict";
   * import { StallWindows } from "./stalls.ts";
   * const w = new StallWindows([{ start_ms: 50, end_ms: 250 }], () => 0);
   * assert.equal(w.advance(0, 100), 300); // 50 ms before, 200 ms paused, the other 50 ms after
   * assert.equal(w.advance(300, 100), 400);
   * ```
   */
  advance(start: number, ms: number): number {
    let t = start, left = ms;
    for (const s of this.#stalls) {
      const from = this.#origin + s.start_ms, to = this.#origin + s.end_ms;
      if (to <= t) continue;
      if (from >= t + left) break;
      if (from > t) left -= from - t;
      t = to;
    }
    return t + left;
  }

  /** Ends (on the `now` clock) of the stalls not over yet. */
  upcomingEnds(): number[] {
    const now = this.#now();
    return this.#stalls.map((s) => this.#origin + s.end_ms).filter((end) => end > now);
  }
}
