/**
 * The machine's own CPU contention over a run, so that a busy machine is told apart from a slow client
 * (docs/runner.md, "CPU contention"). Linux only, from `/proc`:
 *
 * - the runner's **main thread** (where the event loop sends every request): its time on a CPU and its **run-queue
 *   wait** — time it was ready to run but waited for a CPU — from `/proc/thread-self/schedstat` (nanoseconds);
 * - the **machine's busy share**: non-idle CPU time over all CPU time, from the `cpu` line of `/proc/stat`;
 * - the **load average** (1 min) from `/proc/loadavg`, sampled once a second: its mean and maximum over the run.
 *
 * Reads are made at ms 0, once a second (the load average only) and at the end: no cost per request. Elsewhere
 * (not Linux, no `/proc`) nothing is recorded: run.json says `null`, never zero.
 *
 * @module
 */
import type { ClientLimitCause, CpuContention } from "../schema/mod.ts";

/** One reading of the main thread's scheduler counters. */
export interface SchedStat {
  /** Time on a CPU, ms. */
  cpuMs: number;
  /** Time ready to run but waiting for a CPU (run-queue wait), ms. */
  waitMs: number;
  /** Times it was put on a CPU. */
  slices: number;
}

/**
 * `/proc/<pid>/schedstat` or `/proc/thread-self/schedstat` (`<on-cpu ns> <run-queue ns> <timeslices>`), null when
 * unreadable.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseSchedStat } from "./cpu_contention.ts";
 * assert.deepEqual(parseSchedStat("1724660 12124054 2\n"), { cpuMs: 1.72466, waitMs: 12.124054, slices: 2 });
 * assert.equal(parseSchedStat("garbage"), null);
 * ```
 */
export function parseSchedStat(text: string): SchedStat | null {
  const m = /^(\d+) (\d+) (\d+)\s*$/.exec(text);
  if (!m) return null;
  return { cpuMs: Number(m[1]) / 1e6, waitMs: Number(m[2]) / 1e6, slices: Number(m[3]) };
}

/** The `cpu` line of `/proc/stat`: busy (every field but idle and iowait) and total jiffies. */
export interface CpuTimes {
  busy: number;
  total: number;
}

/**
 * The first (`cpu`, all CPUs) line of `/proc/stat`, null when unreadable. Busy = user + nice + system + irq + softirq
 * + steal; idle and iowait are not busy; guest time is already inside user and nice.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseProcStat } from "./cpu_contention.ts";
 * // user 10, nice 1, system 4, idle 80, iowait 5, irq 0, softirq 0, steal 0 → busy 15 of 100.
 * assert.deepEqual(parseProcStat("cpu  10 1 4 80 5 0 0 0 0 0\ncpu0 1 1 1 1 1 1 1 1\n"), { busy: 15, total: 100 });
 * ```
 */
export function parseProcStat(text: string): CpuTimes | null {
  const m = /^cpu\s+([\d ]+)/.exec(text);
  if (!m) return null;
  const f = m[1]!.trim().split(/\s+/).map(Number);
  if (f.length < 4 || f.some((x) => !Number.isFinite(x))) return null;
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = f;
  const busy = user + nice + system + irq + softirq + steal;
  return { busy, total: busy + idle + iowait };
}

/** The 1-minute load average of `/proc/loadavg`, null when unreadable. */
export function parseLoadAvg(text: string): number | null {
  const v = Number(text.split(" ")[0]);
  return text.trim() !== "" && Number.isFinite(v) ? v : null;
}

/** Reads a `/proc` file, null when it is not there (not Linux) or unreadable. */
function readProc(path: string): string | null {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    // No /proc here (or no permission): the contention is unknown, recorded as null.
    return null;
  }
}

/** The main thread's counters now (read on the main thread: thread-self is that thread). */
function readSchedStat(): SchedStat | null {
  const text = readProc("/proc/thread-self/schedstat") ?? readProc("/proc/self/schedstat");
  return text === null ? null : parseSchedStat(text);
}

/** A running measurement: {@linkcode ContentionSampler.stop} ends it and gives the run's figures. */
export interface ContentionSampler {
  /** Ends the sampling; null when the machine has no `/proc` figures. */
  stop(): CpuContention | null;
}

/**
 * Starts measuring now (call at ms 0, on the main thread). The load average is sampled every `periodMs`.
 */
