import { fileWriter, type ParquetWriter } from "hyparquet-writer";
import { epochMsOf, type TableName } from "../../schema/events.ts";
import type { LogIdentity } from "../../schema/log_metadata.ts";
import type { RowOf } from "../../schema/column_kinds.ts";
import { parquetLogWriter, writeParquetGroup } from "../../schema/log_parquet.ts";
import { VERSION } from "../version.ts";
import { readLogCsvBatches, type ReadLogCsvOptions } from "./csv_read_batches.ts";

/**
 * Rows per row group (and per batch read from the CSV) unless told otherwise.
 * Peak RSS of finalising 100,000 requests: 401 MB at 16,384, 579 MB at 65,536
 * (bench/finalise_bench.ts); polars reads either alike.
 */
export const ROW_GROUP_ROWS = 16384;

/** Options for {@linkcode ParquetLogWriter.open}. */
export interface ParquetLogOptions {
  /** The run the file belongs to: its run_id and epoch, written to the key-value metadata. */
  identity: LogIdentity;
}

/**
 * A Parquet log file written one row group at a time, so memory holds one
 * group, never the table: one typed, nullable column per log column (types
 * from the zod row schema: integers → INT64, other numbers → DOUBLE,
 * booleans → BOOLEAN, strings and enums → STRING), and in the key-value
 * metadata what a reader of this file alone needs: the contract version,
 * table, run_id, `epoch_iso` and the unit of every time column (the
 * contract's columns and options: schema/log_parquet.ts, shared with the
 * recorder). Bytes go to `<file>.partial`
 * (hyparquet-writer's file writer flushes every ~1 MB) and
 * {@linkcode ParquetLogWriter.close} renames it into place, so a crash never
 * leaves a half-written `.parquet` under the final name.
 *
 * @example Two row groups
 * ```ts
 * import { ParquetLogWriter } from "./parquet_writer.ts";
 * import assert from "node:assert/strict";
 * const file = Deno.makeTempFileSync({ suffix: ".parquet" });
 * const identity = { run_id: "run-1", epoch_iso: "2026-01-01T00:00:00.000Z" };
 * const w = ParquetLogWriter.open(file, "tools", { identity });
 * w.write([{ run_id: "run-1", request_id: "r1", round: 1, tool: "t", started_ms: 1, ended_ms: 2, ok: true, error_kind: null }]);
 * w.write([{ run_id: "run-1", request_id: "r2", round: 1, tool: "t", started_ms: 2, ended_ms: 3, ok: false, error_kind: "timeout" }]);
 * assert.equal(w.close(), 2);
 * assert.equal(new TextDecoder().decode(Deno.readFileSync(file).subarray(0, 4)), "PAR1");
 * Deno.removeSync(file);
 * ```
 */
export class ParquetLogWriter<T extends TableName> {
  readonly file: string;
  readonly table: T;
  readonly #partial: string;
  readonly #writer: ParquetWriter;
  /** run.json `epoch_iso` in ms since the Unix epoch, parsed once: each row's epoch column is this + its anchor. */
  readonly #epochMs: number;
  #rows = 0;
  #closed = false;

