/**
 * Aligned plain-text tables: the one helper every text report of the runner
 * and the analysis prints its tables with.
 *
 * @module
 */

/** Options of {@linkcode textTable}. */
export interface TextTableOptions {
  /** How many leading columns are left-aligned (labels); the others are right-aligned (numbers). @default every column */
  left?: number;
  /** Left-align the last column too, whatever `left` says (a trailing text column such as notes). @default false */
  lastLeft?: boolean;
}

/**
 * The lines of an aligned table: the head, then one line per row. Each
 * column is as wide as its widest cell (a missing cell counts as empty),
 * columns are two spaces apart and trailing spaces are trimmed.
 *
 * @example Labels left, numbers right
 * ```ts
 * import { textTable } from "./text_table.ts";
 * import assert from "node:assert/strict";
 * const lines = textTable(["route", "n", "rate"], [["hosted", "12", "0.5"], ["self", "3", "0.25"]], { left: 1 });
 * assert.deepEqual(lines, [
 *   "route    n  rate",
 *   "hosted  12   0.5",
 *   "self     3  0.25",
 * ]);
 * ```
 */
export function textTable(
  head: readonly string[],
  body: readonly (readonly string[])[],
  options: TextTableOptions = {},
): string[] {
  const left = options.left ?? head.length;
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells.map((c, i) =>
      i < left || (options.lastLeft && i === cells.length - 1) ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)
    ).join("  ").trimEnd();
  return [line(head), ...body.map(line)];
}
