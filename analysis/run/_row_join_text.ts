/**
 * What the readers say of rows that break the joins every figure relies on (analysis/run/_row_joins.ts for polars,
 * analysis/sql/_sql_checks.ts for the SQL path): one text for both, and no engine imported.
 *
 * @module
 */
import { InputError } from "../../schema/errors.ts";

/** The refusal of `n` attempt keys in more than one row of `where` (`examples`: up to five keys as JSON arrays). */
export function attemptTwiceError(path: string, n: number, where: string, examples: string): InputError {
  return new InputError(`${path}: an attempt in two rows`, [
    `${path}: ${n} attempts (request_id, round, attempt) appear in more than one row of ${where} (e.g. ${examples}): ` +
    "each attempt is one row, counted and priced once per row",
  ]);
}

/** What is said of `n` rows of `table` (in `file`) whose request_id no row of `requestsWhere` holds. */
export function orphansText(file: string, n: number, table: string, requestsWhere: string, examples: string): string {
  return `${file}: ${n} ${table} rows name a request_id that no row of ${requestsWhere} holds (e.g. ${examples})`;
}

/** The problem such rows are where they are refused. */
export const orphansProblem = (text: string): string =>
  `${text}: rows of a request the log does not hold belong to no figure`;

/** The refusal of rows without their request. */
export const orphansError = (path: string, problems: string[]): InputError =>
  new InputError(`${path}: rows without their request`, problems);
