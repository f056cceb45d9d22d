/**
 * The log written on a writer thread (node:worker_threads, recorder/writer_worker.ts), and the choice of writer at the
 * recorder's start. The app's thread only posts the calls (the rows in small batches) and counts what comes back. The
 * thread never keeps the process alive while idle (unref'd), and is ref'd while any call is outstanding, so that an
 * awaited flush or close finishes even when nothing else is alive. A thread that fails to start, or stops, hands over
 * to an {@linkcode AppWriter} on the app's thread for the rest of the recording (run.json `recorder.writer` says so).
 *
 * @module
 */
import { existsSync } from "node:fs";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { partDir, type ProductionPart } from "../schema/production_manifest.ts";
import { emptyRows, RECORDED_TABLES, type TableRows } from "./buffer.ts";
import {
  type AppendResult,
  AppWriter,
  type ClosePartResult,
  type LogWriter,
  noneLost,
  type WriterKind,
  type WriterSetup,
} from "./writer.ts";
import { applyCall, type CallBody, fromWire, type WriterCall, type WriterReply } from "./writer_protocol.ts";

/** A call not yet answered: what to run again on the app's writer if the thread never started. */
interface Pending {
  call: WriterCall;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

/**
 * The writer thread's file beside this module: `writer_worker.mjs` (the Node bundle's layout, `deno task
 * recorder-node`) or, in Deno (which runs TypeScript), `writer_worker.ts` (the source layout); null when neither is
 * there or this module is not a file.
 */
export function writerWorkerFile(here: string = import.meta.url): URL | null {
  if (!here.startsWith("file:")) return null;
  const versions = process.versions as Record<string, string | undefined>;
  const names = versions.deno || versions.bun ? ["writer_worker.ts", "writer_worker.mjs"] : ["writer_worker.mjs"];
  if (here.endsWith(".mjs") || here.endsWith(".js")) names.reverse();
  for (const name of names) {
    const url = new URL(`./${name}`, here);
    if (existsSync(fileURLToPath(url))) return url;
  }
  return null;
}

/** Writes through the writer thread; falls back to the app's thread if the thread fails. */
export class ThreadWriter implements LogWriter {
  readonly #worker: Worker;
  readonly #setup: WriterSetup;
  readonly #onError: (e: unknown) => void;
  readonly #pending = new Map<number, Pending>();
  #next = 1;
  #ready = false;
  #stopped = false;
  #fallback: Promise<AppWriter> | null = null;
  #part: { index: number; started_ms: number };
  /** The current part's entry and CSV bytes as the thread last reported them. */
  #entry: ProductionPart;
  #bytes = -1;

  /** Starts the thread on `file`; throws if it cannot be started (the caller writes on the app's thread then). */
  constructor(file: URL, setup: WriterSetup, onError: (e: unknown) => void) {
    this.#setup = setup;
    this.#onError = onError;
    this.#part = { ...setup.part };
    const { index, started_ms } = setup.part;
    this.#entry = { dir: partDir(index), started_ms, ended_ms: null, format: "csv", requests: 0, files: {} };
    this.#worker = new Worker(file, { workerData: setup });
    this.#worker.unref();
    this.#worker.on("message", (m: WriterReply) => this.#reply(m));
    this.#worker.on("error", (e: unknown) => this.#fail(e));
    this.#worker.on("exit", (code: number) => {
      if (!this.#stopped) this.#fail(new Error(`the recorder's writer thread stopped (exit code ${code})`));
    });
  }

  get kind(): WriterKind {
    return this.#fallback ? "app" : "thread";
  }

  #call<T>(body: CallBody): Promise<T> {
    if (this.#fallback) return this.#fallback.then((w) => applyCall(w, body) as Promise<T>);
    const call = { ...body, id: this.#next++ } as WriterCall;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(call.id, { call, resolve: resolve as (v: unknown) => void, reject });
      // Outstanding calls keep the process alive until answered: an awaited close() is never cut short.
      if (this.#pending.size === 1) this.#worker.ref();
      try {
        this.#worker.postMessage(call);
      } catch (e) {
        this.#settled(call.id);
        reject(e);
      }
    });
  }

