/**
 * The messages between the recorder and its writer thread (recorder/thread_writer.ts ⇄ recorder/writer_worker.ts):
 * each call carries an id, each reply the same id, the call's result or its error, and the errors the writer met
 * while doing it (counted by the recorder as they arrive). Errors cross as plain objects that keep what a file system
 * error says (`code`, `syscall`, `path`), which the structured clone of an `Error` drops.
 *
 * @module
 */
import type { TableRows } from "./buffer.ts";
import { AppWriter, type WriterSetup } from "./writer.ts";

/** A call to the writer thread. */
export type WriterCall =
  | { id: number; op: "append"; rows: TableRows; flush: number }
  | { id: number; op: "closePart"; ended_ms: number; last: boolean }
  | { id: number; op: "manifest"; text: string };

/** A call without its id (each kind of call apart). */
export type CallBody<C = WriterCall> = C extends WriterCall ? Omit<C, "id"> : never;

/** Does one call on a writer of the app's kind: on the writer thread, or on the app's thread when the thread failed. */
export function applyCall(writer: AppWriter, call: CallBody): Promise<unknown> {
  switch (call.op) {
    case "append":
      return writer.append(call.rows, call.flush);
    case "closePart":
      return writer.closePart(call.ended_ms, call.last);
    case "manifest":
      return writer.writeManifest(call.text);
  }
}

/** An error as it crosses between threads. */
export interface WireError {
  name: string;
  message: string;
  stack?: string;
  code?: string;
  errno?: number;
  syscall?: string;
  path?: string;
}

/** The writer thread's messages: it is ready (its modules loaded), or one call's reply. */
export type WriterReply =
  | { ready: true }
  | { id: number; ok: true; result: unknown; errors: WireError[] }
  | { id: number; ok: false; error: WireError; errors: WireError[] };

const KEPT = ["code", "errno", "syscall", "path"] as const;

/**
 * An error as a plain object: its name, message and stack, and the file system's fields when present.
 *
 * @example A file system error keeps its code across the thread boundary
 * ```ts
 * import { fromWire, toWire } from "./writer_protocol.ts";
 * import assert from "node:assert/strict";
 * const e = Object.assign(new Error("no such file"), { code: "ENOENT", syscall: "open" });
 * const back = fromWire(structuredClone(toWire(e)));
 * assert.equal(back.message, "no such file");
 * assert.equal((back as { code?: string }).code, "ENOENT");
 * assert.equal(toWire("text").message, "text");
 * ```
 */
export function toWire(e: unknown): WireError {
  if (!(e instanceof Error)) return { name: "Error", message: String(e) };
  const w: WireError = { name: e.name, message: e.message };
  if (e.stack !== undefined) w.stack = e.stack;
  const fields = e as unknown as Record<string, unknown>;
  for (const k of KEPT) {
    const v = fields[k];
    if (typeof v === "string" || typeof v === "number") (w as unknown as Record<string, unknown>)[k] = v;
  }
  return w;
}

/** The error a {@linkcode WireError} stands for (an `Error` with the same name, message, stack and fields). */
export function fromWire(w: WireError): Error {
  const e = new Error(w.message);
  e.name = w.name;
  if (w.stack !== undefined) e.stack = w.stack;
  for (const k of KEPT) if (w[k] !== undefined) (e as unknown as Record<string, unknown>)[k] = w[k];
  return e;
}

/** The writer thread's side of its port (node:worker_threads `parentPort`). */
export interface WriterPort {
  on(event: "message", listener: (call: WriterCall) => void): unknown;
  postMessage(reply: WriterReply): void;
}

/**
 * Answers the recorder's calls on `port` with an {@linkcode AppWriter} of `setup`: each call after every call before
 * it, in the order they arrive; each reply with the call's result or error and the errors met doing it. Posts
 * `{ ready: true }` once listening.
 */
export function serveWriter(port: WriterPort, setup: WriterSetup): void {
  let errors: WireError[] = [];
  const writer = new AppWriter(setup, (e) => errors.push(toWire(e)));
  const handle = async (call: WriterCall): Promise<void> => {
    let reply: WriterReply;
    try {
      reply = { id: call.id, ok: true, result: await applyCall(writer, call), errors };
    } catch (e) {
      reply = { id: call.id, ok: false, error: toWire(e), errors };
    }
    errors = [];
    try {
      port.postMessage(reply);
    } catch (e) {
      // A result that cannot be cloned (a bug of the writer): the call fails, and the recorder counts it.
      port.postMessage({ id: call.id, ok: false, error: toWire(e), errors: [] });
    }
  };
  let queue: Promise<void> = Promise.resolve();
  port.on("message", (call) => {
    queue = queue.then(() => handle(call));
  });
  port.postMessage({ ready: true });
}
