import type { SimRateLimits } from "../schema/mod.ts";
import type { SimQuota } from "./dialects/dialect.ts";

/** Why a request was refused, and when it would fit. */
export interface RateLimitRefusal {
  /** The bucket that was short. */
  kind: "requests" | "tokens";
  /** Per-minute limit of that bucket. */
  limit: number;
  /** What that bucket holds now (whole units). */
  remaining: number;
  /** Until the request would fit; null when it never can (more tokens than the bucket holds). */
  retryAfterMs: number | null;
}

/** A bucket of `capacity` units refilled at `perMs` units per ms; it starts full. */
class Bucket {
  readonly capacity: number;
  readonly perMs: number;
  #level: number;
  #last: number;

  constructor(perMinute: number, windowS: number, now: number) {
    this.perMs = perMinute / 60_000;
    this.capacity = perMinute * windowS / 60;
    this.#level = this.capacity;
    this.#last = now;
  }

  level(now: number): number {
    this.#level = Math.min(this.capacity, this.#level + (now - this.#last) * this.perMs);
    this.#last = now;
    return this.#level;
  }

  take(n: number): void {
    this.#level -= n;
  }

  /** Until the bucket is full again, whole ms. */
  untilFull(now: number): number {
    return Math.max(0, Math.ceil((this.capacity - this.level(now)) / this.perMs));
  }
}

/**
 * The quota of a hosted API: a request bucket and a token bucket (prompt +
 * max_tokens per request, counted at arrival). A request is admitted only
 * when both hold enough, and then takes from both; otherwise neither
 * changes and the refusal says which was short and when it would fit.
 *
 * @example Two requests per minute, bucket of one minute: the third waits 30 s
 * ```ts
 * import { RateLimiter } from "./rate_limiter.ts";
 * import assert from "node:assert/strict";
 * let t = 0;
 * const rl = new RateLimiter({ requests_per_minute: 2, tokens_per_minute: null, window_s: 60 }, () => t);
 * assert.equal(rl.admit(10), null);
 * assert.equal(rl.admit(10), null);
 * assert.deepEqual(rl.admit(10), { kind: "requests", limit: 2, remaining: 0, retryAfterMs: 30_000 });
 * t = 30_000;
 * assert.equal(rl.admit(10), null);
 * ```
 */
export class RateLimiter {
  readonly #limits: SimRateLimits;
  readonly #now: () => number;
  #requests: Bucket | null = null;
  #tokens: Bucket | null = null;

  constructor(limits: SimRateLimits, now: () => number) {
    this.#limits = limits;
    this.#now = now;
    this.reset();
  }

  /** Both buckets full again (sim reset). */
  reset(): void {
    const t = this.#now(), l = this.#limits;
    this.#requests = l.requests_per_minute === null ? null : new Bucket(l.requests_per_minute, l.window_s, t);
    this.#tokens = l.tokens_per_minute === null ? null : new Bucket(l.tokens_per_minute, l.window_s, t);
  }

  /** Admits a request of `tokens` (prompt + max_tokens), or says why not. */
  admit(tokens: number): RateLimitRefusal | null {
    const t = this.#now();
    const r = this.#requests, k = this.#tokens;
    const rl = r ? r.level(t) : Infinity;
    const kl = k ? k.level(t) : Infinity;
    // A small epsilon so that float refill never leaves a bucket at 0.9999… of the unit it needs.
    if (r && rl < 1 - 1e-9) return refusal("requests", this.#limits.requests_per_minute!, rl, (1 - rl) / r.perMs);
    if (k && kl < tokens - 1e-9) {
      const wait = tokens > k.capacity ? null : (tokens - kl) / k.perMs;
      return refusal("tokens", this.#limits.tokens_per_minute!, kl, wait);
    }
    r?.take(1);
    k?.take(tokens);
    return null;
  }

  /**
   * The quota's state now, for the rate-limit headers of an answer: per-minute limits, what each bucket holds (whole
   * units) and until each is full again; a bucket the profile does not limit is all null.
   *
   * @example One request of a 60-per-minute quota taken: 59 left, full again in a second
   * ```ts
   * import { RateLimiter } from "./rate_limiter.ts";
   * import assert from "node:assert/strict";
   * const rl = new RateLimiter({ requests_per_minute: 60, tokens_per_minute: null, window_s: 60 }, () => 0);
   * rl.admit(10);
   * assert.deepEqual(rl.snapshot(), {
   *   limitRequests: 60, remainingRequests: 59, limitTokens: null, remainingTokens: null,
   *   resetMs: 1000, resetRequestsMs: 1000, resetTokensMs: null,
   * });
   * ```
   */
  snapshot(): SimQuota {
    const t = this.#now();
    const r = this.#requests, k = this.#tokens;
    const resetRequestsMs = r ? r.untilFull(t) : null;
    const resetTokensMs = k ? k.untilFull(t) : null;
    return {
      limitRequests: r ? this.#limits.requests_per_minute : null,
      remainingRequests: r ? Math.max(0, Math.floor(r.level(t))) : null,
      limitTokens: k ? this.#limits.tokens_per_minute : null,
      remainingTokens: k ? Math.max(0, Math.floor(k.level(t))) : null,
      resetMs: resetRequestsMs === null && resetTokensMs === null
        ? null
        : Math.max(resetRequestsMs ?? 0, resetTokensMs ?? 0),
      resetRequestsMs,
      resetTokensMs,
    };
  }
}

function refusal(
  kind: RateLimitRefusal["kind"],
  limit: number,
  level: number,
  waitMs: number | null,
): RateLimitRefusal {
  return {
    kind,
    limit,
    remaining: Math.max(0, Math.floor(level)),
    retryAfterMs: waitMs === null ? null : Math.ceil(waitMs),
  };
}
