/**
 * Shared helpers that are not part of the contract: the input check every CLI
 * reports with (`cli.ts`), each command's declaration, parser and help
 * (`command.ts`, `command_help.ts`), the seeded uniform
 * generator (`prng.ts`), the whole-row cut of a log CSV (`csv_rows.ts`), the one aligned text table
 * (`text_table.ts`) and the number formats every report uses (`number_format.ts`).
 * `runner/`, `sim/` and `analysis/` may all import `lib/` (they may not import
 * each other); `lib/` imports only `schema/` (test/boundaries_test.ts).
 *
 * @example A seeded generator repeats itself
 * ```ts
 * import assert from "node:assert/strict";
 * import { mulberry32 } from "./mod.ts";
 * assert.equal(mulberry32(3)(), mulberry32(3)());
 * ```
 * @module
 */
export * from "./cli.ts";
export * from "./command.ts";
export * from "./command_help.ts";
export * from "./csv_rows.ts";
export * from "./number_format.ts";
export * from "./prng.ts";
export * from "./text_table.ts";
