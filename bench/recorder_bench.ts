/**
 * The recorder's cost (docs/recorder.md "Cost"): N tasks recorded as a streaming chat service would (begin, received,
 * one streamed model call with `--tokens` tokens and usage, complete with an output, responded), then one flush and
 * the close. Prints, as JSON: the app's request path per task (p50, p99, µs of wall time: the calls the app makes),
 * the request path's CPU per task (µs, user + system of the process over the loop), the memory a recorded task holds
 * until the flush writes it (bytes of V8 heap per task: the heap after the loop minus before it, each read after a
 * full garbage collection, over the tasks), the flush's and the whole write's CPU per task (µs, user + system of the
 * process, every thread: building and checking the rows, hashing, CSV, Parquet), the same split by thread (the app's
 * thread, whose time the app's requests wait for, from Linux's /proc/self/task/<pid>/schedstat, null elsewhere; and the
 * others: the process's minus it, i.e. the writer thread and the runtime's own threads, e.g. the garbage collector's), what the heap still holds after
 * the close (bytes, all tasks together: the modules and the writers' state, not a per-task figure), and the longest
 * the event loop went without running a 1 ms timer during the flush and close (ms: on a loaded machine this measures
 * the machine too), with the load average before and after. With `--turns`, it also times the event loop's turns
 * during the flush and close (setImmediate callbacks one after the other: each turn holds one slice of the recorder's
 * work, or a garbage collection) and prints the wait of a request arriving at a random instant of them
 * (`wait_during_flush_ms`: p50, p99, p99.9, max); the spinning costs the app's thread CPU, so take the CPU figures
 * from a run without it.
 *
 * `--writer thread|app` chooses where the log is written (the recorder's `writer` option); `--slice-ms` and
 * `--batch-rows` set how the flush shares the app's thread (recorder/recorder.ts `FLUSH_SLICES`).
 *
 * ```sh
 * npx deno run -A --v8-flags=--expose-gc bench/recorder_bench.ts --tasks 10000 --tokens 50
 * ```
 *
 * Without `--v8-flags=--expose-gc` the heap figures are null (no collection before reading them).
 *
 * @module
 */
import process from "node:process";
import { parseArgs } from "node:util";
import { clearInterval, setImmediate, setInterval } from "node:timers";
import { recorder } from "../recorder/mod.ts";
import { FLUSH_SLICES } from "../recorder/recorder.ts";
import { mainThreadCpuUs } from "./_thread_cpu.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    tasks: { type: "string", default: "10000" },
    tokens: { type: "string", default: "50" },
    writer: { type: "string", default: "thread" },
    "slice-ms": { type: "string", default: String(FLUSH_SLICES.slice_ms) },
    "batch-rows": { type: "string", default: String(FLUSH_SLICES.batch_rows) },
    turns: { type: "boolean", default: false },
  },
});
const tasks = Number(values.tasks);
const tokens = Number(values.tokens);
const writer = values.writer as "thread" | "app";
const [sliceMs, batchRows] = [Number(values["slice-ms"]), Number(values["batch-rows"])];
if (
  !(Number.isSafeInteger(tasks) && tasks > 0 && Number.isSafeInteger(tokens) && tokens >= 0) ||
  (writer !== "thread" && writer !== "app") || !(sliceMs > 0) || !(Number.isSafeInteger(batchRows) && batchRows > 0)
) {
  console.error(
    "error: --tasks must be a positive integer, --tokens a non-negative one, --writer thread or app, --slice-ms > 0 " +
      "and --batch-rows a positive integer",
  );
  Deno.exit(2);
}
FLUSH_SLICES.slice_ms = sliceMs;
FLUSH_SLICES.batch_rows = batchRows;
const load0 = Deno.loadavg()[0]!;

/**
 * The wait of a request arriving at a random instant of the flush, from the event loop's turns (ms): it lands in a turn
 * with a chance proportional to the turn's length and waits for the rest of it (uniform over the turn), so
 * P(wait > w) = Σ max(0, Tᵢ − w) / Σ Tᵢ; the quantiles are found by bisection. E.g. turns of 9 ms and 1 ms: P(wait >
 * 0.5) = (8.5 + 0.5) / 10 = 0.9.
 */
function arrivalWait(turns: number[]): { turns: number; p50: number; p99: number; p999: number; max: number } {
  const total = turns.reduce((a, t) => a + t, 0);
  const over = (w: number) => turns.reduce((a, t) => a + Math.max(0, t - w), 0) / total;
  const max = turns.reduce((a, t) => Math.max(a, t), 0);
  const quantile = (q: number) => {
    let [lo, hi] = [0, max];
    for (let i = 0; i < 50; i++) {
      const mid = (lo + hi) / 2;
      if (over(mid) > 1 - q) lo = mid;
      else hi = mid;
    }
    return Math.round(hi * 1000) / 1000;
  };
  return {
    turns: turns.length,
    p50: quantile(0.5),
    p99: quantile(0.99),
    p999: quantile(0.999),
    max: Math.round(max * 1000) / 1000,
  };
}

