import { basename } from "node:path";
import { InputError } from "../../schema/errors.ts";
import {
  type ChargePolicy,
  type ContextTier,
  type HostedPrice,
  type PriceFactor,
  PriceSheet,
} from "../../schema/prices.ts";
import { parseWith } from "../../schema/load.ts";

/** Options of {@linkcode importLitellm}. */
export interface LitellmImportOptions {
  /** Date of the snapshot (the map itself carries none); printed by every ledger. */
  as_of: string;
  /** Where the map came from (file path or URL): the sheet's source quotes a URL whole, a path by its file name only. */
  file: string;
  /** Route key in the sheet. @default "*" (prices every route) */
  route?: string;
  /** The tier to bill at: standard, batch, priority, flex. @default "standard" */
  service_tier?: string;
  /** Which failed attempts are billed; the map does not say. @default {rejected: false, failed: false, cancelled: true} */
  charge?: ChargePolicy;
}

const CHAT_MODES = ["chat", "completion", "responses"];

/** A URL as given; a local path by its file name only (a committed sheet must not name the importer's folders). */
function mapName(file: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(file) ? file : basename(file);
}
/**
 * Map fields this importer prices. Others are listed in the sheet's notes: costs the log has no count for (audio,
 * search, ...), 1-hour cache writes (`*_above_1hr`: the log does not tell them from 5-minute ones, so every write is
 * priced at `cache_creation_input_token_cost`), and tier variants of cache writes (a service tier's input factor
 * applies to them).
 */
const USED = [
  /^(input_cost_per_token|output_cost_per_token|cache_read_input_token_cost|output_cost_per_reasoning_token)$/,
  /^cache_creation_input_token_cost$/,
  /^input_cost_per_request$/,
  /^(input_cost_per_token|output_cost_per_token|cache_read_input_token_cost)_(batches|priority|flex)$/,
  /^(input_cost_per_token|output_cost_per_token|cache_read_input_token_cost|cache_creation_input_token_cost)_above_\d+k_tokens$/,
  /^tiered_pricing$/,
];
const DEFAULT_CHARGE: ChargePolicy = { rejected: false, failed: false, cancelled: true };

/** USD per token → USD per million tokens, without float dust (1.5e-7 × 1e6 = 0.15, not 0.15000000000000002). */
const perMtok = (v: number) => Number((v * 1e6).toPrecision(12));
const ratio = (a: number, b: number) => Number((a / b).toPrecision(10));

/**
 * Builds a price sheet for one model of the LiteLLM model price map
 * (`model_prices_and_context_window.json`). Fields read, per token:
 * `input_cost_per_token`, `cache_read_input_token_cost`,
 * `cache_creation_input_token_cost` (cache writes),
 * `output_cost_per_token`, `output_cost_per_reasoning_token`,
 * `input_cost_per_request`; the batch API from `*_cost_per_token_batches`
 * (as a discount), the `priority` and `flex` tiers from `*_priority` and
 * `*_flex` (as multipliers), context tiers from
 * `*_cost_per_token_above_<N>k_tokens` and `tiered_pricing` ranges. The
 * sheet names the map, the model key and the snapshot date.
 *
 * @example gpt-4o-mini's prices, per million tokens
 * ```ts
 * import { importLitellm } from "./import_litellm.ts";
 * import assert from "node:assert/strict";
 * const map = { "gpt-4o-mini": { litellm_provider: "openai", mode: "chat", input_cost_per_token: 1.5e-7,
 *   cache_read_input_token_cost: 7.5e-8, output_cost_per_token: 6e-7 } };
 * const sheet = importLitellm(map, "gpt-4o-mini", { as_of: "2026-07-24", file: "map.json" });
 * const p = sheet.routes["*"]!;
 * assert.ok(p.kind === "hosted" && p.input_per_mtok === 0.15 && p.cached_input_per_mtok === 0.075);
 * ```
 */
