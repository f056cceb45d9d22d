import type { ContextTier, HostedPrice, PriceFactor } from "../../schema/prices.ts";
import type { LineBook } from "./price_lines.ts";

/** How a provider sees an attempt, for billing. */
export type ChargeCategory = "served" | "rejected" | "failed" | "cancelled";

/** error_kind values of attempts the client aborted (runner/watchdog.ts, transport `aborted`). */
const CANCELLED_KINDS = new Set([
  "attempt_timeout",
  "request_timeout",
  "header_timeout",
  "idle_timeout",
  "run_stopped",
  "aborted",
]);

/**
 * The billing category of an attempt: `rejected` for HTTP 429, `cancelled`
 * when the client aborted it, `served` for any other 2xx (an answer the
 * provider produced, even if it failed our checks), else `failed`.
 *
 * @example
 * ```ts
 * import { attemptCategory } from "./price_attempts.ts";
 * import assert from "node:assert/strict";
 * assert.equal(attemptCategory(429, "http_429"), "rejected");
 * assert.equal(attemptCategory(200, "idle_timeout"), "cancelled");
 * assert.equal(attemptCategory(200, "malformed_sse"), "served");
 * assert.equal(attemptCategory(null, "connect_refused"), "failed");
 * ```
 */
export function attemptCategory(status: number | null, errorKind: string | null): ChargeCategory {
  if (status === 429) return "rejected";
  if (errorKind !== null && CANCELLED_KINDS.has(errorKind)) return "cancelled";
  if (status !== null && status >= 200 && status < 300) return "served";
  return "failed";
}

/** The attempts table of the window as plain columns; `req` is each attempt's request index. */
export interface AttemptColumns {
  req: Int32Array;
  route: string[];
  model: string[];
  /** A later attempt of its request's round (retry or fallback). */
  retry: boolean[];
  http_status: (number | null)[];
  error_kind: (string | null)[];
  input: number[];
  cached: number[];
  output: number[];
  /** Reasoning tokens (part of output; null: not reported by the target, or a contract 1.0 log). */
  reasoning: (number | null)[];
  /** Prompt-cache write tokens (part of input; null: not reported, or a contract 1.0 log). */
  cache_write: (number | null)[];
  /** The service tier the answer says served the attempt (null: not stated, or a log before contract 1.7). */
  service_tier: (string | null)[];
}

/** What {@linkcode priceHostedAttempts} charged. */
export interface HostedCharge {
  /** Input + output tokens of the charged attempts. */
  tokens: number;
  /** Charged attempts whose tokens this count would have split but that have none (null), by count. */
  not_reported: { reasoning: number; cache_write: number };
  /** Charged attempts whose tokens the count applies to (output > 0, resp. uncached input > 0). */
  applicable: { reasoning: number; cache_write: number };
  /** Charged attempts by the tier prices that applied ({@linkcode TierPricing} `applied`), in first-seen order. */
  tiers: Record<string, number>;
}

type Component = "input" | "cached_input" | "output";

function part(f: PriceFactor, c: Component): number {
  return typeof f === "number" ? f : f[c];
}

/** The service tier's factor on each token kind (`tier`: the sheet's `service_tier` unless given). */
export function tierFactor(price: HostedPrice, c: Component, tier: string = price.service_tier): number {
  if (tier === "standard") return 1;
  if (tier === "batch" && price.batch_discount !== null) return 1 - part(price.batch_discount, c);
  const m = price.tier_multipliers[tier];
  // The schema refuses an unknown tier; this guards a sheet built in code.
  if (m === undefined) throw new TypeError(`service tier "${tier}" is not priced`);
  return part(m, c);
}

/** The prices one attempt is billed at, chosen by its service tier. */
export interface TierPricing {
  /**
   * What applied, as the disclosure counts it: `<tier>: <prices>`, the tier being the one the answer says served the
   * attempt (`served <tier>`) or, when it says none, the sheet's (`sheet <tier>`), and the prices `base prices`,
   * `tiers.<tier>`, `tier_multipliers.<tier>`, `batch_discount` or `base prices (not on the sheet)`.
   */
  applied: string;
  /** What each ledger line of the attempt adds to its detail: "" at the standard tier. */
  suffix: string;
  /** The token prices before the factor, and the context tiers (highest threshold first). */
  base: Pick<
    ContextTier,
    "input_per_mtok" | "cached_input_per_mtok" | "output_per_mtok" | "reasoning_per_mtok" | "cache_write_per_mtok"
  >;
  context_tiers: ContextTier[];
  factor: Record<Component, number>;
}

