/**
 * The functions the portable queries (goodput, percentiles, sweep) may call,
 * each with its spelling in DuckDB, Spark SQL and Trino: the allow-list that
 * docs/sql.md prints and test/analysis/sql/portability_test.ts holds the SQL
 * text to (a function outside it fails the test).
 *
 * @module
 */

/** One function of the allow-list. */
export interface SqlFunction {
  /** The name as the queries write it. */
  name: string;
  duckdb: string;
  spark: string;
  trino: string;
}

/** The allow-list, in the order docs/sql.md shows it. */
export const SQL_FUNCTIONS: readonly SqlFunction[] = [
  { name: "COUNT", duckdb: "COUNT", spark: "COUNT", trino: "COUNT" },
  { name: "SUM", duckdb: "SUM (also as a window function)", spark: "SUM", trino: "SUM" },
  { name: "COALESCE", duckdb: "COALESCE", spark: "COALESCE", trino: "COALESCE" },
  {
    name: "CAST",
    duckdb: "CAST(x AS BIGINT, DOUBLE, BOOLEAN or VARCHAR)",
    spark: "CAST(x AS BIGINT, DOUBLE, BOOLEAN or STRING): VARCHAR needs a length in Spark, write STRING",
    trino: "CAST(x AS BIGINT, DOUBLE, BOOLEAN or VARCHAR)",
  },
  {
    name: "POSITION",
    duckdb: "POSITION(s IN t)",
    spark: "POSITION(s IN t)",
    trino: "POSITION(s IN t)",
  },
  {
    name: "max_by",
    duckdb: "max_by (= arg_max; skips rows whose value is NULL: the queries pass non-null codes)",
    spark: "max_by",
    trino: "max_by",
  },
  {
    name: "percentile_disc",
    duckdb: "percentile_disc(p) WITHIN GROUP (ORDER BY x) (= quantile_disc(x, p); rank ⌈p·n⌉ in exact decimal " +
      "arithmetic when p is a decimal literal)",
    spark: "percentile_disc(p) WITHIN GROUP (ORDER BY x) (Spark ≥ 3.4; its rank is ⌈p·n⌉ in DOUBLE arithmetic)",
    trino: "none exact (approx_percentile is an estimate): element_at(array_sort(array_agg(x) FILTER (WHERE x IS " +
      "NOT NULL)), k) with k = ⌈p·n⌉ from integer arithmetic",
  },
  { name: "GROUPING", duckdb: "GROUPING", spark: "grouping", trino: "grouping" },
];

/** The names of the allow-list, upper-cased (SQL function names are case-insensitive in all three). */
export const ALLOWED_FUNCTION_NAMES: ReadonlySet<string> = new Set(SQL_FUNCTIONS.map((f) => f.name.toUpperCase()));
