/**
 * Input files that are not regular files, or are larger than the cap
 * (schema/read_input.ts, issue 29), given to the analysis CLIs: each exits 2
 * naming the file, what it is and the limit — before anything is read from a
 * FIFO with no writer (which would hang) or a device (which never ends). Each
 * CLI is killed after 30 s, so that a hang fails the test instead of stalling
 * it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { CLIS, copyDir, ROOT, writeGood } from "../support/bad_input.ts";
import { runCli } from "../support/run_cli.ts";

function cli(name: keyof typeof CLIS, args: string[]) {
  const [script, permissions] = CLIS[name];
  return runCli(join(ROOT, script), args, [...permissions], { cwd: ROOT, timeoutMs: 30_000 });
}

function fifo(path: string): string {
  const r = new Deno.Command("mkfifo", { args: [path] }).outputSync();
  assert.equal(r.code, 0, "mkfifo");
  return path;
}

/** A sparse file of `bytes` (no disk used; stat reports the size). */
function sparse(path: string, bytes: number): string {
  const f = Deno.openSync(path, { write: true, create: true });
  f.truncateSync(bytes);
  f.close();
  return path;
}

Deno.test("the analysis CLIs refuse a FIFO, a device or an oversized input file, exit 2", async (t) => {
  const g = writeGood();
  const d = Deno.makeTempDirSync({ prefix: "bad_input_files_" });
  const refused = async (name: keyof typeof CLIS, args: string[], expect: RegExp) => {
    const r = await cli(name, args);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, expect);
    assert.doesNotMatch(r.stderr, /\bat .*\.ts:\d+/);
  };
  try {
    await t.step("analyze --slo a FIFO with no writer", async () => {
      await refused(
        "analyze",
        [g.run, "--slo", fifo(join(d, "slo.fifo"))],
        /slo\.fifo: cannot read SLO policy: .*a FIFO/,
      );
    });
    await t.step("analyze --slo /dev/zero", async () => {
      await refused("analyze", [g.run, "--slo", "/dev/zero"], /\/dev\/zero: cannot read SLO policy: .*a device/);
    });
    await t.step("ledger --prices of 64 MiB + 1 byte", async () => {
      const big = sparse(join(d, "prices.json"), 64 * 1024 * 1024 + 1);
      await refused(
        "ledger",
        [g.run, "--slo", g.slo, "--prices", big],
        /prices\.json: price sheet is larger than 64 MiB/,
      );
    });
    await t.step("audit --claim a FIFO", async () => {
      await refused(
        "audit",
        [g.run, "--slo", g.slo, "--claim", fifo(join(d, "claim.fifo"))],
        /claim\.fifo: cannot read claim: .*a FIFO/,
      );
    });
    await t.step("a run folder whose run.json is a FIFO", async () => {
      const run = copyDir(g.run, join(d, "run"));
      Deno.removeSync(join(run, "run.json"));
      fifo(join(run, "run.json"));
      await refused("analyze", [run, "--slo", g.slo], /run\.json: cannot read run manifest: .*a FIFO/);
    });
  } finally {
    Deno.removeSync(d, { recursive: true });
    Deno.removeSync(g.root, { recursive: true });
  }
});
