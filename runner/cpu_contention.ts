/**
 * The machine's own CPU contention over a run, so that a busy machine is told apart from a slow client
 * (docs/runner.md, "CPU contention"):
 *
 * - the runner's **main thread** (where the event loop sends every request): its time on a CPU and its **run-queue
 *   wait** — time it was ready to run but waited for a CPU — from `/proc/thread-self/schedstat` (nanoseconds). Deno
 *   lets only `--allow-all` read `/proc`; under the run task's narrower permissions `/proc/<pid>/schedstat` (the
 *   thread group leader, which runs the event loop under `deno run`) is read by `cat` (`--allow-run`), once at the
 *   start and once at the end;
 * - the **machine's busy share**: non-idle CPU time over all CPU time, from `os.cpus()` (`--allow-sys`);
 * - the **load average** (1 min) from `Deno.loadavg()` (`--allow-sys`), sampled once a second: mean and maximum.
 *
 * Reads are made before ms 0, once a second (the load average only) and at the end: no cost per request. Where a
 * figure cannot be read (not Linux, no permission) it is null in run.json, never zero.
 *
 * @module
 */
import os from "node:os";
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

/** Busy (user + nice + sys + irq) and total (busy + idle) CPU time of every CPU. */
export interface CpuTimes {
  busy: number;
  total: number;
}

/** Reads a `/proc` file directly (Deno allows it only with `--allow-all`); null when it cannot. */
function readDirect(path: string): string | null {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    // Deno refuses /proc without --allow-all (or there is no /proc): the caller asks cat.
    return null;
  }
}

/** Reads a file by `cat` (`--allow-run`); null when it cannot. */
function readByCat(path: string): string | null {
  try {
    const out = new Deno.Command("cat", { args: [path], stdout: "piped", stderr: "null" }).outputSync();
    return out.success ? new TextDecoder().decode(out.stdout) : null;
  } catch {
    // No /proc here, no cat, or no permission to run it: the figure is unknown, recorded as null.
    return null;
  }
}

/**
 * A `/proc` file of this process: `self` read directly when Deno allows it, else `/proc/<pid>/<file>` by `cat`
 * (what `deno task run` permits); null when neither can (not Linux, no permission): the figure is unknown.
 */
export function readOwnProc(file: string): string | null {
  if (Deno.build.os !== "linux") return null;
  return readDirect(`/proc/self/${file}`) ?? readByCat(`/proc/${Deno.pid}/${file}`);
}

/**
 * The event-loop thread's counters now: `/proc/thread-self/schedstat` read by that thread itself when Deno allows it,
 * else `/proc/<pid>/schedstat` by `cat` — the thread group leader's, which runs the event loop under `deno run`.
 */
function readSchedStat(): SchedStat | null {
  if (Deno.build.os !== "linux") return null;
  const text = readDirect("/proc/thread-self/schedstat") ?? readByCat(`/proc/${Deno.pid}/schedstat`);
  return text === null ? null : parseSchedStat(text);
}

/** Busy and total CPU time of every CPU so far (`os.cpus()`, ms), or null without `--allow-sys`. */
function readCpuTimes(): CpuTimes | null {
  try {
    let busy = 0, total = 0;
    for (const c of os.cpus()) {
      const b = c.times.user + c.times.nice + c.times.sys + c.times.irq;
      busy += b;
      total += b + c.times.idle;
    }
    return total > 0 ? { busy, total } : null;
  } catch {
    // No --allow-sys: the machine's busy share is unknown (null).
    return null;
  }
}

