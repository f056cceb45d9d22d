import { COLUMNS, type TableName } from "../../schema/events.ts";
import type { RowOf } from "../../schema/column_kinds.ts";
import { logCsvHeader, logCsvLine } from "../../schema/log_encode.ts";
import { appendWhole } from "./log_write_error.ts";

/** Options for {@linkcode CsvSink.open}. */
export interface CsvSinkOptions {
  /** Replace an existing `<table>.csv` instead of refusing to. @default false */
  overwrite?: boolean;
  /**
   * run.json `epoch_iso` as ms since the Unix epoch (schema/events.ts `epochMsOf`): each row's epoch column (contract
   * 1.6) is this + its anchor instant, added as the line is encoded (no clock reading per row). A sink opened before
   * ms 0 of its run is known is given it later ({@linkcode CsvSink.epochMs}); a row appended before is refused.
   */
  epochMs?: number;
}

/** Writes `data` completely; a file write may take fewer bytes than given. */
function writeAll(file: Deno.FsFile, data: Uint8Array): void {
  let off = 0;
  while (off < data.length) off += file.writeSync(data.subarray(off));
}

/**
 * An append-only CSV log file for one table (`requests`, `attempts`,
 * `tools`, `server`) with the columns of `COLUMNS` in order.
 *
 * Values are written so they read back exactly: numbers as `String(n)`
 * (the shortest text that round-trips), booleans as `true`/`false`, null as
 * an empty field and the empty string as `""`; fields are quoted only when
 * needed (the dialect of csv-stringify). A string column's value that
 * starts like a spreadsheet formula (`=`, `+`, `-`, `@`, tab, CR) or with
 * `'` is written with one `'` in front (contract 1.2, `escapeCell` in
 * schema/log_csv.ts; readers remove it). The line encoding is the contract's
 * (schema/log_encode.ts `logCsvLine`), shared with the recorder.
 *
 * Rows are buffered by {@linkcode CsvSink.append} and written by
 * {@linkcode CsvSink.flush} as one write of whole lines, so a run killed at
 * any moment leaves a file holding every row flushed before. Every method is
 * synchronous: two flushes can never interleave their bytes.
 *
 * @example Rows appear on disk at flush
 * ```ts
 * import { CsvSink } from "./csv_sink.ts";
 * import assert from "node:assert/strict";
 * const dir = Deno.makeTempDirSync();
 * const sink = CsvSink.open(dir, "tools", { epochMs: Date.parse("2026-01-01T00:00:00.000Z") });
 * sink.append({
 *   run_id: "run-1", request_id: "r1", round: 1, tool: "lookup", started_ms: 1.5, ended_ms: 9.25, ok: true,
 *   error_kind: null,
 * });
 * assert.equal(sink.flush(), 1);
 * sink.close();
 * const text = Deno.readTextFileSync(`${dir}/tools.csv`);
 * // started_epoch_ms = 1767225600000 + 1.5
 * assert.equal(
 *   text,
 *   "run_id,request_id,round,tool,started_ms,ended_ms,ok,error_kind,started_epoch_ms\n" +
 *     "run-1,r1,1,lookup,1.5,9.25,true,,1767225600001.5\n",
 * );
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export class CsvSink<T extends TableName> {
  /** Path of the CSV file. */
  readonly path: string;
  readonly table: T;
  readonly #file: Deno.FsFile;
  /** The options of every line (one object, reused). */
  readonly #line: { epochMs: number };
  readonly #encoder = new TextEncoder();
  /**
   * The lines appended since the last flush, UTF-8 encoded at append into one growing byte buffer. Kept as bytes, not
   * strings: a buffer's bytes live outside V8's heap, so the young generation's collections neither copy nor promote
   * the up to 100 ms of rows a runner holds between flushes (about 0.4 MB at 5,000 requests a second: bench/README.md,
   * "Issue 33, third pass"); each line's string dies at once.
   */
  #bytes = new Uint8Array(1 << 16);
  #length = 0;
  #rows = 0;
  #closed = false;
  #sealed = false;
  #written = 0;

  private constructor(path: string, table: T, file: Deno.FsFile, epochMs: number) {
    this.path = path;
    this.table = table;
    this.#file = file;
    this.#line = { epochMs };
  }

  /** Sets run.json `epoch_iso` in ms since the Unix epoch (the runner knows it at ms 0, after opening its sinks). */
  set epochMs(ms: number) {
    if (!Number.isFinite(ms)) throw new TypeError(`${this.path}: epochMs is not a number: ${ms}`);
    this.#line.epochMs = ms;
  }

  /**
   * Creates `<dir>/<table>.csv` and writes its header line.
   * Throws `Deno.errors.AlreadyExists` when the file exists and `overwrite` is not set.
   */
  static open<T extends TableName>(dir: string, table: T, options: CsvSinkOptions = {}): CsvSink<T> {
    if (!(table in COLUMNS)) throw new TypeError(`unknown log table ${table}`);
    const path = `${dir}/${table}.csv`;
    const file = Deno.openSync(
      path,
      options.overwrite ? { write: true, create: true, truncate: true } : {
        write: true,
        createNew: true,
      },
    );
    const sink = new CsvSink(path, table, file, options.epochMs ?? Number.NaN);
    writeAll(file, sink.#encoder.encode(logCsvHeader(table)));
    return sink;
  }

  /** Rows appended but not yet flushed. */
  get pending(): number {
    return this.#rows;
  }

  /** Rows written to the file so far. */
  get written(): number {
    return this.#written;
  }

  /** Buffers one row; nothing reaches the file before {@linkcode CsvSink.flush}. Dropped once sealed. */
  append(row: RowOf<T>): void {
    if (this.#sealed) return;
    if (this.#closed) throw new TypeError(`${this.path}: append after close`);
    if (Number.isNaN(this.#line.epochMs)) throw new TypeError(`${this.path}: append before its epoch is set`);
    let line: string;
    try {
      line = logCsvLine(this.table, row, this.#line);
    } catch (e) {
      throw new TypeError(`${this.path}: ${(e as Error).message}`, { cause: e });
    }
    // Encoded now, so the cost is spread over requests instead of stalling the loop at flush.
    this.#put(line);
    this.#rows++;
  }

  /** Appends `line` UTF-8 encoded to the byte buffer, growing it when the line may not fit (3 bytes per UTF-16 unit). */
  #put(line: string): void {
    const need = this.#length + 3 * line.length;
    if (need > this.#bytes.length) {
      const grown = new Uint8Array(Math.max(need, 2 * this.#bytes.length));
      grown.set(this.#bytes.subarray(0, this.#length));
      this.#bytes = grown;
    }
    this.#length += this.#encoder.encodeInto(line, this.#bytes.subarray(this.#length)).written;
  }

  /**
   * Writes every buffered row in one write of complete lines; returns how many. A write that fails (a full disk)
   * leaves the file as it was before this flush and throws a `LogWriteError` (runner/sinks/log_write_error.ts);
   * the sink then takes no more rows ({@linkcode CsvSink.seal}).
   */
  flush(): number {
    const rows = this.#rows;
    if (rows === 0) return 0;
    const bytes = this.#bytes.subarray(0, this.#length);
    this.#rows = 0;
    this.#length = 0;
    try {
      appendWhole(this.#file, this.path, bytes);
    } catch (e) {
      this.seal();
      throw e;
    }
    this.#written += rows;
    return rows;
  }

  /** From now on rows are dropped, never written (the run stopped on a failed write); the file stays as it is. */
  seal(): void {
    this.#sealed = true;
    this.#rows = 0;
    this.#length = 0;
  }

  /** True once {@linkcode CsvSink.seal} was called. */
  get sealed(): boolean {
    return this.#sealed;
  }

  /** Flushes what is buffered and closes the file. Closing twice is a no-op. */
  close(): void {
    if (this.#closed) return;
    this.flush();
    this.#closed = true;
    this.#file.close();
  }
}
