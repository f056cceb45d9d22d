/**
 * The recorder's cost (docs/recorder.md "Cost"): N tasks recorded as a streaming chat service would (begin, received,
 * one streamed model call with `--tokens` tokens and usage, complete with an output, responded), then one flush and
 * the close. Prints, as JSON: the app's request path per task (p50, p99, µs of wall time: the calls the app makes),
 * the request path's CPU per task (µs, user + system of the process over the loop), the memory a recorded task holds
 * until the flush writes it (bytes of V8 heap per task: the heap after the loop minus before it, each read after a
 * full garbage collection, over the tasks), the flush's and the whole write's CPU per task (µs, user + system of the
 * process: building and checking the rows, hashing, CSV, Parquet), what the heap still holds after the close (bytes,
 * all tasks together: the modules and the writers' state, not a per-task figure), and the longest the
 * event loop went without running a 1 ms timer during the flush and close (ms: on a loaded machine this measures the
 * machine too).
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
import { clearInterval, setInterval } from "node:timers";
import { recorder } from "../recorder/mod.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { tasks: { type: "string", default: "10000" }, tokens: { type: "string", default: "50" } },
});
const tasks = Number(values.tasks);
const tokens = Number(values.tokens);
if (!(Number.isSafeInteger(tasks) && tasks > 0 && Number.isSafeInteger(tokens) && tokens >= 0)) {
  console.error("error: --tasks must be a positive integer and --tokens a non-negative one");
  Deno.exit(2);
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
  const cpu0 = process.cpuUsage();
  await rec.flush();
  const cpuFlush = process.cpuUsage(cpu0);
  await rec.close();
  const cpuAll = process.cpuUsage(cpu0);
  clearInterval(probe);
  const heapClosed = heapAfterGc();
  const us = (c: NodeJS.CpuUsage) => Math.round((c.user + c.system) / tasks * 10) / 10;
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
    max_event_loop_gap_ms: Math.round(maxGap * 10) / 10,
    written: rec.stats().written,
    runtime: `deno ${Deno.version.deno}`,
  }));
} finally {
  Deno.removeSync(dir, { recursive: true });
}