  private constructor(file: string, table: T, identity: LogIdentity) {
    this.file = file;
    this.table = table;
    this.#partial = `${file}.partial`;
    this.#epochMs = epochMsOf(identity.epoch_iso);
    this.#writer = parquetLogWriter(fileWriter(this.#partial), table, {
      identity,
      createdBy: `goodput-runner ${VERSION} (hyparquet-writer)`,
    });
  }

  /** Starts `<file>.partial` (replacing one left by a crash). */
  static open<T extends TableName>(file: string, table: T, options: ParquetLogOptions): ParquetLogWriter<T> {
    return new ParquetLogWriter(file, table, options.identity);
  }

  /** Rows written so far. */
  get rows(): number {
    return this.#rows;
  }

  /** Writes `rows` as one row group (none when empty). */
  write(rows: readonly RowOf<T>[]): void {
    if (this.#closed) throw new TypeError(`${this.file}: write after close`);
    if (rows.length === 0) return;
    // One group of exactly these rows; the writer is synchronous (its file writer has no async flush).
    void writeParquetGroup(this.#writer, this.table, rows, { epochMs: this.#epochMs, first: this.#rows });
    this.#rows += rows.length;
  }

  /** Writes the footer and renames the file into place; returns the number of rows. */
  close(): number {
    if (this.#closed) throw new TypeError(`${this.file}: closed twice`);
    this.#closed = true;
    void this.#writer.finish();
    Deno.renameSync(this.#partial, this.file);
    return this.#rows;
  }

  /** Drops the partial file (after a failure); nothing is left under either name. */
  abort(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      Deno.removeSync(this.#partial);
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    }
  }
}

/** Options for {@linkcode writeParquetFromRows}. */
export interface WriteParquetOptions extends ParquetLogOptions {
  /** Most rows per row group. @default 16384 */
  rowGroupRows?: number;
}

/**
 * Writes log rows to a Parquet file (see {@linkcode ParquetLogWriter}), in
 * row groups of at most `rowGroupRows`.
 *
 * @example Write two tool rows
 * ```ts
 * import { writeParquetFromRows } from "./parquet_writer.ts";
 * import assert from "node:assert/strict";
 * const file = Deno.makeTempFileSync({ suffix: ".parquet" });
 * const run = { run_id: "run-1" };
 * writeParquetFromRows(file, "tools", [
 *   { ...run, request_id: "r1", round: 1, tool: "lookup", started_ms: 1.5, ended_ms: 9.25, ok: true, error_kind: null },
 *   { ...run, request_id: "r2", round: 1, tool: "lookup", started_ms: 2, ended_ms: 3, ok: false, error_kind: "timeout" },
 * ], { identity: { ...run, epoch_iso: "2026-01-01T00:00:00.000Z" } });
 * const bytes = Deno.readFileSync(file);
 * assert.equal(new TextDecoder().decode(bytes.subarray(0, 4)), "PAR1");
 * Deno.removeSync(file);
 * ```
 */
export function writeParquetFromRows<T extends TableName>(
  file: string,
  table: T,
  rows: readonly RowOf<T>[],
  options: WriteParquetOptions,
): void {
  const size = options.rowGroupRows ?? ROW_GROUP_ROWS;
  const w = ParquetLogWriter.open(file, table, options);
  try {
    for (let i = 0; i < rows.length; i += size) w.write(rows.slice(i, i + size));
    w.close();
  } catch (e) {
    w.abort();
    throw e;
  }
}

/** Options for {@linkcode csvToParquet}: the reader's, the run's identity and the row group size. */
export interface CsvToParquetOptions<T extends TableName = TableName> extends ReadLogCsvOptions, ParquetLogOptions {
  /** Most rows per row group (and per batch read from the CSV). @default 16384 */
  rowGroupRows?: number;
  /** Sees each batch of validated rows before it is written (one pass over the file for both). */
  onRows?: (rows: readonly RowOf<T>[]) => void;
}

/**
 * Converts a finished `<dir>/<table>.csv` log into `<dir>/<table>.parquet`
 * in bounded memory: the CSV is read and validated in batches
 * ({@linkcode readLogCsvBatches}, whose options apply), each written as one
 * row group, so at most one batch of rows is held at a time. Returns the
 * number of rows. On any error nothing is left under either Parquet name.
 *
 * @example Convert an empty tools log
 * ```ts
 * import { csvToParquet } from "./parquet_writer.ts";
 * import assert from "node:assert/strict";
 * const dir = Deno.makeTempDirSync();
 * Deno.writeTextFileSync(`${dir}/tools.csv`, "run_id,request_id,round,tool,started_ms,ended_ms,ok,error_kind,started_epoch_ms\n");
 * const identity = { run_id: "run-1", epoch_iso: "2026-01-01T00:00:00.000Z" };
 * assert.equal(await csvToParquet(dir, "tools", { identity }), 0);
 * assert.ok(Deno.statSync(`${dir}/tools.parquet`).size > 0);
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export async function csvToParquet<T extends TableName>(
  dir: string,
  table: T,
  options: CsvToParquetOptions<T>,
): Promise<number> {
  const { rowGroupRows, onRows, identity, ...read } = options;
  const w = ParquetLogWriter.open(`${dir}/${table}.parquet`, table, { identity });
  try {
    for await (
      const batch of readLogCsvBatches(`${dir}/${table}.csv`, table, {
        ...read,
        batchRows: rowGroupRows ?? ROW_GROUP_ROWS,
      })
    ) {
      onRows?.(batch);
      w.write(batch);
    }
    return w.close();
  } catch (e) {
    w.abort();
    throw e;
  }
}
