/**
 * The Parquet form of a log table: its typed columns and the writer's options (schema, key-value metadata). Runtime
 * neutral: the caller gives hyparquet-writer a `Writer` (a file on Deno, a buffer appended asynchronously by the
 * recorder), so the runner's finalise and the recorder's rotation write the same files with one implementation.
 *
 * @module
 */
import { type BasicType, type ColumnSource, ParquetWriter, schemaFromColumnData, type Writer } from "hyparquet-writer";
import { EPOCH_COLUMNS, type TableName } from "./events.ts";
import { epochCell } from "./log_encode.ts";
import { type LogIdentity, parquetMetadata } from "./log_metadata.ts";
import { type ColumnKind, columnSpecs, type RowOf } from "./column_kinds.ts";

/** Parquet type of each column kind: counts are 64-bit so no count can overflow. */
export const PARQUET_TYPE: Record<ColumnKind, BasicType> = {
  string: "STRING",
  int: "INT64",
  float: "DOUBLE",
  boolean: "BOOLEAN",
};

/** Options of {@linkcode parquetColumns}. */
export interface ParquetColumnsOptions {
  /** run.json `epoch_iso` as ms since the Unix epoch: the epoch column (contract 1.6) is this + its anchor. */
  epochMs: number;
  /** The index of `rows[0]` in the table, for the error of a count that is not an integer. @default {0} */
  first?: number;
}

/**
 * The typed, nullable Parquet columns of `rows` of a log table, in file order (INT64 values as bigint, which
 * hyparquet-writer requires), the last the table's epoch column (`epochMs` + its anchor, schema/events.ts
 * `EPOCH_COLUMNS`). A count that is not an integer is a `TypeError` naming its row.
 *
 * @example Counts become bigint, nulls stay null
 * ```ts
 * import { parquetColumns } from "./log_parquet.ts";
 * import assert from "node:assert/strict";
 * const cols = parquetColumns("tools", [
 *   { run_id: "r", request_id: "q", round: 1, tool: "t", started_ms: 1, ended_ms: 2, ok: false, error_kind: null },
 * ], { epochMs: 1767225600000 });
 * assert.deepEqual(cols.find((c) => c.name === "round")?.data, [1n]);
 * assert.equal(cols.find((c) => c.name === "round")?.type, "INT64");
 * assert.deepEqual(cols.find((c) => c.name === "error_kind")?.data, [null]);
 * assert.deepEqual(cols.find((c) => c.name === "started_epoch_ms")?.data, [1767225600001]);
 * ```
 */
export function parquetColumns<T extends TableName>(
  table: T,
  rows: readonly RowOf<T>[],
  options: ParquetColumnsOptions,
): ColumnSource[] {
  const first = options.first ?? 0;
  const epoch = EPOCH_COLUMNS[table];
  return columnSpecs(table).map((spec) => {
    const data = new Array<unknown>(rows.length);
    const isEpoch = spec.name === epoch.name;
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i] as Record<string, unknown>;
      const v = isEpoch ? epochCell(table, r[epoch.of], options.epochMs) : r[spec.name] ?? null;
      if (spec.kind === "int" && v !== null) {
        if (!Number.isSafeInteger(v)) {
          throw new TypeError(`${table} row ${first + i}: ${spec.name} is not an integer: ${v}`);
        }
        data[i] = BigInt(v as number);
      } else data[i] = v;
    }
    return { name: spec.name, data, type: PARQUET_TYPE[spec.kind], nullable: true };
  });
}

/** Options for {@linkcode parquetLogWriter}. */
export interface ParquetLogWriterOptions {
  /** The run the file belongs to: its run_id and epoch, written to the key-value metadata. */
  identity: LogIdentity;
  /** The file's `created_by` (e.g. `goodput-runner 0.1.0 (hyparquet-writer)`). */
  createdBy: string;
  /**
   * Snappy-compress the pages. Off, a row costs about a quarter of the CPU to encode (hyparquet-writer's Snappy is
   * JavaScript): the recorder, which encodes on the app's own thread, writes its pages uncompressed. @default true
   */
  compressed?: boolean;
  /** Write each column chunk's min/max statistics (readers skip row groups by them). @default true */
  statistics?: boolean;
}

/**
 * A hyparquet-writer `ParquetWriter` for one log table onto `writer`: one typed, nullable column per log column
 * (types from the zod row schema: integers → INT64, other numbers → DOUBLE, booleans → BOOLEAN, strings and enums →
 * STRING), and in the key-value metadata what a reader of this file alone needs (schema/log_metadata.ts
 * `parquetMetadata`). Write row groups with {@linkcode writeParquetGroup}, then `finish()`.
 *
 * @example One row group into memory
 * ```ts
 * import { ByteWriter } from "hyparquet-writer";
 * import { parquetLogWriter, writeParquetGroup } from "./log_parquet.ts";
 * import assert from "node:assert/strict";
 * const bytes = new ByteWriter();
 * const w = parquetLogWriter(bytes, "tools", {
 *   identity: { run_id: "r", epoch_iso: "2026-01-01T00:00:00.000Z" }, createdBy: "example",
 * });
 * writeParquetGroup(w, "tools", [
 *   { run_id: "r", request_id: "q", round: 0, tool: "t", started_ms: 1, ended_ms: 2, ok: true, error_kind: null },
 * ], { epochMs: Date.parse("2026-01-01T00:00:00.000Z") });
 * w.finish();
 * assert.equal(new TextDecoder().decode(bytes.getBytes().subarray(0, 4)), "PAR1");
 * ```
 */
export function parquetLogWriter(writer: Writer, table: TableName, options: ParquetLogWriterOptions): ParquetWriter {
  return new ParquetWriter({
    writer,
    schema: schemaFromColumnData({ columnData: parquetColumns(table, [], { epochMs: 0 }) }),
    kvMetadata: parquetMetadata(table, options.identity),
    createdBy: options.createdBy,
    codec: options.compressed === false ? "UNCOMPRESSED" : "SNAPPY",
    statistics: options.statistics !== false,
  });
}

/**
 * Writes `rows` as one row group of `writer` (none when empty), the epoch column from `options.epochMs`
 * ({@linkcode parquetColumns}). The writer's own `flush` (if its `Writer` has one) is its business: what it returns is
 * returned.
 */
export function writeParquetGroup<T extends TableName>(
  writer: ParquetWriter,
  table: T,
  rows: readonly RowOf<T>[],
  options: ParquetColumnsOptions,
): void | Promise<void> {
  if (rows.length === 0) return;
  return writer.write({ columnData: parquetColumns(table, rows, options), rowGroupSize: rows.length });
}
