/**
 * How many workers `--workers auto` means: the cores this machine has minus
 * one (left to the target, the operating system and the parent), at least 1.
 * The cores are those Deno reports (`navigator.hardwareConcurrency`: the CPUs
 * this process may run on).
 */
export function spareCores(cores: number = navigator.hardwareConcurrency): number {
  return Math.max(1, cores - 1);
}

/**
 * The most workers `--workers` starts: 4 per core. Each worker is a whole Deno
 * process (tens of MB, a V8 heap, a timer thread); beyond the cores they only
 * share the CPU and add send lag, and 4 per core already leaves room for
 * workers that mostly wait on the network. A count above it is a typo (or a
 * fork bomb), not a plan.
 */
export function maxWorkers(cores: number = navigator.hardwareConcurrency): number {
  return 4 * Math.max(1, cores);
}

/**
 * The worker count of a `--workers` value, or the problem with it.
 *
 * @example A count, `auto`, and a bad value
 * ```ts
 * import { parseWorkers } from "./worker_count.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(parseWorkers("3"), { count: 3 });
 * // auto on a 4-core machine: 4 − 1 = 3; on a 1-core machine: max(1, 1 − 1) = 1
 * assert.deepEqual(parseWorkers("auto", 4), { count: 3 });
 * assert.deepEqual(parseWorkers("auto", 1), { count: 1 });
 * assert.deepEqual(parseWorkers("0"), { problem: '--workers: expected a whole number ≥ 1 or auto, got "0"' });
 * // at most 4 per core: 2 cores → 8
 * assert.deepEqual(parseWorkers("9", 2), { problem: '--workers: at most 8 (4 × 2 cores), got "9"' });
 * ```
 */
export function parseWorkers(text: string, cores?: number): { count: number } | { problem: string } {
  if (text === "auto") return { count: spareCores(cores) };
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  const most = maxWorkers(cores);
  if (Number.isSafeInteger(n) && n > most) {
    return { problem: `--workers: at most ${most} (4 × ${most / 4} cores), got ${JSON.stringify(text)}` };
  }
  if (Number.isSafeInteger(n) && n >= 1) return { count: n };
  return { problem: `--workers: expected a whole number ≥ 1 or auto, got ${JSON.stringify(text)}` };
}
