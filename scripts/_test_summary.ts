/**
 * What `deno task test` says last: one overall line over both passes, read from Deno's own output of each pass.
 *
 * Deno ends a pass with `ok | 57 passed (31 steps) | 0 failed (12s)` or `FAILED | 55 passed | 2 failed (12s)`, after a
 * `FAILURES` section listing each failed test as `name => ./file:line:col` (a failed step as
 * `test ... step => ./file:line:col`). A pass that ends with no summary (a type error, a crash) has no counts: it is
 * one failure, named after its pass and exit code, so the overall line can never read 0 failed after it.
 *
 * @module
 */

/** One pass of the suite as Deno reported it. */
export interface PassResult {
  /** The pass's name, e.g. "pass 1 (parallel)". */
  name: string;
  /** Tests passed, from Deno's summary line (0 when there was none). */
  passed: number;
  /** Tests failed, from the summary; 1 when the pass ended without one. */
  failed: number;
  /** Each failed test as Deno listed it under FAILURES (`name => ./file:line:col`), or why there are no counts. */
  failures: string[];
  /** Deno's exit code for the pass. */
  code: number;
}

// deno-lint-ignore no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;
const SUMMARY = /^(ok|FAILED) \| (\d+) passed(?: \([^)]*\))? \| (\d+) failed/;

/**
 * Reads a pass's output (stdout and stderr together) into a {@linkcode PassResult}: the counts of its last summary
 * line and the tests under its last FAILURES heading.
 *
 * @example A failed pass
 * ```ts
 * import { readPass } from "./_test_summary.ts";
 * import assert from "node:assert/strict";
 * const out = " FAILURES \n\nboom => ./a_test.ts:2:6\n\nFAILED | 2 passed (1 step) | 1 failed (70ms)\n";
 * const r = readPass("pass 1", out, 1);
 * assert.deepEqual([r.passed, r.failed, r.failures], [2, 1, ["boom => ./a_test.ts:2:6"]]);
 * ```
 */
export function readPass(name: string, output: string, code: number): PassResult {
  const lines = output.replace(ANSI, "").split(/\r?\n/);
  let counts: [number, number] | null = null;
  let failures: string[] = [];
  let inFailures = false;
  for (const raw of lines) {
    const line = raw.trimEnd();
    const m = SUMMARY.exec(line);
    if (m) {
      counts = [Number(m[2]), Number(m[3])];
      inFailures = false;
    } else if (line.trim() === "FAILURES") {
      inFailures = true;
      failures = [];
    } else if (inFailures && line.includes(" => ")) {
      failures.push(line.trim());
    }
  }
  if (!counts) {
    return { name, passed: 0, failed: 1, failures: [`${name} ended without a test summary (exit code ${code})`], code };
  }
  // A pass whose counts say 0 failed but whose exit code is not 0 still failed (e.g. a leak reported after the tests).
  if (counts[1] === 0 && code !== 0) {
    return {
      name,
      passed: counts[0],
      failed: 1,
      failures: [`${name} exited with code ${code} after 0 failed`],
      code,
    };
  }
  return { name, passed: counts[0], failed: counts[1], failures, code };
}

/** How many failed tests the overall line names before "and N more". */
const NAMED = 5;

/**
 * The last line of `deno task test`: the counts over every pass, each pass's counts, and the failed tests.
 *
 * @example
 * ```ts
 * import { overallLine } from "./_test_summary.ts";
 * import assert from "node:assert/strict";
 * const p1 = { name: "pass 1", passed: 37, failed: 0, failures: [], code: 0 };
 * const p2 = { name: "pass 2", passed: 11, failed: 1, failures: ["slow => ./b_test.ts:4:6"], code: 1 };
 * assert.equal(
 *   overallLine([p1, p2]),
 *   "overall: 48 passed, 1 failed (pass 1: 37 passed, 0 failed; pass 2: 11 passed, 1 failed); failed: slow => ./b_test.ts:4:6",
 * );
 * ```
 */
export function overallLine(passes: readonly PassResult[]): string {
  const passed = passes.reduce((s, p) => s + p.passed, 0);
  const failed = passes.reduce((s, p) => s + p.failed, 0);
  const each = passes.map((p) => `${p.name}: ${p.passed} passed, ${p.failed} failed`).join("; ");
  const names = passes.flatMap((p) => p.failures);
  const more = names.length > NAMED ? `, and ${names.length - NAMED} more (listed above)` : "";
  const which = names.length ? `; failed: ${names.slice(0, NAMED).join(", ")}${more}` : "";
  return `overall: ${passed} passed, ${failed} failed (${each})${which}`;
}
