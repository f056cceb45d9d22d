/**
 * Shared helpers that are not part of the contract: the input check every CLI
 * reports with (`cli.ts`), each command's declaration, parser and help
 * (`command.ts`, `command_help.ts`), the seeded uniform
 * generator (`prng.ts`), the whole-row cut of a log CSV (`csv_rows.ts`), the one aligned text table
 * (`text_table.ts`), the number formats every report uses (`number_format.ts`), and the percentile rules the runner
 * and the analysis share: MLPerf LoadGen's early-stopping rule (`early_stopping.ts`, `percentile_checks.ts`) and when
 * the knee can test a percentile signal, so how long a plan's step must be (`percentile_support.ts`).
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
export * from "./early_stopping.ts";
export * from "./number_format.ts";
export * from "./percentile_checks.ts";
export * from "./percentile_support.ts";
export * from "./prng.ts";
export * from "./text_table.ts";
