/**
 * `npx deno task run --workers N`: one run as N runner processes on this
 * machine, each a shard of one schedule (`shard-i-of-N/` in one run folder,
 * which every analysis verb reads as one run). The parent starts them, waits
 * until every one is prepared, gives them one start time, shows one progress
 * line for all, forwards a stop signal to every one and waits for them to
 * finalise, and exits non-zero when one failed, saying which.
 *
 * @module
 */
import { STOP_SIGNALS } from "../stop_signals.ts";
import { type LiveLine, type ProgressSnapshot, stderrLine } from "../progress.ts";
import type { StopSignal } from "../../schema/run_manifest.ts";
import { lines } from "./_lines.ts";
import { workersLine } from "./merged_progress.ts";
import { type EndMessage, messageLine, type ParentMessage, parseLine, WorkerMessage } from "./protocol.ts";
import { workerArgs } from "./worker_args.ts";
import { EXIT_NOT_STARTED } from "./worker_link.ts";
import { formatWorkersSummary, type WorkerOutcome, workersVerdict } from "./workers_summary.ts";

/** Time from the last worker's `ready` to the shared start: enough for the line to reach each and a timer to be set. */
export const START_MARGIN_MS = 500;

const SIGNAL_NUMBER: Record<StopSignal, number> = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };

/** Options of {@linkcode runWorkers}. */
export interface WorkersOptions {
  /** Each worker's shard, in worker order (runner/workers/worker_args.ts `workerShards`). */
  shards: readonly { index: number; count: number }[];
  runId: string;
  /** The run folder the workers write their `shard-i-of-N/` folders in. */
  runDir: string;
  /** The run's flags every worker gets (runner/workers/worker_args.ts `passedFlags`). */
  flags: readonly string[];
  /** The `deno run` permission flags of every worker. */
  permissions: readonly string[];
  /** The user's `--start-at`; null: the start is set once every worker is ready. */
  startAt: string | null;
  /** The merged progress line on stderr. */
  progress: boolean;
  /** @default START_MARGIN_MS */
  startMarginMs?: number;
}

interface Worker {
  k: number;
  shard: { index: number; count: number };
  child: Deno.ChildProcess;
  stdin: WritableStreamDefaultWriter<Uint8Array>;
  ready: boolean;
  exited: boolean;
  aborted: boolean;
  snapshot: ProgressSnapshot | undefined;
  end: EndMessage | null;
  lastError: string | null;
}

