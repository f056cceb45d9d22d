/**
 * SQL literals written so that DuckDB, Spark SQL and Trino read the same
 * value: strings with doubled quotes, floats as DOUBLE literals (with an
 * exponent: a plain `0.1` is a DECIMAL in all three), percentile fractions as
 * exact decimals (the percentile's rank is then exact integer arithmetic).
 *
 * @module
 */

/** A string literal: single quotes, a quote inside doubled (the SQL standard; all three engines). */
export function sqlString(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

/**
 * A DOUBLE literal of a finite number, exactly that double: JavaScript's
 * shortest round-trip digits with an exponent (`1500E0`, `0.1E0`, `1e-7`),
 * which all three engines read as DOUBLE, not DECIMAL.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sqlDouble } from "./_sql_text.ts";
 * assert.equal(sqlDouble(1500), "1500E0");
 * assert.equal(sqlDouble(0.1), "0.1E0");
 * ```
 */
export function sqlDouble(x: number): string {
  if (!Number.isFinite(x)) throw new RangeError(`sqlDouble: ${x} is not finite`);
  const t = String(Object.is(x, -0) ? 0 : x);
  return /e/i.test(t) ? t.replace("e", "E") : `${t}E0`;
}

/** A DOUBLE literal, or a typed NULL for a missing value. */
export function sqlDoubleOrNull(x: number | null | undefined): string {
  return x === null || x === undefined ? "CAST(NULL AS DOUBLE)" : sqlDouble(x);
}

/**
 * A percentile fraction in (0, 1] as an exact decimal literal (`0.95`), never
 * with an exponent: DuckDB then computes the rank ⌈p·n⌉ in integer arithmetic
 * (a DOUBLE fraction would round, e.g. 0.07 · 100 → rank 8).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sqlFraction } from "./_sql_text.ts";
 * assert.equal(sqlFraction(0.95), "0.95");
 * assert.equal(sqlFraction(1), "1.0");
 * ```
 */
export function sqlFraction(p: number): string {
  if (!(p > 0 && p <= 1)) throw new RangeError(`sqlFraction: a percentile must be in (0, 1], got ${p}`);
  const t = p === 1 ? "1.0" : String(p);
  if (!/^0\.\d{1,15}$|^1\.0$/.test(t)) {
    throw new RangeError(`sqlFraction: ${p} has no short decimal form (at most 15 decimals)`);
  }
  return t;
}

/** A boolean literal. */
export const sqlBool = (b: boolean): string => (b ? "TRUE" : "FALSE");

/** `name AS (body)` lines of a WITH clause, indented. */
export function withClause(ctes: readonly [string, string][]): string {
  return `WITH\n${ctes.map(([name, body]) => `${name} AS (\n${indent(body)}\n)`).join(",\n")}`;
}

/** Every line indented by two spaces. */
export function indent(text: string): string {
  return text.split("\n").map((l) => (l ? `  ${l}` : l)).join("\n");
}
