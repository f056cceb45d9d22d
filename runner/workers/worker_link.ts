/**
 * A worker's side of `--workers` (`npx deno task run --as-worker`): the run
 * options that report to the parent and wait for its start time, over the
 * lines of runner/workers/protocol.ts.
 *
 * @module
 */
import type { RunResult } from "../run.ts";
import type { RunOptions } from "../run_options.ts";
import { lines } from "./_lines.ts";
import { messageLine, ParentMessage, parseLine, type WorkerMessage } from "./protocol.ts";

/** Exit code of a worker its parent stopped before the start: nothing was sent, its shard folder is removed. */
export const EXIT_NOT_STARTED = 5;

/** The run was not started: the parent aborted it before the start (another worker failed), or is gone. */
export class WorkerAborted extends Error {
  override name = "WorkerAborted";
}

/** Where a worker talks to its parent. */
export interface WorkerIo {
  /** The parent's lines (the worker's stdin). */
  input: ReadableStream<Uint8Array>;
  /** Writes one line to the parent (the worker's stdout); throws when the parent is gone. */
  write(line: string): void;
  /** A line for the user (the worker's stderr). */
  warn(message: string): void;
}

/** A worker's connection to its parent. */
export interface WorkerLink {
  /** What the run needs to report to the parent and wait for it. */
  options: Required<Pick<RunOptions, "onProgress" | "startGate" | "signal">>;
  /** Reports the finalised run. */
  end(run: RunResult): void;
  /** After {@linkcode WorkerAborted}: removes the run folder this worker made (nothing was sent, nothing written). */
  discard(): void;
}

/** The stdio of this process as a worker's channel to its parent. */
export function stdioLink(): WorkerIo {
  const enc = new TextEncoder();
  return {
    input: Deno.stdin.readable,
    write: (line) => void Deno.stdout.writeSync(enc.encode(line)),
    warn: (message) => console.error(message),
  };
}

/**
 * Connects a run to its parent: progress snapshots go to the parent, the run
 * waits at the gate for the parent's start time (rejecting with
 * {@linkcode WorkerAborted} on `abort`, or when the parent is gone before the
 * start), and a parent gone after the start (its stdin closed, or a write
 * failed) stops the run as a signal would: the rest is `not_sent`, the log is
 * finalised.
 */
export function linkToParent(io: WorkerIo): WorkerLink {
  const stop = new AbortController();
  // What the parent said before the start, kept until the run reaches the gate (it may say it first).
  let startAt: string | undefined;
  let aborted: WorkerAborted | null = null;
  let waiting: { resolve(iso: string): void; reject(e: WorkerAborted): void } | null = null;
  const settle = () => {
    if (aborted) waiting?.reject(aborted);
    else if (startAt !== undefined) waiting?.resolve(startAt);
  };
  let dir: string | null = null;
  const parentGone = (why: string) => {
    if (startAt === undefined) {
      aborted ??= new WorkerAborted(`the parent of --workers is gone (${why}) before the start`);
      settle();
    } else if (!stop.signal.aborted) {
      io.warn(`the parent of --workers is gone (${why}): stopping; the rest of the schedule is recorded not_sent`);
      stop.abort();
    }
  };
  const send = (m: WorkerMessage) => {
    try {
      io.write(messageLine(m));
    } catch (e) {
      parentGone(`writing to it failed: ${(e as Error).message}`);
    }
  };
  (async () => {
    for await (const line of lines(io.input)) {
      const m = parseLine(ParentMessage, line);
      if (m === null) io.warn(`warning: not a message from the parent of --workers: ${JSON.stringify(line)}`);
      else if (m.type === "abort") aborted ??= new WorkerAborted(`not started: ${m.reason}`);
      else if (!aborted) startAt ??= m.start_at;
      settle();
    }
    parentGone("its end of the pipe closed");
  })().catch((e) => parentGone(`reading from it failed: ${(e as Error).message}`));
  return {
    options: {
      signal: stop.signal,
      onProgress: (s) => send({ type: "progress", ...s }),
      startGate: (prepared) => {
        dir = prepared.dir;
        const gate = new Promise<string>((resolve, reject) => (waiting = { resolve, reject }));
        send({ type: "ready", dir: prepared.dir, scheduled: prepared.scheduled });
        settle();
        return gate;
      },
    },
    end({ dir, manifest, summary }) {
      const r = manifest.result;
      send({
        type: "end",
        dir,
        status: r.status,
        epoch_iso: manifest.epoch_iso,
        start_iso: manifest.plan.start_iso,
        offered: r.offered,
        by_outcome: Object.fromEntries(summary.byOutcome),
        not_sent: r.not_sent,
        client_shed: r.client_shed,
        send_lag_p99_ms: r.send_lag_p99_ms,
        send_lag_max_ms: r.send_lag_max_ms,
        client_limited: r.client_limited,
        client_limit_reason: r.client_limit_reason,
        runner_cpu_ms: r.runner_cpu_ms,
      });
    },
    discard() {
      if (dir !== null) Deno.removeSync(dir, { recursive: true });
    },
  };
}