/** V8's used heap after a full collection (bytes), or null when `gc` is not exposed (`--v8-flags=--expose-gc`). */
function heapAfterGc(): number | null {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return null;
  gc();
  return process.memoryUsage().heapUsed;
}

const dir = Deno.makeTempDirSync({ prefix: "recorder_bench_" });
try {
  const rec = recorder({
    out: `${dir}/run`,
    run_id: "bench",
    app: { name: "bench", version: "1" },
    // Every task fits (3 rows each), and the timer never flushes during the loop.
    buffer: { max_rows: 3 * tasks, flush_ms: 2 ** 31 - 1 },
    writer,
  });
  const output = "x".repeat(200);
  const perTask = new Float64Array(tasks);
  const heap0 = heapAfterGc();
  const cpuLoop0 = process.cpuUsage();
  for (let i = 0; i < tasks; i++) {
    const t0 = performance.now();
    const task = rec.begin({ class: "chat" });
    task.received();
    const call = task.attempt({ model: "m", streamed: true });
    call.headers(200);
    for (let k = 0; k < tokens; k++) call.token();
    call.end({ ok: true, usage: { input_tokens: 100, output_tokens: tokens } });
    task.complete({ output, valid: true, quality_ok: true });
    task.responded();
    perTask[i] = performance.now() - t0;
  }
  const cpuLoop = process.cpuUsage(cpuLoop0);
  const heapBuffered = heapAfterGc();
  perTask.sort();
  const rank = (q: number) => perTask[Math.max(0, Math.ceil(q * tasks) - 1)]! * 1000;

  let last = performance.now();
  let maxGap = 0;
  const probe = setInterval(() => {
    const now = performance.now();
    maxGap = Math.max(maxGap, now - last);
    last = now;
  }, 1);
  // A turn of the event loop, timed by setImmediate callbacks one after the other: each turn holds one slice of the
  // recorder's work (or a garbage collection) — how long a request arriving then would wait to be served.
  const turns: number[] = [];
  let spinning = values.turns;
  let lastTurn = performance.now();
  const spin = () => {
    const now = performance.now();
    turns.push(now - lastTurn);
    lastTurn = now;
    if (spinning) setImmediate(spin);
  };
  if (spinning) setImmediate(spin);
  const cpu0 = process.cpuUsage();
  const main0 = mainThreadCpuUs();
  await rec.flush();
  const cpuFlush = process.cpuUsage(cpu0);
  const mainFlush = mainThreadCpuUs();
  await rec.close();
  const cpuAll = process.cpuUsage(cpu0);
  const mainAll = mainThreadCpuUs();
  clearInterval(probe);
  spinning = false;
  const heapClosed = heapAfterGc();
  const us = (c: NodeJS.CpuUsage) => Math.round((c.user + c.system) / tasks * 10) / 10;
  const r1 = (x: number) => Math.round(x * 10) / 10;
  /** µs a task of the app's thread and of the others (the process's − the app's), over a span (null without /proc). */
  const split = (all: NodeJS.CpuUsage, main: number | null) => {
    if (main === null || main0 === null) return null;
    const app = (main - main0) / tasks;
    return { app_thread: r1(app), others: r1((all.user + all.system) / tasks - app) };
  };
  console.log(JSON.stringify({
    tasks,
    tokens,
    request_path_us: { p50: Math.round(rank(0.5) * 10) / 10, p99: Math.round(rank(0.99) * 10) / 10 },
    request_path_cpu_per_task_us: us(cpuLoop),
    heap_per_buffered_task_bytes: heap0 === null || heapBuffered === null
      ? null
      : Math.round((heapBuffered - heap0) / tasks),
    heap_after_close_bytes: heap0 === null || heapClosed === null ? null : heapClosed - heap0,
    flush_cpu_per_task_us: us(cpuFlush),
    write_cpu_per_task_us: us(cpuAll),
    flush_cpu_per_task_us_by_thread: split(cpuFlush, mainFlush),
    write_cpu_per_task_us_by_thread: split(cpuAll, mainAll),
    max_event_loop_gap_ms: Math.round(maxGap * 10) / 10,
    wait_during_flush_ms: values.turns ? arrivalWait(turns) : null,
    written: rec.stats().written,
    writer: JSON.parse(Deno.readTextFileSync(`${dir}/run/run.json`)).recorder.writer,
    flush_slices: { ...FLUSH_SLICES },
    load_average_1m: { before: Math.round(load0 * 100) / 100, after: Math.round(Deno.loadavg()[0]! * 100) / 100 },
    runtime: `deno ${Deno.version.deno}`,
  }));
} finally {
  Deno.removeSync(dir, { recursive: true });
}
