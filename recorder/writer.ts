/**
 * Where the log is written: one interface, two writers. {@linkcode AppWriter} writes on the thread it runs on (the
 * app's, when no writer thread can be started; the writer thread's own, inside it: recorder/writer_worker.ts), and
 * recorder/thread_writer.ts hands the same calls to a writer thread. Both take the rows in the same batches, in the
 * same order, so they write the same bytes.
 *
 * @module
 */
import { promises as fsp } from "node:fs";
import { join } from "node:path";
import type { LogIdentity } from "../schema/log_metadata.ts";
import type { ProductionPart } from "../schema/production_manifest.ts";
import { emptyRows, RECORDED_TABLES, type RecordedTable, type TableCounts, type TableRows } from "./buffer.ts";
import { PartStore } from "./part_store.ts";

/** Which thread writes the log (run.json `recorder.writer`). */
export type WriterKind = "thread" | "app";

/** What a writer needs to know of its run, and the part it starts on (made by the recorder's start). */
export interface WriterSetup {
  out: string;
  identity: LogIdentity;
  /** Parquet `created_by`. */
  createdBy: string;
  part: { index: number; started_ms: number };
}

/** What one batch's append did. */
export interface AppendResult {
  /** Request rows written. */
  requests: number;
  /** Rows not written (a write failed), in order: to be tried again at the next flush. */
  giveBack: TableRows;
  /** Rows that may or may not be in the log (a writer thread stopped while it held them): counted as dropped. */
  lost: TableCounts;
  /** The current part's entry, and its CSVs' bytes (headers included), after the append. */
  entry: ProductionPart;
  bytes: number;
}

/** What closing a part did: its entry, closed, and the next part's (null at the recorder's close). */
export interface ClosePartResult {
  closed: ProductionPart;
  next: ProductionPart | null;
  bytes: number;
}

/** A writer of a production run folder's parts and run.json. */
export interface LogWriter {
  readonly kind: WriterKind;
  /**
   * Appends one batch of rows to the current part (calls are taken in order, each after the one before, so they need
   * not be awaited one by one). `flush` numbers the recorder's flush: once a table's write failed in a flush, its later
   * batches of that flush are given back untried, so the rows stay in order.
   */
  append(rows: TableRows, flush: number): Promise<AppendResult>;
  /** Ends the current part at `ended_ms` (Parquet, or CSV if that failed) and, unless `last`, starts the next one. */
  closePart(ended_ms: number, last: boolean): Promise<ClosePartResult>;
  /** Writes run.json (a temporary file renamed over it). */
  writeManifest(text: string): Promise<void>;
  /** Ends the writer once the recorder is closed (a writer thread is stopped). */
  stop(): Promise<void>;
}

/** No rows lost. */
export function noneLost(): TableCounts {
  return { requests: 0, attempts: 0, tools: 0, phases: 0 };
}

/** A copy of a part's entry (the writer's own keeps changing). */
function snapshot(e: ProductionPart): ProductionPart {
  return { ...e, files: { ...e.files } };
}

/** Writes on the thread it runs on; its calls run one after the other, in the order they were made. */
export class AppWriter implements LogWriter {
  readonly kind: WriterKind = "app";
  readonly #setup: WriterSetup;
  readonly #onError: (e: unknown) => void;
  #part: PartStore;
  #queue: Promise<unknown> = Promise.resolve();
  #flush = -1;
  #failed = new Set<RecordedTable>();

  /**
   * A writer of `setup.part`, whose folder, headers and sidecars exist; with `adopt`, a part another writer was
   * writing, taken as its CSVs are on disk (see {@linkcode AppWriter.adopt}).
   */
  constructor(setup: WriterSetup, onError: (e: unknown) => void) {
    this.#setup = setup;
    this.#onError = onError;
    this.#part = this.#store(setup.part.index, setup.part.started_ms, true);
  }

  /**
   * A writer that takes over the current part from a writer thread that stopped: the part as its CSVs are on disk,
   * and `entry` as the thread last reported it. The part stays CSV (the thread's staged Parquet is lost).
   */
  static async adopt(setup: WriterSetup, entry: ProductionPart, onError: (e: unknown) => void): Promise<AppWriter> {
    const w = new AppWriter(setup, onError);
    Object.assign(w.#part.entry, snapshot(entry));
    await w.#part.adopt().catch(onError);
    return w;
  }

  #store(index: number, started_ms: number, started: boolean): PartStore {
    const s = this.#setup;
    return new PartStore(s.out, index, started_ms, {
      identity: s.identity,
      createdBy: s.createdBy,
      onError: this.#onError,
      started,
    });
  }

  /** Runs `job` after every call before it. */
  #then<T>(job: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(job);
    // The queue only orders the calls: a failure reaches the caller through `run`.
    this.#queue = run.then(() => undefined, () => undefined);
    return run;
  }

  append(rows: TableRows, flush: number): Promise<AppendResult> {
    return this.#then(async () => {
      if (flush !== this.#flush) {
        this.#flush = flush;
        this.#failed = new Set();
      }
      const giveBack = emptyRows();
      const tried = emptyRows() as Record<RecordedTable, unknown[]>;
      for (const t of RECORDED_TABLES) {
        if (this.#failed.has(t)) (giveBack[t] as unknown[]).push(...rows[t]);
        else tried[t] = rows[t];
      }
      const requests = await this.#part.append(tried as unknown as TableRows, (t, back) => {
        this.#failed.add(t);
        (giveBack[t] as unknown[]).push(...back);
      });
      return { requests, giveBack, lost: noneLost(), entry: snapshot(this.#part.entry), bytes: this.#part.bytes };
    });
  }

  closePart(ended_ms: number, last: boolean): Promise<ClosePartResult> {
    return this.#then(async () => {
      const closed = snapshot(await this.#part.close(ended_ms));
      if (last) return { closed, next: null, bytes: this.#part.bytes };
      const index = Number(closed.dir.slice("part-".length)) + 1;
      this.#part = this.#store(index, ended_ms, false);
      await this.#part.start().catch(this.#onError);
      return { closed, next: snapshot(this.#part.entry), bytes: this.#part.bytes };
    });
  }

  writeManifest(text: string): Promise<void> {
    return this.#then(async () => {
      const file = join(this.#setup.out, "run.json");
      await fsp.writeFile(`${file}.tmp`, text);
      await fsp.rename(`${file}.tmp`, file);
    });
  }

  stop(): Promise<void> {
    return this.#then(() => Promise.resolve());
  }
}
