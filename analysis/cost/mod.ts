/**
 * Cost: the ledger (cost per accepted task, every line with its source),
 * price sheets and overhead sheets, the LiteLLM price map import, and the
 * self-hosted side (replica time from the server timeline, targets). The
 * `price_*` files each price one part of the ledger.
 *
 * Entry points: {@linkcode ledger} and its text form {@linkcode formatLedger},
 * {@linkcode loadPriceSheet}, {@linkcode loadOverheadSheet},
 * {@linkcode importLitellm}; the ledger split per request into variable
 * and fixed cost: {@linkcode requestCosts}.
 *
 * @module
 */
export * from "./ledger.ts";
export * from "./quality_ledger.ts";
export * from "./accepted_cost.ts";
export * from "./format_ledger.ts";
export * from "./price_sheet.ts";
export * from "./price_lines.ts";
export * from "./import_litellm.ts";
export * from "./request_costs.ts";
