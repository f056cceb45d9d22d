/**
 * The contract's CSV cell rule on the analysis side: from contract 1.2 on,
 * a string cell of a log CSV that starts with `'` stands for the value
 * without that one `'` (the writer escapes formula starts; see
 * schema/log_csv.ts `escapeCell`).
 *
 * @module
 */
import pl from "nodejs-polars";
import { CELL_ESCAPE, ESCAPED_CELLS_SINCE_MINOR } from "../../schema/log_csv.ts";

/** True when a log CSV of contract minor `minor` escapes its string cells. */
export function cellsEscaped(minor: number): boolean {
  return minor >= ESCAPED_CELLS_SINCE_MINOR;
}

/** `expr` (a string column read from a contract ≥ 1.2 CSV) with one leading `'` removed where there is one. */
export function unescapedCells(expr: pl.Expr): pl.Expr {
  return pl.when(expr.str.startsWith(CELL_ESCAPE)).then(expr.str.slice(1)).otherwise(expr);
}
