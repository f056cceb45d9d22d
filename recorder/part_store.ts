/**
 * One part of a production run folder (`part-NNNNN/`): the four tables as CSV (with their schema sidecars) while it
 * is recorded, appended a flush at a time in whole lines; at rotation, the tables as Parquet (staged row group by row
 * group while recording: recorder/parquet_file.ts) and the CSVs removed. A part whose Parquet could not be written
 * stays CSV, closed, with its CSV files' sha256: every row is still there.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { constants, mkdirSync, promises as fsp, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RowOf } from "../schema/column_kinds.ts";
import { epochMsOf } from "../schema/events.ts";
import { logCsvHeader, logCsvLine } from "../schema/log_encode.ts";
import { csvSchemaFile, csvSchemaText, type LogIdentity } from "../schema/log_metadata.ts";
import { partDir, type ProductionPart } from "../schema/production_manifest.ts";
import { RECORDED_TABLES, type RecordedTable, type TableRows } from "./buffer.ts";
import { ParquetTableFile } from "./parquet_file.ts";

const encoder = new TextEncoder();

/**
 * Rows per Parquet row group: the most rows of a table staged in memory for Parquet, and the most encoded in one go
 * (uncompressed, without statistics: some 10–15 ms per group of request rows, on the writer thread, or on the app's
 * when the recorder writes there: docs/recorder.md).
 */
export const PARQUET_GROUP_ROWS = 1024;

/** The most rows encoded for one CSV write (the recorder hands over fewer at a time: recorder/recorder.ts). */
const CSV_CHUNK_ROWS = 256;

/** Append to an existing file only: a CSV removed under the recorder is not recreated without its header. */
const APPEND_EXISTING = constants.O_APPEND | constants.O_WRONLY;

/** What a part needs to know of its run. */
export interface PartOptions {
  identity: LogIdentity;
  /** Parquet `created_by`. */
  createdBy: string;
  /** Receives each failure (counted by the recorder, never thrown to the app). */
  onError: (e: unknown) => void;
  /** The folder, headers and sidecars exist already ({@linkcode startPartSync} made them at the recorder's start). */
  started?: boolean;
}

/** The four tables' CSV and sidecar files of a part folder, with their headers and sidecar texts. */
function partFiles(
  dir: string,
  identity: LogIdentity,
): { table: RecordedTable; csv: string; header: string; sidecar: string; schema: string }[] {
  return RECORDED_TABLES.map((table) => ({
    table,
    csv: join(dir, `${table}.csv`),
    header: logCsvHeader(table),
    sidecar: join(dir, csvSchemaFile(table)),
    schema: csvSchemaText(table, identity),
  }));
}

/** The bytes of the four CSV headers: a started part's CSVs before any row. */
export function headerBytes(): number {
  return RECORDED_TABLES.reduce((n, t) => n + encoder.encode(logCsvHeader(t)).length, 0);
}

/**
 * Creates part `index`'s folder, CSV headers and sidecars now, refusing any that exist (the first part, at the
 * recorder's start: a failure is thrown there, to the app starting it).
 */
export function startPartSync(root: string, index: number, identity: LogIdentity): void {
  const dir = join(root, partDir(index));
  mkdirSync(dir);
  for (const f of partFiles(dir, identity)) {
    writeFileSync(f.csv, f.header, { flag: "wx" });
    writeFileSync(f.sidecar, f.schema, { flag: "wx" });
  }
}

/** The part being recorded. */
export class PartStore {
  readonly dir: string;
  readonly entry: ProductionPart;
  readonly #options: PartOptions;
  /** The CSV lines' options: the epoch column (contract 1.6) is `epoch_iso` (parsed once) + each row's anchor. */
  readonly #line: { epochMs: number };
  #ready = false;
  #bytes = 0;
  #parquet: { [T in RecordedTable]: ParquetTableFile<T> };
  #parquetFailed = false;

