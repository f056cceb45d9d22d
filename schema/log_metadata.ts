/**
 * What a log file says about itself (contract 1.3), so that it can be read
 * without run.json: the key-value metadata of each Parquet file and the
 * schema sidecar `<table>.schema.json` beside each CSV. Both come from the
 * zod row schemas (`column_kinds.ts`), like the files they describe.
 *
 * @module
 */
import { type ColumnKind, columnSpecs, numericBounds } from "./column_kinds.ts";
import type { TableName, TimeUnit } from "./events.ts";
import { SCHEMA_MINOR, SCHEMA_VERSION } from "./version.ts";

/** The run a log file belongs to: the run.json fields that a reader of the file alone needs. */
export interface LogIdentity {
  /** run.json `run_id` (every row of the file holds it too). */
  run_id: string;
  /** run.json `epoch_iso`: the ISO instant of ms 0, which every `ms since epoch_iso` column counts from. */
  epoch_iso: string;
}

/** The prefix of every key this toolkit writes to a Parquet file's key-value metadata. */
export const METADATA_PREFIX = "accepted_goodput.";

/** The file name of a log CSV's schema sidecar. */
export function csvSchemaFile(table: TableName): string {
  return `${table}.schema.json`;
}

/** The unit of every time column of a table, in file order: `ms since epoch_iso` (an instant) or `ms` (a duration). */
export function timeUnits(table: TableName): Record<string, TimeUnit> {
  const out: Record<string, TimeUnit> = {};
  for (const c of columnSpecs(table)) if (c.unit !== null) out[c.name] = c.unit;
  return out;
}

/** The description shared by the Parquet metadata and the CSV sidecar. */
export interface LogDescription extends LogIdentity {
  /** The contract's major version (`1`). */
  schema_version: string;
  /** The contract version the file was written under (`1.3`). */
  contract: string;
  table: TableName;
  /** Time column → `ms since epoch_iso` (an instant) or `ms` (a duration). */
  time_units: Record<string, TimeUnit>;
}

function describe(table: TableName, id: LogIdentity): LogDescription {
  return {
    schema_version: String(SCHEMA_VERSION),
    contract: `${SCHEMA_VERSION}.${SCHEMA_MINOR}`,
    table,
    run_id: id.run_id,
    epoch_iso: id.epoch_iso,
    time_units: timeUnits(table),
  };
}

/**
 * The key-value metadata of a Parquet log file: `accepted_goodput.` +
 * `schema_version` (the major version), `contract` (`1.3`), `table`,
 * `run_id`, `epoch_iso`, and `time_units` (a JSON object: time column →
 * `ms since epoch_iso` or `ms`). Values are strings, as Parquet requires.
 *
 * @example The epoch and the unit of each time column travel with the file
 * ```ts
 * import { parquetMetadata } from "./log_metadata.ts";
 * import assert from "node:assert/strict";
 * const kv = new Map(parquetMetadata("tools", { run_id: "r", epoch_iso: "2026-01-01T00:00:00.000Z" })
 *   .map((e) => [e.key, e.value]));
 * assert.equal(kv.get("accepted_goodput.run_id"), "r");
 * assert.equal(kv.get("accepted_goodput.epoch_iso"), "2026-01-01T00:00:00.000Z");
 * assert.deepEqual(JSON.parse(kv.get("accepted_goodput.time_units")!), {
 *   started_ms: "ms since epoch_iso",
 *   ended_ms: "ms since epoch_iso",
 *   started_epoch_ms: "ms since 1970-01-01T00:00:00Z",
 * });
 * ```
 */
export function parquetMetadata(table: TableName, id: LogIdentity): { key: string; value: string }[] {
  return Object.entries(describe(table, id)).map(([k, v]) => ({
    key: METADATA_PREFIX + k,
    value: typeof v === "string" ? v : JSON.stringify(v),
  }));
}

/** Per column kind: the Table Schema type and the dtype each reader is told. */
const TYPES: Record<ColumnKind, { type: string; pandas: string; duckdb: string; polars: string }> = {
  string: { type: "string", pandas: "string", duckdb: "VARCHAR", polars: "String" },
  // pandas: its nullable dtypes (numpy's int64 cannot hold a null), as read_parquet(dtype_backend="numpy_nullable") gives.
  int: { type: "integer", pandas: "Int64", duckdb: "BIGINT", polars: "Int64" },
  float: { type: "number", pandas: "Float64", duckdb: "DOUBLE", polars: "Float64" },
  boolean: { type: "boolean", pandas: "boolean", duckdb: "BOOLEAN", polars: "Boolean" },
};

