/**
 * What an attempt row records of what the provider said about itself (contract 1.7): the service tier asked for and
 * the one served, and the rate limits read off the response head by the route's dialect
 * (runner/dialects/dialect.ts `ProviderLimits`).
 *
 * @module
 */
import type { AttemptRow, PROVIDER_SIGNAL_COLUMNS } from "../schema/mod.ts";
import { recordedServiceMode } from "../schema/service_mode.ts";
import type { ProviderLimits } from "./dialects/dialect.ts";

/** The attempt row's provider-signal columns. */
export type ProviderSignals = Pick<AttemptRow, typeof PROVIDER_SIGNAL_COLUMNS[number]>;

/** Nothing said: every provider-signal column null (an attempt that made no call, or a provider that says none). */
export const NO_PROVIDER_SIGNALS: Readonly<ProviderSignals> = Object.freeze({
  service_tier_requested: null,
  service_tier: null,
  rl_limit_requests: null,
  rl_remaining_requests: null,
  rl_limit_tokens: null,
  rl_remaining_tokens: null,
  rl_reset_requests_ms: null,
  rl_reset_tokens_ms: null,
});

/** A count the contract can hold (a non-negative safe integer), else null. */
const count = (n: number | null): number | null => n !== null && Number.isSafeInteger(n) && n >= 0 ? n : null;
/** A length of time the contract can hold (finite, not below 0), else null. */
const wait = (n: number | null): number | null => n !== null && Number.isFinite(n) && n >= 0 ? n : null;
/** The route's tier as recorded: null for none or an empty one (the route file's value, validated by its dialect). */
const tier = (s: string | null): string | null => s === null || s === "" ? null : s;

/**
 * The provider-signal columns of one attempt row: the limits its dialect read off the response head (null: none),
 * the tier the route asked for and the tier the answer says served it. A value the contract cannot hold (a
 * negative, fractional or non-finite count, a negative wait) is recorded as null — not stated — rather than
 * breaking the row, since the head is the target's untrusted input; a served tier that is not 1–64 of
 * `A-Z a-z 0-9 _ . : -` is recorded as `!malformed`, as a service mode is (schema/service_mode.ts).
 *
 * @example A head with request limits only, a route asking for `priority` served `default`
 * ```ts
 * import { providerSignals } from "./provider_signals.ts";
 * import assert from "node:assert/strict";
 * const s = providerSignals({
 *   limit_requests: 500, remaining_requests: 499, limit_tokens: null, remaining_tokens: -1,
 *   reset_requests_ms: 120, reset_tokens_ms: null,
 * }, "priority", "default");
 * assert.equal(s.rl_remaining_requests, 499);
 * assert.equal(s.rl_remaining_tokens, null);
 * assert.equal(s.service_tier, "default");
 * assert.equal(providerSignals(null, null, null).rl_limit_requests, null);
 * assert.equal(providerSignals(null, null, "a tier").service_tier, "!malformed");
 * ```
 */
export function providerSignals(
  limits: ProviderLimits | null,
  requested: string | null,
  served: string | null,
): ProviderSignals {
  return {
    service_tier_requested: tier(requested),
    service_tier: recordedServiceMode(served),
    rl_limit_requests: count(limits?.limit_requests ?? null),
    rl_remaining_requests: count(limits?.remaining_requests ?? null),
    rl_limit_tokens: count(limits?.limit_tokens ?? null),
    rl_remaining_tokens: count(limits?.remaining_tokens ?? null),
    rl_reset_requests_ms: wait(limits?.reset_requests_ms ?? null),
    rl_reset_tokens_ms: wait(limits?.reset_tokens_ms ?? null),
  };
}
