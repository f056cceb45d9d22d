/**
 * The judge's run-wide retry budget: at most ⌊share × items⌋ retries in one session, whatever each item's own
 * `--retries` would allow, so that a failing endpoint is not hammered.
 *
 * @module
 */

/**
 * Retries left to spend.
 *
 * @example A share of 0.2 over 12 items: ⌊2.4⌋ = 2 retries
 * ```ts
 * import { RetryBudget } from "./retry_budget.ts";
 * import assert from "node:assert/strict";
 * const b = new RetryBudget(0.2, 12);
 * assert.deepEqual([b.take(), b.take(), b.take()], [true, true, false]);
 * assert.equal(b.spent, 2);
 * ```
 */
export class RetryBudget {
  /** The retries this budget allows. */
  readonly total: number;
  #spent = 0;

  constructor(share: number, items: number) {
    this.total = Math.floor(share * items + 1e-9);
  }

  /** Retries taken so far. */
  get spent(): number {
    return this.#spent;
  }

  /** Takes one retry: false when none is left. */
  take(): boolean {
    if (this.#spent >= this.total) return false;
    this.#spent++;
    return true;
  }
}