/** One field of a CSV schema sidecar (a Frictionless Table Schema field, plus the time unit). */
export interface CsvSchemaField {
  name: string;
  type: string;
  /** `required`: a never-null column; `minimum`: the least value the contract allows (absent: none). */
  constraints: { required: boolean; minimum?: number };
  unit?: TimeUnit;
}

/** The content of a log CSV's schema sidecar `<table>.schema.json`: see {@linkcode csvSchema}. */
export interface CsvSchema extends LogDescription {
  /** What a reader does with the cells (read by people; the maps below already follow it). */
  cells: string;
  /** Frictionless Table Schema: an unquoted empty field is null. */
  missingValues: string[];
  fields: CsvSchemaField[];
  /** `pandas.read_csv(dtype=...)`. */
  pandas_dtype: Record<string, string>;
  /** DuckDB `read_csv(columns=...)`, every column in file order. */
  duckdb_columns: Record<string, string>;
  /** polars `read_csv(schema=...)`, as names of polars dtypes (`getattr(polars, name)`). */
  polars_schema: Record<string, string>;
}

/** The rule for a log CSV's cells, stated in every sidecar. */
export const CSV_CELL_RULE = 'an unquoted empty field is null and "" is the empty string; booleans are true/false; ' +
  "a string cell that starts with = + - @ tab CR or ' has one ' in front (a spreadsheet shows it as text): " +
  "remove one leading ' from every string cell";

/**
 * The schema sidecar of a log CSV (`<table>.schema.json`, written beside
 * `<table>.csv`): the file's description as in the Parquet metadata
 * (`contract`, `table`, `run_id`, `epoch_iso`, `time_units`), the cell rule,
 * a Frictionless Table Schema (`fields` with `type` string, integer, number
 * or boolean, `constraints.required` for a never-null column,
 * `constraints.minimum` where the contract sets one, `unit` on
 * time columns; `missingValues`), and the same types as each reader takes
 * them: `pandas_dtype`, `duckdb_columns`, `polars_schema`. The types come
 * from the contract, never from the data, so a column that holds only nulls
 * (a run where every request failed) keeps its type.
 *
 * @example Integers stay integers and gates stay booleans, whatever the rows hold
 * ```ts
 * import { csvSchema } from "./log_metadata.ts";
 * import assert from "node:assert/strict";
 * const s = csvSchema("requests", { run_id: "r", epoch_iso: "2026-01-01T00:00:00.000Z" });
 * assert.equal(s.contract, "1.8");
 * assert.equal(s.pandas_dtype.http_status, "Int64");
 * assert.equal(s.duckdb_columns.schema_ok, "BOOLEAN");
 * assert.equal(s.polars_schema.scheduled_ms, "Float64");
 * assert.deepEqual(s.fields[0], { name: "run_id", type: "string", constraints: { required: true } });
 * ```
 */
export function csvSchema(table: TableName, id: LogIdentity): CsvSchema {
  const specs = columnSpecs(table);
  const map = (k: "pandas" | "duckdb" | "polars") => Object.fromEntries(specs.map((c) => [c.name, TYPES[c.kind][k]]));
  const least = new Map(numericBounds(table).filter((b) => b.min !== null).map((b) => [b.name, b.min!]));
  return {
    ...describe(table, id),
    cells: CSV_CELL_RULE,
    missingValues: [""],
    fields: specs.map((c) => ({
      name: c.name,
      type: TYPES[c.kind].type,
      constraints: { required: !c.nullable, ...(least.has(c.name) ? { minimum: least.get(c.name)! } : {}) },
      ...(c.unit === null ? {} : { unit: c.unit }),
    })),
    pandas_dtype: map("pandas"),
    duckdb_columns: map("duckdb"),
    polars_schema: map("polars"),
  };
}

/**
 * The text of a log CSV's schema sidecar `<table>.schema.json` ({@linkcode csvSchema}, two-space indented, with a
 * final line end): the runner's and the recorder's sidecars are the same bytes.
 *
 * @example
 * ```ts
 * import { csvSchemaText } from "./log_metadata.ts";
 * import assert from "node:assert/strict";
 * const text = csvSchemaText("tools", { run_id: "r", epoch_iso: "2026-01-01T00:00:00.000Z" });
 * assert.equal(JSON.parse(text).table, "tools");
 * assert.ok(text.endsWith("}\n"));
 * ```
 */
export function csvSchemaText(table: TableName, id: LogIdentity): string {
  return JSON.stringify(csvSchema(table, id), null, 2) + "\n";
}
