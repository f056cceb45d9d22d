import type { RetryPolicy } from "../schema/mod.ts";

/** What failed in one attempt, as the retry owner sees it. */
export interface AttemptFailure {
  /** HTTP status, or null for a transport failure or timeout. */
  status: number | null;
  /** `error_kind` of the attempt. */
  kind: string;
  /** Retry-After header value, if any. */
  retryAfter?: string | null;
}

/** The retry owner's verdict on a failed attempt. */
export type RetryDecision =
  | { retry: true; reason: string; backoffMs: number }
  | { retry: false; reason: string };

/** Kinds that are never retried: the request itself is wrong or not allowed. */
const NEVER_RETRY_KINDS = new Set(["invalid_request", "unauthorized", "forbidden", "validation"]);
/** Transport failures where the request did not reach the model or can be replayed under its idempotency key. */
const TRANSPORT_KINDS = new Set([
  "connect_refused",
  "connect_error",
  "connection_reset",
  "stream_cut",
  "attempt_timeout",
  "idle_timeout",
]);

/**
 * The single retry owner of a run: capped attempts, exponential backoff with
 * full jitter, a global budget (retries ≤ budget_min + budget_ratio × first
 * attempts), no retry on validation or authorization errors, and Retry-After
 * honoured when the server sends it.
 *
 * A retry is counted (and spent from the budget) only when its attempt is
 * sent: a positive decision reserves one unit of budget, {@link sent} turns
 * the reservation into a retry, {@link unsent} gives it back (the route's
 * limit held the attempt back, no call was made). A retry whose wait would
 * end at or past the request deadline is never granted: it spends no budget
 * and is counted in {@link pastDeadline}.
 */
export class RetryController {
  #firstAttempts = 0;
  #retries = 0;
  #reserved = 0;
  #exhausted = 0;
  #pastDeadline = 0;
  readonly policy: RetryPolicy;
  readonly #random: () => number;

  constructor(policy: RetryPolicy, random: () => number) {
    this.policy = policy;
    this.#random = random;
  }

  /** Counts a first attempt (it grows the budget). */
  noteFirstAttempt(): void {
    this.#firstAttempts++;
  }

  /** Retries whose attempt was sent. */
  get retries(): number {
    return this.#retries;
  }
  get budgetExhausted(): number {
    return this.#exhausted;
  }
  /** Retries refused because their wait would end at or past the request deadline. */
  get pastDeadline(): number {
    return this.#pastDeadline;
  }
  /** Retries the budget allows right now. */
  get budget(): number {
    return Math.floor(this.policy.budget_min + this.policy.budget_ratio * this.#firstAttempts);
  }

  /** The attempt of a granted retry was sent: its reservation becomes a retry. */
  sent(): void {
    if (this.#reserved > 0) this.#reserved--;
    this.#retries++;
  }

  /** The attempt of a granted retry was never sent: its reservation goes back to the budget. */
  unsent(): void {
    if (this.#reserved > 0) this.#reserved--;
  }

  /**
   * Decides whether attempt number `attempt` (1-based) that failed with
   * `failure` is retried; a positive decision reserves budget until the
   * retry is {@link sent} or {@link unsent}. `roomMs` is the time left
   * before the request deadline: a retry whose wait is not shorter than
   * it is refused with reason `retry_past_deadline` (before the budget is
   * consulted, so it neither spends budget nor counts as exhausting it).
   *
   * `fallback` names the trigger when the routing policy would send the
   * next attempt to another route: a fallback is a retry like any other
   * (it counts against `max_attempts` and the global budget, since it is
   * one more call a failing service causes) but it goes at once, with
   * reason `fallback:<trigger>`, whether or not the status is in
   * `retry_statuses`. Validation and authorization failures never fall back.
   */
  decide(
    failure: AttemptFailure,
    attempt: number,
    fallback: string | null = null,
    roomMs = Infinity,
  ): RetryDecision {
    const p = this.policy;
    if (NEVER_RETRY_KINDS.has(failure.kind)) return { retry: false, reason: "not_retryable" };
    if (fallback === null && !this.#retryable(failure)) return { retry: false, reason: "not_retryable" };
    if (attempt >= p.max_attempts) return { retry: false, reason: "max_attempts" };
    // The next route has its own capacity: the failed one's Retry-After and backoff do not apply to it.
    const reason = fallback !== null
      ? `fallback:${fallback}`
      : failure.status !== null
      ? `http_${failure.status}`
      : failure.kind;
    const backoffMs = fallback !== null ? 0 : this.#backoff(failure, attempt);
    if (backoffMs >= roomMs) {
      this.#pastDeadline++;
      return { retry: false, reason: "retry_past_deadline" };
    }
    if (this.#retries + this.#reserved >= this.budget) {
      this.#exhausted++;
      return { retry: false, reason: "retry_budget_exhausted" };
    }
    this.#reserved++;
    return { retry: true, reason, backoffMs };
  }

  #backoff(failure: AttemptFailure, attempt: number): number {
    const p = this.policy;
    const after = p.honour_retry_after ? parseRetryAfter(failure.retryAfter ?? null) : null;
    return after !== null ? Math.min(after, p.retry_after_cap_ms) : fullJitterBackoff(p, attempt, this.#random);
  }

  #retryable(f: AttemptFailure): boolean {
    if (f.status !== null) return this.policy.retry_statuses.includes(f.status);
    // Queued, not lost: sent again only when the policy says so (the retry would join the queue that held it).
    if (f.kind === "header_timeout") return this.policy.retry_header_timeouts;
    return this.policy.retry_transport_errors && TRANSPORT_KINDS.has(f.kind);
  }
}

/**
 * Full jitter: uniform in [0, min(cap, base · 2^(attempt−1))).
 *
 * @example The bound doubles per attempt up to the cap
 * ```ts
 * import { fullJitterBackoff } from "./retry.ts";
 * import assert from "node:assert/strict";
 * const p = { base_ms: 100, cap_ms: 300 };
 * assert.equal(fullJitterBackoff(p, 1, () => 0.999999), 99.9999);
 * assert.equal(fullJitterBackoff(p, 3, () => 0.5), 150);
 * ```
 */
export function fullJitterBackoff(
  policy: Pick<RetryPolicy, "base_ms" | "cap_ms">,
  attempt: number,
  random: () => number,
): number {
  const bound = Math.min(policy.cap_ms, policy.base_ms * 2 ** (attempt - 1));
  return random() * bound;
}

/**
 * Parses Retry-After (delta seconds or an HTTP date) into milliseconds;
 * null when absent or unreadable.
 *
 * @example
 * ```ts
 * import { parseRetryAfter } from "./retry.ts";
 * import assert from "node:assert/strict";
 * assert.equal(parseRetryAfter("2"), 2000);
 * assert.equal(parseRetryAfter(null), null);
 * assert.equal(parseRetryAfter("soon"), null);
 * ```
 */
export function parseRetryAfter(value: string | null, nowUnixMs = Date.now()): number | null {
  if (value === null || value.trim() === "") return null;
  const v = value.trim();
  if (/^-?\d+(\.\d+)?$/.test(v)) {
    // A negative value, or one too long to be a finite number of milliseconds, is not a usable delay.
    const ms = Number(v) * 1000;
    return v.startsWith("-") || !Number.isFinite(ms) ? null : ms;
  }
  // Otherwise only an HTTP-date (it names a weekday or month) is accepted.
  if (!/[a-z]/i.test(v)) return null;
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : Math.max(0, t - nowUnixMs);
}
