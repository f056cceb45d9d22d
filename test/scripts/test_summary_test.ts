/**
 * `deno task test` ends with one overall line over both passes, naming the failed tests: read from Deno's own output,
 * never from the last pass alone.
 */
import assert from "node:assert/strict";
import { overallLine, readPass } from "../../scripts/_test_summary.ts";

const ROOT = new URL("../../", import.meta.url);

/** Deno 2.9's own output of a pass with a failed test and a failed step (colours as Deno prints them when piped). */
const FAILED_PASS = [
  "\x1b[0m\x1b[1m\x1b[37m\x1b[41m ERRORS \x1b[0m",
  "",
  "fails plainly \x1b[0m\x1b[38;5;245m=> ./a_test.ts:2:6\x1b[0m",
  "error: Error: boom",
  "",
  "\x1b[0m\x1b[1m\x1b[37m\x1b[41m FAILURES \x1b[0m",
  "",
  "fails plainly \x1b[0m\x1b[38;5;245m=> ./a_test.ts:2:6\x1b[0m",
  "has steps ... inner bad \x1b[0m\x1b[38;5;245m=> ./a_test.ts:3:83\x1b[0m",
  "",
  "\x1b[0m\x1b[31mFAILED\x1b[0m | 2 passed (1 step) | 2 failed (1 step) \x1b[0m\x1b[38;5;245m(70ms)\x1b[0m",
].join("\n");

Deno.test("readPass() reads Deno's summary and the tests under FAILURES", () => {
  const r = readPass("pass 1", FAILED_PASS, 1);
  assert.equal(r.passed, 2);
  assert.equal(r.failed, 2);
  assert.deepEqual(r.failures, ["fails plainly => ./a_test.ts:2:6", "has steps ... inner bad => ./a_test.ts:3:83"]);
});

Deno.test("readPass() counts a pass without a summary as one failure, and a non-zero exit after 0 failed too", () => {
  const none = readPass("pass 2 (serial)", "error: Module not found\n", 1);
  assert.deepEqual([none.passed, none.failed], [0, 1]);
  assert.deepEqual(none.failures, ["pass 2 (serial) ended without a test summary (exit code 1)"]);
  const odd = readPass("pass 1", "ok | 3 passed | 0 failed (1s)\n", 1);
  assert.deepEqual([odd.passed, odd.failed], [3, 1]);
});

Deno.test("overallLine() adds both passes: a failure in the first is not hidden by a clean second", () => {
  // 40 + 37 = 77 passed, 4 + 0 = 4 failed; the first five failures are named, the rest counted.
  const p1 = readPass(
    "pass 1",
    " FAILURES \n" + ["a", "b", "c", "d"].map((n) => `${n} => ./t_test.ts:1:1`).join("\n") +
      "\nFAILED | 40 passed | 4 failed (9s)\n",
    1,
  );
  const p2 = readPass("pass 2", "ok | 37 passed | 0 failed (5s)\n", 0);
  assert.equal(
    overallLine([p1, p2]),
    "overall: 77 passed, 4 failed (pass 1: 40 passed, 4 failed; pass 2: 37 passed, 0 failed); failed: " +
      "a => ./t_test.ts:1:1, b => ./t_test.ts:1:1, c => ./t_test.ts:1:1, d => ./t_test.ts:1:1",
  );
  const many = { name: "p", passed: 0, failed: 7, failures: ["1", "2", "3", "4", "5", "6", "7"], code: 1 };
  assert.match(overallLine([many]), /failed: 1, 2, 3, 4, 5, and 2 more \(listed above\)$/);
});

Deno.test("deno task test with a failing file ends with the overall line naming it, and exits 1", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      `${dir}/x_test.ts`,
      'Deno.test("good", () => {});\nDeno.test("bad", () => { throw new Error("no"); });\n',
    );
    const { code, stdout } = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-run", "--allow-read", "scripts/test.ts", `${dir}/x_test.ts`],
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const lines = new TextDecoder().decode(stdout).trimEnd().split("\n");
    assert.equal(code, 1);
    assert.match(
      lines.at(-1)!,
      /^overall: 1 passed, 1 failed \(tests: 1 passed, 1 failed\); failed: bad => .*x_test\.ts:2:6$/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