export function importLitellm(map: Record<string, unknown>, model: string, options: LitellmImportOptions): PriceSheet {
  const raw = map[model];
  if (raw === undefined || typeof raw !== "object" || raw === null) {
    const near = Object.keys(map).filter((k) => k.toLowerCase().includes(model.toLowerCase())).slice(0, 8);
    throw new InputError(`${options.file}: no model "${model}"${near.length ? ` (similar: ${near.join(", ")})` : ""}`);
  }
  const e = raw as Record<string, unknown>;
  const num = (k: string): number | null => (typeof e[k] === "number" ? e[k] as number : null);
  const where = `${options.file}: "${model}"`;
  if (typeof e.mode === "string" && !CHAT_MODES.includes(e.mode)) {
    throw new InputError(`${where}: mode is "${e.mode}", not a text-generation model (${CHAT_MODES.join(", ")})`);
  }
  const tiered = Array.isArray(e.tiered_pricing) ? e.tiered_pricing as Record<string, unknown>[] : [];
  const base = tiered.find((t) => Array.isArray(t.range) && t.range[0] === 0);
  const input = num("input_cost_per_token") ?? (base?.input_cost_per_token as number | undefined) ?? null;
  const output = num("output_cost_per_token") ?? (base?.output_cost_per_token as number | undefined) ?? null;
  if (input === null || output === null) {
    throw new InputError(
      `${where}: needs input_cost_per_token and output_cost_per_token (or a tiered_pricing range from 0)`,
    );
  }
  const cached = num("cache_read_input_token_cost") ?? (base?.cache_read_input_token_cost as number | undefined) ??
    null;
  const writes = num("cache_creation_input_token_cost") ??
    (base?.cache_creation_input_token_cost as number | undefined) ?? null;
  const reasoning = num("output_cost_per_reasoning_token") ??
    (base?.output_cost_per_reasoning_token as number | undefined) ?? null;
  const mtokOrNull = (v: unknown) => (typeof v === "number" ? perMtok(v) : null);
  const costFields = Object.keys(e).filter((k) => /cost/.test(k) || k === "tiered_pricing").sort();
  const used = costFields.filter((k) => USED.some((r) => r.test(k)));
  const unused = costFields.filter((k) => !used.includes(k));

  const factorOf = (suffix: string, invert: boolean): PriceFactor | null => {
    const i = num(`input_cost_per_token_${suffix}`), o = num(`output_cost_per_token_${suffix}`);
    if (i === null || o === null || input === 0 || output === 0) return null;
    const c = cached !== null && cached > 0 ? num(`cache_read_input_token_cost_${suffix}`) : null;
    const f = (a: number, b: number) => (invert ? Number((1 - a / b).toPrecision(10)) : ratio(a, b));
    const parts = {
      input: f(i, input),
      cached_input: c !== null && cached ? f(c, cached) : f(i, input),
      output: f(o, output),
    };
    return parts.input === parts.output && parts.cached_input === parts.input ? parts.input : parts;
  };
  const tier_multipliers: Record<string, PriceFactor> = {};
  for (const t of ["priority", "flex"]) {
    const f = factorOf(t, false);
    if (f !== null) tier_multipliers[t] = f;
  }

  const context_tiers: ContextTier[] = [];
  for (const k of Object.keys(e)) {
    const m = /^input_cost_per_token_above_(\d+)k_tokens$/.exec(k);
    const out = m && num(`output_cost_per_token_above_${m[1]}k_tokens`);
    if (!m || out === null || out === undefined) continue;
    const c = num(`cache_read_input_token_cost_above_${m[1]}k_tokens`);
    context_tiers.push({
      above_input_tokens: Number(m[1]) * 1000,
      input_per_mtok: perMtok(num(k)!),
      cached_input_per_mtok: c === null ? null : perMtok(c),
      output_per_mtok: perMtok(out),
      // The map has no reasoning price above a threshold: LiteLLM keeps the standard reasoning price there.
      reasoning_per_mtok: mtokOrNull(reasoning),
      cache_write_per_mtok: mtokOrNull(num(`cache_creation_input_token_cost_above_${m[1]}k_tokens`)),
    });
  }
  for (const t of tiered) {
    const lo = Array.isArray(t.range) ? Number(t.range[0]) : NaN;
    if (!(lo > 0) || typeof t.input_cost_per_token !== "number" || typeof t.output_cost_per_token !== "number") {
      continue;
    }
    context_tiers.push({
      above_input_tokens: lo,
      input_per_mtok: perMtok(t.input_cost_per_token),
      cached_input_per_mtok: mtokOrNull(t.cache_read_input_token_cost),
      output_per_mtok: perMtok(t.output_cost_per_token),
      // A tiered_pricing range without these falls back to its own output and input prices, as in LiteLLM.
      reasoning_per_mtok: mtokOrNull(t.output_cost_per_reasoning_token),
      cache_write_per_mtok: mtokOrNull(t.cache_creation_input_token_cost),
    });
  }
  context_tiers.sort((a, b) => a.above_input_tokens - b.above_input_tokens);

  const price: HostedPrice = {
    kind: "hosted",
    provider: typeof e.litellm_provider === "string" ? e.litellm_provider : null,
    model,
    input_per_mtok: perMtok(input),
    cached_input_per_mtok: cached === null ? null : perMtok(cached),
    output_per_mtok: perMtok(output),
    reasoning_per_mtok: mtokOrNull(reasoning),
    cache_write_per_mtok: mtokOrNull(writes),
    per_request: num("input_cost_per_request") ?? 0,
    context_tiers,
    service_tier: options.service_tier ?? "standard",
    batch_discount: factorOf("batches", true),
    tier_multipliers,
    tiers: {},
    charge: options.charge ?? DEFAULT_CHARGE,
  };
  const sheet = {
    price_sheet_version: 1,
    name: `litellm-${model.replaceAll("/", "_")}`,
    currency: "USD",
    as_of: options.as_of,
    source: `LiteLLM model price map (BerriAI, MIT licence), ${
      mapName(options.file)
    }, key "${model}", snapshot dated ${options.as_of}`,
    notes: `Imported by analysis/cli/import_prices.ts. Fields used: ${used.join(", ")}. ` +
      (unused.length
        ? `Cost fields not used (no count in the log, or 1-hour and tier variants of cache writes): ${
          unused.join(", ")
        }. `
        : "") +
      `Charge terms are not in the map: ${options.charge ? "given on the command line" : "assumed"} ` +
      `rejected=${price.charge.rejected}, failed=${price.charge.failed}, cancelled=${price.charge.cancelled}; check the provider's terms.`,
    routes: { [options.route ?? "*"]: price },
  };
  return parseWith(PriceSheet, sheet, where, "imported price sheet");
}
