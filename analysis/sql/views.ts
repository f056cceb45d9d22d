/**
 * The DuckDB views `requests` and `attempts` over a run's Parquet files: the
 * one DuckDB-specific part of the SQL path (`read_parquet`), where Spark or
 * Trino declare a table over the same files instead (docs/sql.md). Each view
 * has the contract's columns and types (schema/events.ts), whatever the
 * log's contract minor version: a column added after it reads as null,
 * `run_id` (attempts, since 1.3) as run.json's, and the epoch column (1.6)
 * as run.json `epoch_iso` + its anchor — as the polars reader does.
 *
 * @module
 */
import { type ColumnKind, columnSpecs } from "../../schema/column_kinds.ts";
import { COLUMNS, EPOCH_COLUMNS, epochMsOf } from "../../schema/events.ts";
import { sqlString } from "./_sql_text.ts";

/** The tables the SQL path reads. */
export const SQL_TABLES = ["requests", "attempts"] as const;
export type SqlTable = typeof SQL_TABLES[number];

/** The SQL type of each column kind. */
export const SQL_TYPE: Record<ColumnKind, string> = {
  int: "BIGINT",
  float: "DOUBLE",
  boolean: "BOOLEAN",
  string: "VARCHAR",
};

/** Where one run folder keeps one table, and what its files hold. */
export interface TableSource {
  /** A Parquet file (`…/requests.parquet`) or a glob over a hive-partitioned folder (`…/requests/**\/*.parquet`). */
  path: string;
  /** The folder is hive-partitioned (`key=value/` folders): the keys are columns, and override a file's own. */
  hive: boolean;
  /** The contract's columns the files (and partition keys) hold. */
  present: readonly string[];
  /** run.json `run_id` of the folder: a log that predates the column holds no other. */
  run_id: string;
  /** run.json `epoch_iso` of the folder: a log older than 1.6 gets its epoch column from it (+ the anchor). */
  epoch_iso: string;
}

/**
 * `read_parquet` of one source with the contract's columns, each cast to its type (missing ones null, but `run_id`
 * run.json's and the epoch column run.json `epoch_iso` + its anchor, as the polars reader reads them).
 */
function sourceSelect(table: SqlTable, s: TableSource): string {
  const epoch = EPOCH_COLUMNS[table];
  const cols = columnSpecs(table).map(({ name, kind }) => {
    const type = SQL_TYPE[kind];
    if (s.present.includes(name)) return `CAST(${name} AS ${type}) AS ${name}`;
    if (name === epoch.name) {
      return `CAST(${epochMsOf(s.epoch_iso)} AS DOUBLE) + CAST(${epoch.of} AS DOUBLE) AS ${name}`;
    }
    return name === "run_id" ? `${sqlString(s.run_id)} AS run_id` : `CAST(NULL AS ${type}) AS ${name}`;
  });
  return `SELECT ${cols.join(", ")}\nFROM read_parquet(${sqlString(s.path)}, hive_partitioning = ${
    s.hive ? "true" : "false"
  }, union_by_name = true)`;
}

/**
 * The DuckDB statement creating the view `table` over every folder's source
 * (one `read_parquet` each, appended with UNION ALL).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { viewSql } from "./views.ts";
 * const sql = viewSql("attempts", [
 *   { path: "run/attempts.parquet", hive: false, present: ["request_id"], run_id: "r1", epoch_iso: "2026-01-01T00:00:00Z" },
 * ]);
 * assert.match(sql, /^CREATE OR REPLACE VIEW attempts AS/);
 * assert.match(sql, /'r1' AS run_id/);
 * assert.match(sql, /CAST\(1767225600000 AS DOUBLE\) \+ CAST\(sent_ms AS DOUBLE\) AS sent_epoch_ms/);
 * ```
 */
export function viewSql(table: SqlTable, sources: readonly TableSource[]): string {
  if (!sources.length) throw new RangeError(`viewSql: no source for ${table}`);
  return `CREATE OR REPLACE VIEW ${table} AS\n${sources.map((s) => sourceSelect(table, s)).join("\nUNION ALL\n")}`;
}

/** The contract's columns of `table`, in file order. */
export const tableColumns = (table: SqlTable): readonly string[] => COLUMNS[table];
