/**
 * One table of a part as Parquet, written while the part is recorded: rows are staged as they reach the CSV and
 * written a row group at a time to `<table>.parquet.partial` by asynchronous appends (the app's event loop never
 * waits on the disk), hashed as they go; at rotation the footer is written and the file renamed into place.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { promises as fsp } from "node:fs";
import { ByteWriter, type ParquetWriter } from "hyparquet-writer";
import { epochMsOf, type TableName } from "../schema/events.ts";
import type { RowOf } from "../schema/column_kinds.ts";
import type { LogIdentity } from "../schema/log_metadata.ts";
import { parquetLogWriter, writeParquetGroup } from "../schema/log_parquet.ts";

/** Options of {@linkcode ParquetTableFile}. */
export interface ParquetTableOptions {
  identity: LogIdentity;
  createdBy: string;
  /** Rows per row group: the most rows staged in memory per table. */
  groupRows: number;
  /** Snappy-compress the pages, and write min/max statistics (schema/log_parquet.ts). */
  compressed: boolean;
  statistics: boolean;
}

/** A Parquet log file of one table, built row group by row group (schema/log_parquet.ts: the contract's columns). */
export class ParquetTableFile<T extends TableName> {
  readonly path: string;
  readonly table: T;
  readonly #partial: string;
  readonly #groupRows: number;
  readonly #bytes = new ByteWriter();
  readonly #writer: ParquetWriter;
  readonly #hash = createHash("sha256");
  #staged: RowOf<T>[] = [];
  #rows = 0;
  /** `epoch_iso` in ms since the Unix epoch, parsed once: each row's epoch column (contract 1.6) is this + its anchor. */
  readonly #epochMs: number;

  constructor(path: string, table: T, options: ParquetTableOptions) {
    this.path = path;
    this.table = table;
    this.#partial = `${path}.partial`;
    this.#groupRows = options.groupRows;
    this.#epochMs = epochMsOf(options.identity.epoch_iso);
    this.#writer = parquetLogWriter(this.#bytes, table, options);
  }

  /** Rows written or staged so far. */
  get rows(): number {
    return this.#rows + this.#staged.length;
  }

  /** Stages rows (already in the CSV); whole row groups are written by {@linkcode ParquetTableFile.writeFull}. */
  stage(rows: readonly RowOf<T>[]): void {
    for (const r of rows) this.#staged.push(r);
  }

  /** Writes every full row group staged. */
  async writeFull(): Promise<void> {
    while (this.#staged.length >= this.#groupRows) await this.#group(this.#staged.splice(0, this.#groupRows));
  }

  /** Writes what is staged, the footer, and renames the file into place; returns its sha256. */
  async finish(): Promise<string> {
    await this.writeFull();
    if (this.#staged.length) await this.#group(this.#staged.splice(0));
    await this.#writer.finish();
    await this.#drain();
    await fsp.rename(this.#partial, this.path);
    return this.#hash.digest("hex");
  }

  /** Removes the partial file (the part stays CSV). */
  async discard(): Promise<void> {
    this.#staged = [];
    await fsp.rm(this.#partial, { force: true });
  }

  async #group(rows: RowOf<T>[]): Promise<void> {
    await writeParquetGroup(this.#writer, this.table, rows, { epochMs: this.#epochMs, first: this.#rows });
    this.#rows += rows.length;
    await this.#drain();
  }

  /** Appends the bytes encoded so far and empties the buffer (the writer counts offsets on its own). */
  async #drain(): Promise<void> {
    const bytes = this.#bytes.getBytes().slice();
    this.#bytes.index = 0;
    if (!bytes.length) return;
    this.#hash.update(bytes);
    await fsp.appendFile(this.#partial, bytes);
  }
}
