/**
 * The engine that runs the SQL path: DuckDB, embedded (the npm package
 * `@duckdb/node-api`), in memory, reading the run's Parquet files where they
 * are. The only DuckDB-specific statements are here and in `views.ts`
 * (`read_parquet`); the queries themselves are portable (docs/sql.md).
 *
 * @module
 */
import { DuckDBInstance } from "@duckdb/node-api";
import type { DuckDBConnection } from "@duckdb/node-api";

/** Options of {@linkcode openEngine}. */
export interface EngineOptions {
  /** DuckDB's `memory_limit` (e.g. `"2GB"`): above it, joins and sorts spill to `tempDirectory`. @default DuckDB's: 80 % of RAM */
  memoryLimit?: string;
  /** DuckDB's `threads`. @default DuckDB's: every core */
  threads?: number;
  /** Where DuckDB spills. @default DuckDB's: `.tmp` under the working folder, created only when it spills */
  tempDirectory?: string;
}

/** A value of a result row: numbers (counts included), strings, booleans, null, or a list of them. */
export type SqlValue = number | string | boolean | null | SqlValue[];

/** A result row, column name → value. */
export type SqlRow = Record<string, SqlValue>;

/** An open DuckDB database and connection. */
export interface SqlEngine {
  /** Runs one statement and returns its rows (BIGINT and DECIMAL values as JavaScript numbers). */
  query(sql: string): Promise<SqlRow[]>;
  /** Runs statements that return nothing (view DDL, settings). */
  run(sql: string): Promise<void>;
  close(): void;
}

function toValue(v: unknown): SqlValue {
  if (v === null || v === undefined) return null;
  if (typeof v === "bigint") {
    if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < -BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new RangeError(`DuckDB returned ${v}, beyond the integers a JavaScript number holds exactly`);
    }
    return Number(v);
  }
  if (typeof v === "number" || typeof v === "string" || typeof v === "boolean") return v;
  if (Array.isArray(v)) return v.map(toValue);
  // DECIMAL values convert to a number through their text.
  return Number(String(v));
}

/**
 * Opens an in-memory DuckDB database with the given settings.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openEngine } from "./duckdb.ts";
 * const db = await openEngine({ threads: 1 });
 * assert.deepEqual(await db.query("SELECT 6 * 7 AS x"), [{ x: 42 }]);
 * db.close();
 * ```
 */
export async function openEngine(options: EngineOptions = {}): Promise<SqlEngine> {
  const settings: Record<string, string> = {};
  if (options.memoryLimit !== undefined) settings.memory_limit = options.memoryLimit;
  if (options.threads !== undefined) settings.threads = String(options.threads);
  if (options.tempDirectory !== undefined) settings.temp_directory = options.tempDirectory;
  const instance = await DuckDBInstance.create(":memory:", settings);
  const conn: DuckDBConnection = await instance.connect();
  return {
    async query(sql: string): Promise<SqlRow[]> {
      const reader = await conn.runAndReadAll(sql);
      return reader.getRowObjectsJS().map((r) =>
        Object.fromEntries(Object.entries(r).map(([k, v]) => [k, toValue(v)]))
      );
    },
    async run(sql: string): Promise<void> {
      await conn.run(sql);
    },
    close(): void {
      conn.closeSync();
      instance.closeSync();
    },
  };
}
