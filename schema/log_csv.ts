/**
 * The cell rule of the log CSVs (contract 1.2): how a string cell is escaped
 * so that a spreadsheet shows it as text, and how a reader undoes it.
 *
 * @module
 */

/** The character prepended to a string cell that would otherwise start like a spreadsheet formula. */
export const CELL_ESCAPE = "'";

/** The contract minor version from which log CSVs escape their string cells (see {@linkcode escapeCell}). */
export const ESCAPED_CELLS_SINCE_MINOR = 2;

/** `=` `+` `-` `@` tab CR and the escape `'` itself, as char codes. */
const ESCAPED_STARTS = new Set([61, 43, 45, 64, 9, 13, 39]);

/**
 * The text a string cell of a log CSV holds (contract 1.2): a value whose
 * first character is `=`, `+`, `-`, `@`, a tab, a carriage return or `'`
 * gets one `'` in front, so a spreadsheet shows it as text instead of
 * running it as a formula; every other value (the empty string included)
 * is written as it is. Prefixing values that start with `'` too makes the
 * rule reversible for every string: {@linkcode unescapeCell} removes exactly
 * one leading `'`. Applied to string columns only: a number is never
 * prefixed (−5 is a number, not a formula).
 *
 * @example Formula starts and the escape itself are prefixed, the rest is kept
 * ```ts
 * import { escapeCell } from "./log_csv.ts";
 * import assert from "node:assert/strict";
 * assert.equal(escapeCell('=HYPERLINK("x")'), `'=HYPERLINK("x")`);
 * assert.equal(escapeCell("'quoted"), "''quoted");
 * assert.equal(escapeCell("stop"), "stop");
 * assert.equal(escapeCell(""), "");
 * ```
 */
export function escapeCell(value: string): string {
  return value.length > 0 && ESCAPED_STARTS.has(value.charCodeAt(0)) ? CELL_ESCAPE + value : value;
}

/**
 * The value a string cell of a contract ≥ 1.2 log CSV stands for: one
 * leading `'` removed, if there is one (the inverse of
 * {@linkcode escapeCell}). A reader of an older log (run.json
 * `schema_minor` below {@linkcode ESCAPED_CELLS_SINCE_MINOR}) keeps its
 * cells as they are: those logs were written without escaping.
 *
 * @example Every string survives escape then unescape
 * ```ts
 * import { escapeCell, unescapeCell } from "./log_csv.ts";
 * import assert from "node:assert/strict";
 * for (const s of ["=1+2", "+1", "-1", "@SUM(A1)", "\tx", "\rx", "'", "''x", "ok", ""]) {
 *   assert.equal(unescapeCell(escapeCell(s)), s);
 * }
 * assert.equal(unescapeCell("'=1"), "=1");
 * ```
 */
export function unescapeCell(cell: string): string {
  return cell.charCodeAt(0) === 39 ? cell.slice(1) : cell;
}