/**
 * The prices of an attempt served at `served` (null: the answer did not say; the sheet's `service_tier` applies): a
 * tier of `tiers` by its own prices, `standard` at the base prices, `batch` and a tier of `tier_multipliers` at the
 * base prices times their factor, any other served tier at the base prices (named as not on the sheet).
 *
 * @example
 * ```ts
 * import { tierPricing } from "./price_attempts.ts";
 * import { HostedPrice } from "../../schema/prices.ts";
 * import assert from "node:assert/strict";
 * const price = HostedPrice.parse({
 *   kind: "hosted", input_per_mtok: 2, output_per_mtok: 8, tier_multipliers: { flex: 0.5 },
 *   tiers: { priority: { input_per_mtok: 3.5, output_per_mtok: 14 } },
 *   charge: { rejected: false, failed: false, cancelled: false },
 * });
 * assert.equal(tierPricing(price, "priority").base.input_per_mtok, 3.5);
 * assert.equal(tierPricing(price, "priority").applied, "served priority: tiers.priority");
 * assert.equal(tierPricing(price, "flex").factor.output, 0.5);
 * assert.equal(tierPricing(price, null).applied, "sheet standard: base prices");
 * assert.equal(tierPricing(price, "default").applied, "served default: base prices (not on the sheet)");
 * ```
 */
export function tierPricing(price: HostedPrice, served: string | null): TierPricing {
  const t = served ?? price.service_tier;
  const who = `${served === null ? "sheet" : "served"} ${t}`;
  const byThreshold = (tiers: ContextTier[]) => [...tiers].sort((a, b) => b.above_input_tokens - a.above_input_tokens);
  const own = Object.hasOwn(price.tiers, t) ? price.tiers[t]! : null;
  if (own) {
    return {
      applied: `${who}: tiers.${t}`,
      suffix: `, ${t} tier`,
      base: own,
      context_tiers: byThreshold(own.context_tiers),
      factor: { input: 1, cached_input: 1, output: 1 },
    };
  }
  const onSheet = t === "standard" || (t === "batch" && price.batch_discount !== null) ||
    Object.hasOwn(price.tier_multipliers, t);
  const how = t === "standard"
    ? "base prices"
    : !onSheet
    ? "base prices (not on the sheet)"
    : t === "batch"
    ? "batch_discount"
    : `tier_multipliers.${t}`;
  const factor = (c: Component) => (onSheet ? tierFactor(price, c, t) : 1);
  return {
    applied: `${who}: ${how}`,
    suffix: t === "standard" ? "" : onSheet ? `, ${t} tier` : `, ${t} tier (not on the sheet: base prices)`,
    base: price,
    context_tiers: byThreshold(price.context_tiers),
    factor: { input: factor("input"), cached_input: factor("cached_input"), output: factor("output") },
  };
}

/**
 * Whether a route's sheet prices reasoning tokens, resp. cache writes, apart (base price, a service tier's of `tiers`,
 * or a context tier's of either).
 */
export function pricedApart(price: HostedPrice): { reasoning: boolean; cache_write: boolean } {
  const sets = [price, ...Object.values(price.tiers)];
  const all = [...sets, ...sets.flatMap((p) => p.context_tiers)];
  return {
    reasoning: all.some((t) => t.reasoning_per_mtok !== null),
    cache_write: all.some((t) => t.cache_write_per_mtok !== null),
  };
}

/** Line details of tokens whose split count the target did not report. */
export const NOT_REPORTED = {
  reasoning: "output tokens, reasoning not reported by the target (all at the output price)",
  cache_write: "input tokens, uncached, cache writes not reported by the target (all at the input price)",
} as const;

