/**
 * The recorder: begins tasks at user actions, joins page records, builds each finished task's rows once it settles
 * (`settle_ms` after it ended) and hands them to the writer at once; a flush timer sweeps the open tasks (timeouts,
 * pages that never came), rewrites run.json and rotates parts. No timer of it keeps the process alive. The writing
 * (CSV, Parquet, rotation, run.json) is the writer's (recorder/writer.ts): on a writer thread, or on the app's thread
 * when none can be started; settles and flushes run on one queue, in order, off the app's requests, and nothing the
 * recorder does throws into the app once it is created.
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { clearInterval, clearTimeout, setImmediate, setInterval, setTimeout } from "node:timers";
import { PART_DIR_PATTERN, partDir, type ProductionPart } from "../schema/production_manifest.ts";
import { batches, emptyRows, RECORDED_TABLES, RowBuffer } from "./buffer.ts";
import { buildManifest, manifestText, writeManifestSync } from "./manifest.ts";
import { resolveOptions, type Settings } from "./options.ts";
import { IdSource } from "./ids.ts";
import { checkPageRecord } from "./page_join.ts";
import { headerBytes, startPartSync } from "./part_store.ts";
import { isSampled } from "./sampling.ts";
import { RecordedTask } from "./task.ts";
import { startWriter } from "./thread_writer.ts";
import { UnsampledTask } from "./unsampled_task.ts";
import { readiness } from "./readiness.ts";
import { rowsProblem, stageIndex, taskRows } from "./task_rows.ts";
import type { Recorder, RecorderOptions, RecorderStats, Task, TaskStart } from "./types.ts";
import { RECORDER_VERSION } from "./version.ts";
import type { AppendResult, LogWriter } from "./writer.ts";

/** The longest request id the recorder takes (a longer one is an error: the task gets a new id, as one without). */
const MAX_ID = 256;

/**
 * How the flush shares the app's thread: it builds rows and posts them to the writer for at most `slice_ms` at a time
 * before it lets the app run, and hands the writer `batch_rows` rows of a table at a time (docs/recorder.md "Cost",
 * where these were measured; the benches set them to compare).
 */
export const FLUSH_SLICES = { slice_ms: 0.2, batch_rows: 64 };

