import type { HostedPrice, PriceFactor } from "../schema/prices.ts";
import type { LineBook } from "./price_lines.ts";

/** How a provider sees an attempt, for billing. */
export type ChargeCategory = "served" | "rejected" | "failed" | "cancelled";

/** error_kind values of attempts the client aborted (runner/watchdog.ts, transport `aborted`). */
const CANCELLED_KINDS = new Set(["attempt_timeout", "request_timeout", "idle_timeout", "run_stopped", "aborted"]);

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

/**
 * Prices the hosted attempts `rows` of one route: uncached input, cached
 * input and output tokens (each at its context tier and service tier), a
 * per-attempt fee, under `provider_or_gpu` for first attempts of a round
 * and `retries` for later ones. Attempts the sheet does not charge get a zero line with
 * their count, so they stay visible. Returns input + output tokens charged.
 */
export function priceHostedAttempts(
  book: LineBook,
  cols: AttemptColumns,
  rows: number[],
  route: string,
  price: HostedPrice,
  source: string,
): number {
  const tiers = [...price.context_tiers].sort((a, b) => b.above_input_tokens - a.above_input_tokens);
  const f = {
    input: tierFactor(price, "input"),
    cached_input: tierFactor(price, "cached_input"),
    output: tierFactor(price, "output"),
  };
  const tierName = price.service_tier === "standard" ? "" : `, ${price.service_tier} tier`;
  let tokens = 0;
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
    tokens += input + output;
    const tier = tiers.find((t) => input > t.above_input_tokens);
    const p = tier
      ? {
        in: tier.input_per_mtok,
        cached: tier.cached_input_per_mtok ?? tier.input_per_mtok,
        out: tier.output_per_mtok,
      }
      : {
        in: price.input_per_mtok,
        cached: price.cached_input_per_mtok ?? price.input_per_mtok,
        out: price.output_per_mtok,
      };
    const suffix = `${tier ? `, input above ${tier.above_input_tokens} tokens` : ""}${tierName}${
      cat === "served" ? "" : ` (${cat}, charged)`
    }`;
    const put = (detail: string, mtok: number, unitPrice: number) => {
      if (mtok > 0) {
        book.add({ item, route, detail: detail + suffix, unit: "Mtok", unit_price: unitPrice, source }, mtok, req);
      }
    };
    put("input tokens, uncached", (input - cached) / 1e6, p.in * f.input);
    put("input tokens, cached", cached / 1e6, p.cached * f.cached_input);
    put("output tokens", output / 1e6, p.out * f.output);
    if (price.per_request > 0) {
      book.add(
        { item, route, detail: `per-attempt fee${suffix}`, unit: "attempt", unit_price: price.per_request, source },
        1,
        req,
      );
    }
  }
  return tokens;
}
