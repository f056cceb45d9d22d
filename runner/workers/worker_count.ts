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
 * ```
 */
export function parseWorkers(text: string, cores?: number): { count: number } | { problem: string } {
  if (text === "auto") return { count: spareCores(cores) };
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (Number.isSafeInteger(n) && n >= 1) return { count: n };
  return { problem: `--workers: expected a whole number ≥ 1 or auto, got ${JSON.stringify(text)}` };
}