/** Lets the app's pending callbacks and I/O run before the recorder goes on. */
function yieldToApp(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

class GoodputRecorder implements Recorder {
  readonly run_id: string;
  readonly out: string;
  readonly #s: Settings;
  readonly #epoch: number;
  readonly #als = new AsyncLocalStorage<Task>();
  readonly #ids = new IdSource();
  readonly #open = new Map<string, RecordedTask>();
  readonly #buffer: RowBuffer;
  readonly #parts: ProductionPart[] = [];
  readonly #stageCounts = new Map<number, number>();
  readonly #classes: Set<string>;
  readonly #counts = { begun: 0, sampled_out: 0, written: 0, page_records_unjoined: 0, recorder_errors: 0 };
  readonly #timer: ReturnType<typeof setInterval>;
  /** Tasks that ended (and need no page record, or have it), in the order they ended: built once they settle. */
  #ended: RecordedTask[] = [];
  #settleTimer: ReturnType<typeof setTimeout> | null = null;
  readonly #host;
  readonly #writer: LogWriter;
  /** The current part's CSV bytes (headers included), as the writer last reported them. */
  #bytes: number;
  #flushes = 0;
  #ended_ms = 0;
  #queue: Promise<void> = Promise.resolve();
  #ticking = false;
  #closing: Promise<void> | null = null;

  constructor(s: Settings) {
    this.#s = s;
    this.run_id = s.run_id;
    this.out = s.out;
    this.#epoch = Math.floor(s.clock.now());
    this.#buffer = new RowBuffer(s.max_rows);
    this.#classes = new Set(s.workload.classes);
    this.#host = {
      now: () => s.clock.now(),
      error: (e: unknown) => this.#error(e),
      als: this.#als,
      ended: (task: RecordedTask) => this.#taskEnded(task),
    };
    if (existsSync(s.out)) {
      const taken = readdirSync(s.out).filter((f) => f === "run.json" || PART_DIR_PATTERN.test(f));
      if (taken.length) {
        throw new Error(`${s.out}: holds another run (${taken.join(", ")}); give the recorder a new folder`);
      }
    }
    mkdirSync(s.out, { recursive: true });
    const identity = { run_id: s.run_id, epoch_iso: new Date(this.#epoch).toISOString() };
    startPartSync(s.out, 0, identity);
    this.#parts.push({ dir: partDir(0), started_ms: 0, ended_ms: null, format: "csv", requests: 0, files: {} });
    this.#bytes = headerBytes();
    this.#writer = startWriter(
      {
        out: s.out,
        identity,
        createdBy: `goodput-recorder ${RECORDER_VERSION} (hyparquet-writer)`,
        part: { index: 0, started_ms: 0 },
      },
      (e) => this.#error(e),
      s.writer,
    );
    try {
      writeManifestSync(s.out, this.#manifest("recording"));
    } catch (e) {
      void this.#writer.stop();
      throw e;
    }
    this.#timer = setInterval(() => this.#tick(), s.flush_ms);
    this.#timer.unref();
  }

  /** Counts a failure the recorder met outside its own methods (see {@linkcode countRecorderError}). */
  noteError(e: unknown): void {
    this.#error(e);
  }

  #error(e: unknown): void {
    this.#counts.recorder_errors++;
    try {
      this.#s.onError(e);
    } catch {
      // The app's own error handler failed: the error is counted already, and nothing reaches the app.
    }
  }

  begin(start: TaskStart): Task {
    let id = "";
    try {
      id = typeof start?.request_id === "string" && start.request_id.length > 0 ? start.request_id : this.#ids.next();
      if (this.#closing) return new UnsampledTask(id, this.#als);
      if (id.length > MAX_ID) {
        this.#error(
          new TypeError(`begin: a request id of ${id.length} characters (at most ${MAX_ID}); a new one is used`),
        );
        id = this.#ids.next();
      }
      if (typeof start.class !== "string" || start.class.length === 0) {
        throw new TypeError("begin: class must be a non-empty string; the task is not recorded");
      }
      this.#counts.begun++;
      this.#classes.add(start.class);
      if (!isSampled(id, this.#s.sample)) {
        this.#counts.sampled_out++;
        return new UnsampledTask(id, this.#als);
      }
      if (this.#open.has(id)) throw new TypeError(`begin: request id ${id} is already open; not recorded twice`);
      const priority = start.priority ?? 0;
      if (!Number.isSafeInteger(priority)) throw new TypeError(`begin: priority ${priority} is not an integer`);
      const case_id = start.case_id ?? start.class;
      if (typeof case_id !== "string") throw new TypeError("begin: case_id must be a string");
      const task = new RecordedTask(this.#host, { ...start, priority }, {
        request_id: id,
        case_id,
        class: start.class,
      });
      this.#open.set(id, task);
      return task;
    } catch (e) {
      this.#error(e);
      return new UnsampledTask(id, this.#als);
    }
  }

  page(record: unknown): void {
    try {
      const check = checkPageRecord(record);
      if (!check.ok) throw new TypeError(`page record: ${check.problems.join("; ")}`);
      const task = this.#open.get(check.record.request_id);
      if (!task || task.closed || task.state.page !== null) {
        this.#counts.page_records_unjoined++;
        return;
      }
      task.state.page = check.record;
      if (task.state.done !== null) this.#taskEnded(task);
    } catch (e) {
      this.#error(e);
    }
  }

  clockNow(): number {
    return this.#s.clock.now();
  }

  current(): Task | undefined {
    return this.#als.getStore();
  }

  stats(): RecorderStats {
    const { begun, sampled_out, written, page_records_unjoined, recorder_errors } = this.#counts;
    return {
      begun,
      sampled_out,
      written,
      buffered: this.#buffer.size,
      dropped: { ...this.#buffer.dropped },
      page_records_unjoined,
      recorder_errors,
    };
  }

  /** Runs `job` after every job before it; a failure is counted, never passed on. */
  #enqueue(job: () => Promise<void>): Promise<void> {
    const run = this.#queue.then(job).catch((e) => this.#error(e));
    this.#queue = run;
    return run;
  }

  /**
   * A task ended (or its page joined after it ended): it settles `settle_ms` later, unless it still waits for its
   * page record (the page's join, or the flush's sweep once `page_wait_ms` passed, builds it then).
   */
  #taskEnded(task: RecordedTask): void {
    try {
      if (this.#closing || task.closed || (task.state.page_expected && task.state.page === null)) return;
      this.#ended.push(task);
      this.#armSettle();
    } catch (e) {
      this.#error(e);
    }
  }

  #armSettle(): void {
    if (this.#settleTimer !== null || this.#closing) return;
    this.#settleTimer = setTimeout(() => this.#settleEnded(), this.#s.settle_ms);
    this.#settleTimer.unref();
  }

  /**
   * Builds the rows of the ended tasks that settled and hands them to the writer at once (a finished task is not kept
   * on the app's heap until the next flush: docs/recorder.md "Cost"); waits again for those that have not.
   */
  #settleEnded(): void {
    this.#settleTimer = null;
    const ended = this.#ended;
    this.#ended = [];
    void this.#enqueue(async () => {
      const waiting = await this.#build(ended, this.#s.clock.now(), this.#s.settle_ms, false);
      if (this.#buffer.size) await this.#write();
      if (waiting.length && !this.#closing) {
        this.#ended.push(...waiting);
        this.#armSettle();
      }
    });
  }

  #tick(): void {
    if (this.#ticking || this.#closing) return;
    this.#ticking = true;
    void this.#flush(this.#s.settle_ms).finally(() => (this.#ticking = false));
  }

  flush(): Promise<void> {
    return this.#flush(0);
  }

  /** Builds every open task ready `settleMs` after it ended (0: every ended one), writes, rotates when due. */
  #flush(settleMs: number): Promise<void> {
    if (this.#closing) return this.#closing;
    return this.#enqueue(async () => {
      const now = this.#s.clock.now();
      await this.#build([...this.#open.values()], now, settleMs, false);
      await this.#write();
      const rel = now - this.#epoch;
      const part = this.#parts.at(-1)!;
      if (this.#bytes >= this.#s.rotate_bytes || rel - part.started_ms >= this.#s.rotate_s * 1000) {
        await this.#rotateAt(rel);
      }
      await this.#finishFlush(rel, "recording");
    });
  }

  rotate(): Promise<void> {
    if (this.#closing) return this.#closing;
    return this.#enqueue(async () => {
      const now = this.#s.clock.now();
      await this.#build([...this.#open.values()], now, 0, false);
      await this.#write();
      await this.#rotateAt(now - this.#epoch);
      await this.#finishFlush(now - this.#epoch, "recording");
    });
  }

  close(): Promise<void> {
    if (this.#closing) return this.#closing;
    clearInterval(this.#timer);
    if (this.#settleTimer !== null) clearTimeout(this.#settleTimer);
    this.#settleTimer = null;
    this.#ended = [];
    this.#closing = this.#enqueue(async () => {
      const now = this.#s.clock.now();
      await this.#build([...this.#open.values()], now, 0, true);
      await this.#write();
      // Rows whose last write failed cannot be kept past the close: they are counted as dropped.
      this.#buffer.dropAll();
      await this.#closePart(now - this.#epoch, true);
      await this.#finishFlush(now - this.#epoch, "closed");
      for (const x of this.#s.exporters) await x.close().catch((e) => this.#error(e));
      await this.#writer.stop().catch((e) => this.#error(e));
    });
    return this.#closing;
  }

  /**
   * Builds the rows of each of `tasks` that is ready `settleMs` after it ended (all of them at close), in slices of
   * at most FLUSH_SLICES.slice_ms between which the app runs: a flush of many tasks never holds the event loop for long.
   * Returns the tasks that still wait.
   */
  async #build(
    tasks: readonly RecordedTask[],
    now: number,
    settleMs: number,
    closing: boolean,
  ): Promise<RecordedTask[]> {
    const opts = { page_wait_ms: this.#s.page_wait_ms, task_timeout_ms: this.#s.task_timeout_ms, settle_ms: settleMs };
    const waiting: RecordedTask[] = [];
    let slice = performance.now();
    for (const task of tasks) {
      if (task.closed) continue;
      const r = readiness(task.state, now, opts, closing);
      if (r === "wait") {
        waiting.push(task);
        continue;
      }
      this.#buildTask(task, now, r === "ready" ? null : r);
      if (performance.now() - slice > FLUSH_SLICES.slice_ms) {
        await yieldToApp();
        slice = performance.now();
      }
    }
    return waiting;
  }

  #buildTask(task: RecordedTask, now: number, unfinished: "unfinished_timeout" | "unfinished_at_close" | null): void {
    task.closed = true;
    this.#open.delete(task.request_id);
    try {
      const s = this.#s;
      const stage_ms = s.stage_s * 1000;
      const rows = taskRows(task.state, {
        run_id: s.run_id,
        epoch_ms: this.#epoch,
        route: s.route,
        provider: s.provider,
        model: s.model,
        stage_ms,
        now,
        unfinished,
      });
      const problem = rowsProblem(rows);
      if (problem) throw new TypeError(`task ${task.request_id}: rows the log cannot hold, not written: ${problem}`);
      const window = stageIndex(rows.request.scheduled_ms, stage_ms, now - this.#epoch);
      this.#stageCounts.set(window, (this.#stageCounts.get(window) ?? 0) + 1);
      if (!this.#buffer.add(rows)) return;
      for (const x of s.exporters) {
        try {
          x.export(rows);
        } catch (e) {
          this.#error(e);
        }
      }
    } catch (e) {
      this.#error(e);
    }
  }

  /**
   * Hands the buffered rows to the writer in batches (FLUSH_SLICES.batch_rows rows of a table each), letting the app
   * run between slices; then counts what was written and puts back, in order, what was not.
   */
  async #write(): Promise<void> {
    const rows = this.#buffer.take();
    const flush = ++this.#flushes;
    const list = [...batches(rows, FLUSH_SLICES.batch_rows)];
    // Each call's outcome is taken at once (never a rejection left unhandled while the app runs between slices).
    const calls: Promise<{ ok: true; r: AppendResult } | { ok: false; e: unknown }>[] = [];
    let slice = performance.now();
    for (const batch of list) {
      calls.push(
        this.#writer.append(batch, flush).then((r) => ({ ok: true as const, r }), (e) => ({ ok: false as const, e })),
      );
      if (performance.now() - slice > FLUSH_SLICES.slice_ms) {
        await yieldToApp();
        slice = performance.now();
      }
    }
    const back = emptyRows();
    for (const [i, done] of (await Promise.all(calls)).entries()) {
      if (!done.ok) {
        // The writer failed the whole call (a bug, not the disk's): its rows are given back, for the next flush.
        this.#error(done.e);
        for (const t of RECORDED_TABLES) (back[t] as unknown[]).push(...list[i]![t]);
        continue;
      }
      const r = done.r;
      this.#counts.written += r.requests;
      for (const t of RECORDED_TABLES) {
        (back[t] as unknown[]).push(...r.giveBack[t]);
        this.#buffer.dropped[t] += r.lost[t];
      }
      this.#parts[this.#parts.length - 1] = r.entry;
      if (r.bytes >= 0) this.#bytes = r.bytes;
    }
    for (const t of RECORDED_TABLES) this.#buffer.putBack(t, back[t]);
  }

  async #rotateAt(rel: number): Promise<void> {
    await this.#closePart(rel, false);
  }

  /** Closes the current part (and starts the next unless `last`), keeping run.json's entries as the writer reports. */
  async #closePart(rel: number, last: boolean): Promise<void> {
    try {
      const r = await this.#writer.closePart(rel, last);
      this.#parts[this.#parts.length - 1] = r.closed;
      if (r.next) this.#parts.push(r.next);
      if (r.bytes >= 0) this.#bytes = r.bytes;
    } catch (e) {
      this.#error(e);
    }
  }

  async #finishFlush(rel: number, status: "recording" | "closed"): Promise<void> {
    this.#ended_ms = Math.max(this.#ended_ms, rel);
    try {
      await this.#writer.writeManifest(manifestText(this.#manifest(status)));
    } catch (e) {
      this.#error(e);
    }
    for (const x of this.#s.exporters) await x.flush().catch((e) => this.#error(e));
  }

  #manifest(status: "recording" | "closed") {
    const d = this.#buffer.dropped;
    return buildManifest({
      settings: this.#s,
      epoch_ms: this.#epoch,
      status,
      ended_ms: this.#ended_ms,
      parts: this.#parts,
      requests: this.#counts.written,
      dropped: {
        ...d,
        page_records_unjoined: this.#counts.page_records_unjoined,
        recorder_errors: this.#counts.recorder_errors,
      },
      stageCounts: this.#stageCounts,
      classes: [...this.#classes],
      writer: this.#writer.kind,
    });
  }
}

/**
 * A recorder writing a production run folder at `options.out` (docs/recorder.md). Throws (a `TypeError` listing every
 * problem, or an `Error` for a folder that holds another run, or the file system's error) only here, at the app's
 * start; nothing it returns ever throws into the app.
 */
export function recorder(options: RecorderOptions): Recorder {
  return new GoodputRecorder(resolveOptions(options));
}

/** Counts a failure outside the recorder's own methods (recorder/http.ts: a body that is not JSON). */
export function countRecorderError(rec: Recorder, e: unknown): void {
  if (rec instanceof GoodputRecorder) rec.noteError(e);
}
