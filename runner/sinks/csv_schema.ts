import { join } from "node:path";
import type { TableName } from "../../schema/events.ts";
import { csvSchemaFile, csvSchemaText, type LogIdentity } from "../../schema/log_metadata.ts";

/** Options for {@linkcode writeCsvSchema}. */
export interface CsvSchemaOptions {
  /** The run the CSV belongs to: its run_id and epoch. */
  identity: LogIdentity;
}

/**
 * Writes the schema sidecar of `<dir>/<table>.csv`: `<dir>/<table>.schema.json`
 * (schema/log_metadata.ts `csvSchema`), so that pandas, DuckDB or polars
 * read the CSV with the contract's types instead of guessing them from the
 * rows. Replaces an existing sidecar; returns its path.
 *
 * @example The sidecar names every column's type
 * ```ts
 * import { writeCsvSchema } from "./csv_schema.ts";
 * import assert from "node:assert/strict";
 * const dir = Deno.makeTempDirSync();
 * const file = writeCsvSchema(dir, "tools", { identity: { run_id: "r", epoch_iso: "2026-01-01T00:00:00.000Z" } });
 * const s = JSON.parse(Deno.readTextFileSync(file));
 * assert.equal(s.run_id, "r");
 * assert.equal(s.duckdb_columns.ok, "BOOLEAN");
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export function writeCsvSchema(dir: string, table: TableName, options: CsvSchemaOptions): string {
  const file = join(dir, csvSchemaFile(table));
  Deno.writeTextFileSync(file, csvSchemaText(table, options.identity));
  return file;
}