/** The 1-minute load average now, or null without `--allow-sys` (or where there is none). */
function readLoadAvg(): number | null {
  try {
    const l = Deno.loadavg()[0];
    return l !== undefined && Number.isFinite(l) ? l : null;
  } catch {
    // No --allow-sys: unknown (null).
    return null;
  }
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
  const stat0 = readCpuTimes();
  const loads: number[] = [];
  const sample = () => {
    const l = readLoadAvg();
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
      const stat1 = readCpuTimes();
      if (sched0 === null || sched1 === null) return null;
      const busy = stat0 && stat1 && stat1.total > stat0.total
        ? (stat1.busy - stat0.busy) / (stat1.total - stat0.total)
        : null;
      return {
        source: "schedstat of the runner's main thread (/proc), os.cpus(), Deno.loadavg()",
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
 * Below this busy share of the machine's CPUs, a `busy_machine` cause is worded as the machine's own latency (waking
 * and scheduling the runner's thread), not as other programs' work.
 */
export const MOSTLY_IDLE_SHARE = 0.5;

/**
 * Why a client-limited run was limited, by the rule of docs/runner.md ("CPU contention"). The runner's event loop is
 * one thread: a due request waits behind the loop's own work, or for a CPU the machine gives to others. With ρ = the
 * thread's CPU share of the run (runner_main_cpu_ms / window_ms), its own work makes a due request wait about
 * ρ/(1−ρ) × its CPU time in all (the M/G/1 queue's wait); the run-queue wait is the machine's part. A **busy machine**
 * when run_queue_wait_ms ≥ ρ/(1−ρ) × runner_main_cpu_ms (the machine held the sends back at least as much as the
 * runner's own work); otherwise — or when ρ ≥ 1, the loop never idle — a **slow client**. null when the figures are
 * unknown (not Linux, no permission) or the thread neither ran nor waited. When the machine's CPUs were less than
 * {@linkcode MOSTLY_IDLE_SHARE} busy, the machine's part is its latency in waking and scheduling the thread (a virtual
 * machine's), not other work, and the reason says so.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { clientLimitCause } from "./cpu_contention.ts";
 * const c = {
 *   source: "test", window_ms: 10_000, runner_main_cpu_ms: 2_000, run_queue_wait_ms: 600, run_queue_waits: 3000,
 *   machine_busy_share: 0.97, cpus: 2, load_avg_1m_mean: 4.1, load_avg_1m_max: 5.2,
 * };
 * // ρ = 2000 / 10000 = 0.2; its own work: 0.2 / 0.8 × 2000 = 500 ms ≤ 600 ms waiting for a CPU: the machine.
 * assert.equal(clientLimitCause(c).cause, "busy_machine");
 * assert.equal(clientLimitCause({ ...c, run_queue_wait_ms: 499 }).cause, "slow_client");
 * assert.equal(clientLimitCause(null).cause, null);
 * ```
 */
export function clientLimitCause(c: CpuContention | null): { cause: ClientLimitCause | null; why: string } {
  if (c === null) return { cause: null, why: "cause unknown: no run-queue figures on this machine" };
  const wait = c.run_queue_wait_ms, ran = c.runner_main_cpu_ms;
  if (wait <= 0 && ran <= 0) {
    return { cause: null, why: "cause unknown: the runner's main thread neither ran nor waited" };
  }
  const rho = c.window_ms > 0 ? ran / c.window_ms : 1;
  const own = rho < 1 ? (rho / (1 - rho)) * ran : Infinity;
  const ms = (v: number) => `${v.toFixed(0)} ms`;
  const machine = [
    c.machine_busy_share === null ? null : `machine CPUs ${(100 * c.machine_busy_share).toFixed(0)} % busy`,
    c.load_avg_1m_max === null ? null : `load average up to ${c.load_avg_1m_max.toFixed(2)} on ${c.cpus} CPUs`,
  ].filter((x) => x !== null).join(", ");
  const tail = machine ? `; ${machine}` : "";
  const share = `its CPU share ρ = ${(100 * rho).toFixed(1)} %`;
  const ownText = Number.isFinite(own)
    ? `the ${ms(own)} its own work makes due requests wait (ρ/(1−ρ) × ${ms(ran)} on a CPU, ${share})`
    : `its own work, which kept it busy the whole run (${share})`;
  const idle = c.machine_busy_share !== null && c.machine_busy_share < MOSTLY_IDLE_SHARE;
  return wait >= own
    ? {
      cause: "busy_machine",
      why: idle
        ? `the machine, though mostly idle: the runner's main thread waited ${ms(wait)} for a CPU, at least ` +
          `${ownText}${tail} — with the CPUs this idle the wait is the machine's latency in waking and scheduling ` +
          `the thread (a virtual machine's vCPUs, power states), not other programs' work`
        : `busy machine: the runner's main thread waited ${ms(wait)} for a CPU, at least ${ownText}${tail}`,
    }
    : {
      cause: "slow_client",
      why: `slow client: the runner's main thread waited ${ms(wait)} for a CPU, less than ${ownText}${tail}`,
    };
}