  #settled(id: number): Pending | undefined {
    const p = this.#pending.get(id);
    this.#pending.delete(id);
    if (this.#pending.size === 0) this.#worker.unref();
    return p;
  }

  #reply(m: WriterReply): void {
    if ("ready" in m) {
      this.#ready = true;
      return;
    }
    const p = this.#settled(m.id);
    for (const e of m.errors) this.#onError(fromWire(e));
    if (!p) return;
    if (!m.ok) return p.reject(fromWire(m.error));
    if (p.call.op === "append") {
      const r = m.result as AppendResult;
      [this.#entry, this.#bytes] = [r.entry, r.bytes];
    }
    if (p.call.op === "closePart") {
      const r = m.result as ClosePartResult;
      [this.#entry, this.#bytes] = [r.next ?? r.closed, r.bytes];
      if (r.next) this.#part = { index: this.#part.index + 1, started_ms: r.next.started_ms };
    }
    p.resolve(m.result);
  }

  /**
   * The thread failed to start or stopped: the failure is counted and the app's thread writes from now on. Calls the
   * thread never began (it never became ready) are done there; an append it held is counted as lost (its rows may
   * or may not be in the part's CSV), and the part it was writing is taken over as CSV.
   */
  #fail(e: unknown): void {
    if (this.#fallback || this.#stopped) return;
    this.#onError(e);
    const setup = { ...this.#setup, part: { ...this.#part } };
    const entry = this.#entry;
    this.#fallback = this.#ready
      ? AppWriter.adopt(setup, entry, this.#onError)
      : Promise.resolve(new AppWriter(setup, this.#onError));
    const ready = this.#ready;
    const held = [...this.#pending.values()];
    this.#pending.clear();
    Promise.resolve(this.#worker.terminate()).catch(this.#onError);
    for (const p of held) {
      if (ready && p.call.op === "append") p.resolve(lostAppend(p.call.rows, entry, this.#bytes));
      else {
        this.#fallback.then((w) => applyCall(w, p.call)).then(p.resolve, p.reject);
      }
    }
  }

  append(rows: TableRows, flush: number): Promise<AppendResult> {
    return this.#call({ op: "append", rows, flush });
  }

  closePart(ended_ms: number, last: boolean): Promise<ClosePartResult> {
    return this.#call({ op: "closePart", ended_ms, last });
  }

  writeManifest(text: string): Promise<void> {
    return this.#call({ op: "manifest", text });
  }

  /** Stops the thread (the recorder is closed: every call was answered). */
  async stop(): Promise<void> {
    if (this.#fallback) return (await this.#fallback).stop();
    this.#stopped = true;
    // Ref'd while it ends, so that an awaited close() does not leave the process without anything alive.
    this.#worker.ref();
    await this.#worker.terminate();
  }
}

/** An append the stopped thread held: nothing known written, every row counted as lost. */
function lostAppend(rows: TableRows, entry: ProductionPart, bytes: number): AppendResult {
  const lost = noneLost();
  for (const t of RECORDED_TABLES) lost[t] = rows[t].length;
  return { requests: 0, giveBack: emptyRows(), lost, entry, bytes };
}

/**
 * The writer of a recording: on a writer thread unless `wanted` is `app`, or no writer thread can be started here (no
 * worker file beside this module, or the runtime refuses the thread) — then on the app's thread.
 */
export function startWriter(setup: WriterSetup, onError: (e: unknown) => void, wanted: WriterKind): LogWriter {
  const file = wanted === "thread" ? writerWorkerFile() : null;
  if (file) {
    try {
      return new ThreadWriter(file, setup, onError);
    } catch (e) {
      onError(e);
    }
  }
  return new AppWriter(setup, onError);
}
