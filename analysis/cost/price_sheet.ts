import { loadJsonFile } from "../../schema/load.ts";
import { InputError } from "../../schema/errors.ts";
import { OverheadSheet, PriceSheet, type RoutePrice } from "../../schema/prices.ts";

/**
 * Reads and validates a price sheet (JSON, zod `PriceSheet`); every bad field
 * is reported at once in an {@linkcode InputError} naming the file.
 *
 * @example A missing file is an input error naming it
 * ```ts
 * import { loadPriceSheet } from "./price_sheet.ts";
 * import assert from "node:assert/strict";
 * await assert.rejects(() => loadPriceSheet("/nonexistent/prices.json"), /\/nonexistent\/prices.json/);
 * ```
 */
export function loadPriceSheet(file: string): Promise<PriceSheet> {
  return loadJsonFile(file, PriceSheet, "price sheet");
}

/** Reads and validates an overheads sheet (JSON, zod `OverheadSheet`). */
export function loadOverheadSheet(file: string): Promise<OverheadSheet> {
  return loadJsonFile(file, OverheadSheet, "overheads sheet");
}

/**
 * The price of a route: its own entry, else the sheet's `*` entry. A route
 * with neither is an input error naming the sheet.
 *
 * @example The `*` entry prices any route not named
 * ```ts
 * import { routePrice } from "./price_sheet.ts";
 * import assert from "node:assert/strict";
 * const sheet = { price_sheet_version: 1 as const, name: "s", currency: "USD", as_of: "2026-01-01", source: "x",
 *   notes: "", routes: { "*": { kind: "self_hosted" as const, gpu_type: "A", gpu_hour: 2, gpus_per_replica: 1,
 *   redundancy_replicas: 0, operations_per_hour: 0, fixed_replicas: null, gpu_time: "run" as const } } };
 * assert.equal(routePrice(sheet, "any").kind, "self_hosted");
 * ```
 */
export function routePrice(sheet: PriceSheet, route: string): RoutePrice {
  const p = sheet.routes[route] ?? sheet.routes["*"];
  if (!p) {
    throw new InputError(
      `price sheet "${sheet.name}" has no price for route "${route}" (routes: ${
        Object.keys(sheet.routes).join(", ")
      }); add routes.${route} or a "*" entry`,
    );
  }
  return p;
}

/** "source (as of date)" of a route's price, its own when stated, else the sheet's. */
export function priceSource(sheet: PriceSheet, price: RoutePrice): string {
  return `${sheet.name}: ${price.source ?? sheet.source} (as of ${price.as_of ?? sheet.as_of})`;
}
