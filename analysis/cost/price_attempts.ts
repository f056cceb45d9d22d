import type { HostedPrice, PriceFactor } from "../../schema/prices.ts";
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
}

/** What {@linkcode priceHostedAttempts} charged. */
export interface HostedCharge {
  /** Input + output tokens of the charged attempts. */
  tokens: number;
  /** Charged attempts whose tokens this count would have split but that have none (null), by count. */
  not_reported: { reasoning: number; cache_write: number };
  /** Charged attempts whose tokens the count applies to (output > 0, resp. uncached input > 0). */
  applicable: { reasoning: number; cache_write: number };
}

type Component = "input" | "cached_input" | "output";

function part(f: PriceFactor, c: Component): number {
  return typeof f === "number" ? f : f[c];
}

/** The service tier's factor on each token kind. */
export function tierFactor(price: HostedPrice, c: Component): number {
  if (price.service_tier === "standard") return 1;
  if (price.service_tier === "batch" && price.batch_discount !== null) return 1 - part(price.batch_discount, c);
  const m = price.tier_multipliers[price.service_tier];
  // The schema refuses an unknown tier; this guards a sheet built in code.
  if (m === undefined) throw new TypeError(`service tier "${price.service_tier}" is not priced`);
  return part(m, c);
}

/** Whether a route's sheet prices reasoning tokens, resp. cache writes, apart (base price or a context tier's). */
export function pricedApart(price: HostedPrice): { reasoning: boolean; cache_write: boolean } {
  const tiers = price.context_tiers;
  return {
    reasoning: price.reasoning_per_mtok !== null || tiers.some((t) => t.reasoning_per_mtok !== null),
    cache_write: price.cache_write_per_mtok !== null || tiers.some((t) => t.cache_write_per_mtok !== null),
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
  const tiers = [...price.context_tiers].sort((a, b) => b.above_input_tokens - a.above_input_tokens);
  const f = {
    input: tierFactor(price, "input"),
    cached_input: tierFactor(price, "cached_input"),
    output: tierFactor(price, "output"),
  };
  const apart = pricedApart(price);
  const tierName = price.service_tier === "standard" ? "" : `, ${price.service_tier} tier`;
  const out: HostedCharge = {
    tokens: 0,
    not_reported: { reasoning: 0, cache_write: 0 },
    applicable: { reasoning: 0, cache_write: 0 },
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
    const tier = tiers.find((t) => input > t.above_input_tokens);
    const p = tier
      ? {
        in: tier.input_per_mtok,
        cached: tier.cached_input_per_mtok ?? tier.input_per_mtok,
        out: tier.output_per_mtok,
        reasoning: tier.reasoning_per_mtok ?? tier.output_per_mtok,
        write: tier.cache_write_per_mtok ?? tier.input_per_mtok,
      }
      : {
        in: price.input_per_mtok,
        cached: price.cached_input_per_mtok ?? price.input_per_mtok,
        out: price.output_per_mtok,
        reasoning: price.reasoning_per_mtok ?? price.output_per_mtok,
        write: price.cache_write_per_mtok ?? price.input_per_mtok,
      };
    const suffix = `${tier ? `, input above ${tier.above_input_tokens} tokens` : ""}${tierName}${
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