export function startContention(options: { periodMs?: number; cpus?: number } = {}): ContentionSampler {
  const { periodMs = 1000, cpus = navigator.hardwareConcurrency } = options;
  const t0 = performance.now();
  const sched0 = readSchedStat();
  const stat0 = parseProcStat(readProc("/proc/stat") ?? "");
  const loads: number[] = [];
  const sample = () => {
    const l = parseLoadAvg(readProc("/proc/loadavg") ?? "");
    if (l !== null) loads.push(l);
  };
  sample();
  const timer = setInterval(sample, periodMs);
  // The sampler never keeps a finished run alive.
  Deno.unrefTimer(timer);
  return {
    stop() {
      clearInterval(timer);
      sample();
      const sched1 = readSchedStat();
      const stat1 = parseProcStat(readProc("/proc/stat") ?? "");
      if (sched0 === null || sched1 === null) return null;
      const busy = stat0 && stat1 && stat1.total > stat0.total
        ? (stat1.busy - stat0.busy) / (stat1.total - stat0.total)
        : null;
      return {
        source: "linux /proc: thread-self/schedstat (the runner's main thread), stat, loadavg",
        window_ms: performance.now() - t0,
        runner_main_cpu_ms: sched1.cpuMs - sched0.cpuMs,
        run_queue_wait_ms: sched1.waitMs - sched0.waitMs,
        run_queue_waits: sched1.slices - sched0.slices,
        machine_busy_share: busy,
        cpus,
        load_avg_1m_mean: loads.length ? loads.reduce((a, b) => a + b, 0) / loads.length : null,
        load_avg_1m_max: loads.length ? loads.reduce((a, b) => Math.max(a, b)) : null,
      };
    },
  };
}

/**
 * Why a client-limited run was limited, by the rule of docs/runner.md ("CPU contention"): a **busy machine** when the
 * runner's main thread waited in the run queue at least as long as it ran on a CPU over the run (run_queue_wait_ms ≥
 * runner_main_cpu_ms > 0: the scheduler, not the runner's own work, held its sends back); otherwise a **slow client**
 * (its own work did). null when the figures are unknown (not Linux) or the thread neither ran nor waited.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { clientLimitCause } from "./cpu_contention.ts";
 * const c = {
 *   source: "test", window_ms: 10_000, runner_main_cpu_ms: 600, run_queue_wait_ms: 900, run_queue_waits: 3000,
 *   machine_busy_share: 0.97, cpus: 2, load_avg_1m_mean: 4.1, load_avg_1m_max: 5.2,
 * };
 * // 900 ms waiting ≥ 600 ms running: the machine.
 * assert.equal(clientLimitCause(c).cause, "busy_machine");
 * assert.equal(clientLimitCause({ ...c, run_queue_wait_ms: 100 }).cause, "slow_client");
 * assert.equal(clientLimitCause(null).cause, null);
 * ```
 */
export function clientLimitCause(c: CpuContention | null): { cause: ClientLimitCause | null; why: string } {
  if (c === null) return { cause: null, why: "cause unknown: no run-queue figures on this machine" };
  const wait = c.run_queue_wait_ms, ran = c.runner_main_cpu_ms;
  if (wait <= 0 && ran <= 0) {
    return { cause: null, why: "cause unknown: the runner's main thread neither ran nor waited" };
  }
  const ms = (v: number) => `${v.toFixed(0)} ms`;
  const machine = [
    c.machine_busy_share === null ? null : `machine CPUs ${(100 * c.machine_busy_share).toFixed(0)} % busy`,
    c.load_avg_1m_max === null ? null : `load average up to ${c.load_avg_1m_max.toFixed(2)} on ${c.cpus} CPUs`,
  ].filter((x) => x !== null).join(", ");
  const tail = machine ? `; ${machine}` : "";
  return wait >= ran
    ? {
      cause: "busy_machine",
      why: `busy machine: the runner's main thread waited ${ms(wait)} for a CPU against ${ms(ran)} on one ` +
        `(run-queue wait ≥ its own CPU time)${tail}`,
    }
    : {
      cause: "slow_client",
      why: `slow client: the runner's main thread ran ${ms(ran)} and waited ${ms(wait)} for a CPU ` +
        `(run-queue wait < its own CPU time)${tail}`,
    };
}