/** Runs the workers to their end; returns the parent's exit code. */
export async function runWorkers(o: WorkersOptions): Promise<number> {
  const out: LiveLine = stderrLine(5);
  const enc = new TextEncoder();
  let started = false;
  let stoppedBeforeStart: StopSignal | null = null;
  const workers: Worker[] = o.shards.map((shard, k) => {
    const child = new Deno.Command(Deno.execPath(), {
      args: workerArgs({ permissions: o.permissions, flags: o.flags, shard, runId: o.runId }),
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      // Its own session: a Ctrl-C on the terminal reaches the parent alone, which stops every worker once.
      detached: true,
    }).spawn();
    const w: Worker = {
      k,
      shard,
      child,
      stdin: child.stdin.getWriter(),
      ready: false,
      exited: false,
      aborted: false,
      snapshot: undefined,
      end: null,
      lastError: null,
    };
    return w;
  });
  const send = (w: Worker, m: ParentMessage) => {
    w.stdin.write(enc.encode(messageLine(m))).catch((e: Error) => {
      // A worker that exited cannot read: its exit says why. One that runs and cannot read is named.
      if (!w.exited) w.lastError = `its stdin could not be written: ${e.message}`;
    });
  };
  const abortAll = (reason: string) => {
    for (const w of workers) {
      if (w.exited || w.aborted) continue;
      w.aborted = true;
      send(w, { type: "abort", reason });
    }
  };
  const maybeStart = () => {
    if (started || workers.some((w) => !w.ready || w.aborted)) return;
    started = true;
    const startAt = o.startAt ?? new Date(Date.now() + (o.startMarginMs ?? START_MARGIN_MS)).toISOString();
    if (Date.parse(startAt) < Date.now()) {
      out.note(
        `warning: --start-at ${startAt} passed before every worker was ready: they start at once ` +
          `(start_skew_ms says how late)`,
      );
    }
    for (const w of workers) send(w, { type: "start", start_at: startAt });
  };
  const onMessage = (w: Worker, line: string) => {
    const m = parseLine(WorkerMessage, line);
    if (m === null) return out.note(`[worker ${w.k}] ${line}`);
    if (m.type === "ready") {
      w.ready = true;
      maybeStart();
    } else if (m.type === "progress") {
      const { type: _, ...snapshot } = m;
      w.snapshot = snapshot;
    } else w.end = m;
  };
  const readers = workers.map(async (w) => {
    const stdout = (async () => {
      for await (const line of lines(w.child.stdout)) onMessage(w, line);
    })();
    const stderr = (async () => {
      for await (const line of lines(w.child.stderr)) {
        // A worker's blank lines only cleared its own progress line: it has none here.
        if (!line.trim()) continue;
        w.lastError = line.trim();
        out.note(`[worker ${w.k}] ${line}`);
      }
    })();
    const status = await w.child.status;
    await Promise.all([stdout, stderr]);
    w.exited = true;
    // A worker that failed before the start: the others are not started (nothing is sent, their folders go).
    if (!started && status.code !== 0 && status.code !== EXIT_NOT_STARTED) {
      abortAll(`worker ${w.k} (shard-${w.shard.index}-of-${w.shard.count}) failed before the start`);
    }
    await closeInput(w);
    return status.code;
  });

  let signalled: StopSignal | null = null;
  const listeners = STOP_SIGNALS.map((signal) => {
    const handler = () => {
      if (!started) {
        stoppedBeforeStart ??= signal;
        out.note(`\n${signal}: stopping before the start: no worker is started, nothing is sent`);
        abortAll(`${signal} before the start`);
        return;
      }
      const again = signalled !== null;
      signalled ??= signal;
      out.note(
        again
          ? `\n${signal} again: every worker exits at once (their run.json stay "running"; rows flushed so far are kept)`
          : `\n${signal}: stopping every worker: each records the rest of its schedule not_sent and finishes its log ` +
            `(${signal} again to exit at once)`,
      );
      for (const w of workers) if (!w.exited) kill(w, signal);
      if (again) Deno.exit(128 + SIGNAL_NUMBER[signal]);
    };
    Deno.addSignalListener(signal, handler);
    return { signal, handler };
  });
  const state = () => ({
    count: workers.length,
    ready: workers.filter((w) => w.ready).length,
    exited: workers.filter((w) => w.exited).length,
    started,
    snapshots: workers.map((w) => w.snapshot),
  });
  const timer = o.progress ? setInterval(() => out.write(workersLine(state())), 1000) : undefined;
  let codes: number[];
  try {
    codes = await Promise.all(readers);
  } finally {
    clearInterval(timer);
    for (const l of listeners) Deno.removeSignalListener(l.signal, l.handler);
  }
  if (o.progress && started) out.end(workersLine(state()));
  const outcomes: WorkerOutcome[] = workers.map((w, i) => ({
    worker: w.k,
    shard: w.shard,
    code: codes[i]!,
    end: w.end,
    // Counted as stopped only when it did stop so: a worker that failed on its own before the abort came failed.
    aborted: w.aborted && codes[i] === EXIT_NOT_STARTED,
    lastError: w.lastError,
  }));
  if (!started) removeIfEmpty(o.runDir);
  else console.log(formatWorkersSummary(o.runDir, outcomes));
  const verdict = workersVerdict(outcomes);
  if (verdict.message) console.error(`error: ${verdict.message}`);
  if (started) console.log(`run written to ${o.runDir}`);
  if (stoppedBeforeStart && verdict.exitCode === 0) return 128 + SIGNAL_NUMBER[stoppedBeforeStart];
  return verdict.exitCode;
}

/** Closes a worker's stdin once it has exited; a pipe its end already broke needs no closing. */
async function closeInput(w: Worker): Promise<void> {
  try {
    await w.stdin.close();
  } catch (e) {
    if (!(e instanceof Deno.errors.BrokenPipe)) throw e;
  }
}

/** Sends a signal to a worker; one that has just exited is left alone. */
function kill(w: Worker, signal: StopSignal): void {
  try {
    w.child.kill(signal);
  } catch (e) {
    // Deno throws a TypeError for a child that has already exited: its status is collected anyway.
    if (!(e instanceof TypeError)) throw e;
  }
}

/** The run folder, when the workers made it and left it empty (nothing was started). */
function removeIfEmpty(dir: string): void {
  try {
    for (const _ of Deno.readDirSync(dir)) return;
    Deno.removeSync(dir);
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
}