/**
 * Prices the hosted attempts `rows` of one route: uncached input, cached
 * input and output tokens (each at its context tier and service tier), a
 * per-attempt fee, under `provider_or_gpu` for first attempts of a round
 * and `retries` for later ones. Attempts the sheet does not charge get a zero line with
 * their count, so they stay visible.
 *
 * When the sheet prices reasoning tokens apart (`reasoning_per_mtok`), an
 * attempt's reasoning tokens, which are part of its output tokens, are billed
 * at that price and the rest of its output at the output price — each token
 * once. Likewise cache writes (`cache_write_per_mtok`), part of the input:
 * uncached input = input − cached − cache writes. An attempt whose count is
 * null (not reported) is billed wholly at the output (input) price on a line
 * that says so, and counted in `not_reported`.
 */
export function priceHostedAttempts(
  book: LineBook,
  cols: AttemptColumns,
  rows: number[],
  route: string,
  price: HostedPrice,
  source: string,
): HostedCharge {
  const apart = pricedApart(price);
  const pricing = new Map<string | null, TierPricing>();
  const out: HostedCharge = {
    tokens: 0,
    not_reported: { reasoning: 0, cache_write: 0 },
    applicable: { reasoning: 0, cache_write: 0 },
    tiers: {},
  };
  for (const i of rows) {
    const req = cols.req[i]!;
    const item = cols.retry[i] ? "retries" : "provider_or_gpu";
    const cat = attemptCategory(cols.http_status[i]!, cols.error_kind[i]!);
    if (cat !== "served" && !price.charge[cat]) {
      const detail = `${cat} attempts, not charged (charge.${cat} = false)`;
      book.add({ item, route, detail, unit: "attempt", unit_price: 0, source }, 1, req);
      continue;
    }
    const input = cols.input[i]!, cached = Math.min(cols.cached[i]!, input), output = cols.output[i]!;
    const writes = cols.cache_write[i] ?? null, reasoning = cols.reasoning[i] ?? null;
    out.tokens += input + output;
    const served = cols.service_tier[i] ?? null;
    let tp = pricing.get(served);
    if (!tp) pricing.set(served, tp = tierPricing(price, served));
    out.tiers[tp.applied] = (out.tiers[tp.applied] ?? 0) + 1;
    const f = tp.factor;
    const tier = tp.context_tiers.find((t) => input > t.above_input_tokens);
    const b = tier ?? tp.base;
    const p = {
      in: b.input_per_mtok,
      cached: b.cached_input_per_mtok ?? b.input_per_mtok,
      out: b.output_per_mtok,
      reasoning: b.reasoning_per_mtok ?? b.output_per_mtok,
      write: b.cache_write_per_mtok ?? b.input_per_mtok,
    };
    const suffix = `${tier ? `, input above ${tier.above_input_tokens} tokens` : ""}${tp.suffix}${
      cat === "served" ? "" : ` (${cat}, charged)`
    }`;
    const put = (detail: string, mtok: number, unitPrice: number) => {
      if (mtok > 0) {
        book.add({ item, route, detail: detail + suffix, unit: "Mtok", unit_price: unitPrice, source }, mtok, req);
      }
    };
    const uncached = input - cached;
    if (!apart.cache_write) put("input tokens, uncached", uncached / 1e6, p.in * f.input);
    else {
      if (uncached > 0) out.applicable.cache_write++;
      if (writes === null) {
        if (uncached > 0) out.not_reported.cache_write++;
        put(NOT_REPORTED.cache_write, uncached / 1e6, p.in * f.input);
      } else {
        const w = Math.min(writes, uncached);
        put("input tokens, uncached", (uncached - w) / 1e6, p.in * f.input);
        put("input tokens, cache writes", w / 1e6, p.write * f.input);
      }
    }
    put("input tokens, cached", cached / 1e6, p.cached * f.cached_input);
    if (!apart.reasoning) put("output tokens", output / 1e6, p.out * f.output);
    else {
      if (output > 0) out.applicable.reasoning++;
      if (reasoning === null) {
        if (output > 0) out.not_reported.reasoning++;
        put(NOT_REPORTED.reasoning, output / 1e6, p.out * f.output);
      } else {
        const r = Math.min(reasoning, output);
        put("output tokens, excluding reasoning", (output - r) / 1e6, p.out * f.output);
        put("reasoning tokens (part of output tokens)", r / 1e6, p.reasoning * f.output);
      }
    }
    if (price.per_request > 0) {
      book.add(
        { item, route, detail: `per-attempt fee${suffix}`, unit: "attempt", unit_price: price.per_request, source },
        1,
        req,
      );
    }
  }
  return out;
}