  constructor(root: string, index: number, started_ms: number, options: PartOptions) {
    const name = partDir(index);
    this.dir = join(root, name);
    this.#options = options;
    this.#line = { epochMs: epochMsOf(options.identity.epoch_iso) };
    this.entry = { dir: name, started_ms, ended_ms: null, format: "csv", requests: 0, files: {} };
    const file = <T extends RecordedTable>(t: T) =>
      new ParquetTableFile(join(this.dir, `${t}.parquet`), t, {
        ...options,
        groupRows: PARQUET_GROUP_ROWS,
        compressed: false,
        statistics: false,
      });
    this.#parquet = {
      requests: file("requests"),
      attempts: file("attempts"),
      tools: file("tools"),
      phases: file("phases"),
    };
    if (options.started) {
      this.#ready = true;
      this.#bytes = headerBytes();
    }
  }

  /** Bytes of the part's CSVs (headers included): what rotation by size compares. */
  get bytes(): number {
    return this.#bytes;
  }

  #files(): { table: RecordedTable; csv: string; header: string; sidecar: string; schema: string }[] {
    return partFiles(this.dir, this.#options.identity);
  }

  /**
   * Takes over a part another writer was writing (a writer thread that stopped): its CSVs as they are on disk, their
   * bytes read from the file system; the Parquet staged by the other writer is lost, so the part stays CSV.
   */
  async adopt(): Promise<void> {
    this.#parquetFailed = true;
    // Started, whatever the disk says: a CSV missing now is an append that fails (and is counted), never a header
    // written again over rows the other writer wrote.
    this.#ready = true;
    let bytes = 0;
    for (const f of this.#files()) bytes += (await fsp.stat(f.csv)).size;
    this.#bytes = bytes;
  }

  /** Creates them unless done (after a failure, the next append tries again). */
  async start(): Promise<void> {
    if (this.#ready) return;
    // Never the run folder itself: one removed under the recorder is not made again (its run.json would be lost).
    await fsp.mkdir(this.dir).catch((e: { code?: string }) => {
      if (e?.code !== "EEXIST") throw e;
    });
    let bytes = 0;
    for (const f of this.#files()) {
      // Nothing is appended before every header is written, so a start tried again may rewrite them.
      await fsp.writeFile(f.csv, f.header);
      await fsp.writeFile(f.sidecar, f.schema);
      bytes += encoder.encode(f.header).length;
    }
    this.#bytes += bytes;
    this.#ready = true;
  }

  /**
   * Appends each table's rows in writes of whole lines (at most CSV_CHUNK_ROWS rows each; on the app's thread, each
   * write lets the app run), staging them for Parquet. The rows of a write that failed,
   * and the rest of that table's, are handed to `giveBack` (to be tried again at the next flush). Returns the request
   * rows written.
   */
  async append(rows: TableRows, giveBack: (table: RecordedTable, rows: readonly unknown[]) => void): Promise<number> {
    try {
      await this.start();
    } catch (e) {
      this.#options.onError(e);
      for (const t of RECORDED_TABLES) giveBack(t, rows[t]);
      return 0;
    }
    let requests = 0;
    for (const t of RECORDED_TABLES) {
      const list = rows[t] as RowOf<typeof t>[];
      const file = join(this.dir, `${t}.csv`);
      for (let i = 0; i < list.length; i += CSV_CHUNK_ROWS) {
        const chunk = list.slice(i, i + CSV_CHUNK_ROWS);
        let bytes: Uint8Array;
        try {
          bytes = encoder.encode(chunk.map((r) => logCsvLine(t, r, this.#line)).join(""));
          await fsp.appendFile(file, bytes, { flag: APPEND_EXISTING });
        } catch (e) {
          this.#options.onError(e);
          giveBack(t, list.slice(i));
          break;
        }
        this.#bytes += bytes.length;
        if (t === "requests") requests += chunk.length;
        (this.#parquet[t] as ParquetTableFile<typeof t>).stage(chunk);
        await this.#writeParquet(t);
      }
    }
    this.entry.requests += requests;
    return requests;
  }

  /** Writes the table's full Parquet row groups; a failure leaves the part CSV (closed as such at rotation). */
  async #writeParquet(t: RecordedTable): Promise<void> {
    if (this.#parquetFailed) return;
    try {
      await this.#parquet[t].writeFull();
    } catch (e) {
      this.#parquetFailed = true;
      this.#options.onError(e);
    }
  }

  /**
   * Ends the part at `ended_ms`: its tables as Parquet (the CSVs and sidecars removed) with their sha256; if that
   * fails, the CSVs stay, with theirs. The entry is returned closed either way.
   */
  async close(ended_ms: number): Promise<ProductionPart> {
    this.entry.ended_ms = ended_ms;
    if (!this.#ready) return this.entry;
    let files: Record<string, string> | null = null;
    if (!this.#parquetFailed) {
      try {
        files = {};
        for (const t of RECORDED_TABLES) files[`${t}.parquet`] = await this.#parquet[t].finish();
      } catch (e) {
        files = null;
        this.#options.onError(e);
      }
    }
    if (files) {
      // The part is its Parquet files now (run.json says so): a CSV that cannot be removed is counted, not restored.
      for (const f of this.#files()) {
        for (const path of [f.csv, f.sidecar]) await fsp.rm(path).catch(this.#options.onError);
      }
      this.entry.format = "parquet";
      this.entry.files = files;
      return this.entry;
    }
    for (const t of RECORDED_TABLES) await this.#parquet[t].discard().catch(this.#options.onError);
    // Parquet files already renamed into place are removed: the part is its CSVs.
    for (const t of RECORDED_TABLES) {
      await fsp.rm(join(this.dir, `${t}.parquet`), { force: true }).catch(this.#options.onError);
    }
    const csvFiles: Record<string, string> = {};
    for (const f of this.#files()) {
      for (const path of [f.csv, f.sidecar]) {
        try {
          csvFiles[path.slice(this.dir.length + 1)] = createHash("sha256").update(await fsp.readFile(path)).digest(
            "hex",
          );
        } catch (e) {
          this.#options.onError(e);
        }
      }
    }
    this.entry.files = csvFiles;
    return this.entry;
  }
}
