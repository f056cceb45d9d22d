/**
 * The writer thread and the life of the process, in child processes of both runtimes (Deno on the source, Node 20 on
 * the bundle): an awaited close() with nothing else alive writes everything, and an app that ends without close()
 * exits by itself (the thread never keeps it alive).
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { readManifest, readTable, tempOut } from "./_fixture.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const TASKS = 1500; // past one Parquet row group (1,024 rows) of requests, attempts and phases

/** An app's last lines: TASKS tasks, then `await rec.close()` (close) or one flush and nothing more (flush). */
const script = (from: string, args: string) => `
import { recorder } from ${JSON.stringify(from)};
const [out, mode] = ${args};
const rec = recorder({ out, run_id: "exit-1", app: { name: "svc", version: "1.0.0" } });
for (let i = 0; i < ${TASKS}; i++) {
  const task = rec.begin({ class: "chat", request_id: "e-" + i });
  task.received();
  const call = task.attempt({ streamed: true });
  call.headers(200);
  call.token();
  call.end({ ok: true, usage: { input_tokens: 3, output_tokens: 1 } });
  task.complete({ output: "answer " + i, valid: true });
  task.responded();
}
if (mode === "close") await rec.close();
else await rec.flush();
console.log(JSON.stringify(rec.stats()));
`;

/** Runs `cmd` with a deadline (killed past it, which fails the test); its exit code, stdout and stderr. */
async function run(cmd: string, args: string[]): Promise<{ code: number; out: string; err: string }> {
  const r = await new Deno.Command(cmd, { args, cwd: ROOT, signal: AbortSignal.timeout(90_000) }).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: r.code, out: text(r.stdout), err: text(r.stderr) };
}

async function checkClosed(out: string, stdout: string, runtime: RegExp): Promise<void> {
  const stats = JSON.parse(stdout);
  assert.deepEqual([stats.written, stats.buffered, stats.recorder_errors], [TASKS, 0, 0]);
  const m = readManifest(out);
  assert.match(m.recorder.runtime, runtime);
  assert.deepEqual([m.recorder.writer, m.observation.status, m.requests], ["thread", "closed", TASKS]);
  assert.deepEqual(m.parts.map((p) => [p.format, p.requests]), [["parquet", TASKS]]);
  assert.equal((await readTable(out, "requests")).length, TASKS);
  assert.equal((await readTable(out, "attempts")).length, TASKS);
}

function checkFlushedOpen(out: string, stdout: string): void {
  assert.equal(JSON.parse(stdout).written, TASKS);
  const m = readManifest(out);
  assert.deepEqual([m.recorder.writer, m.observation.status, m.requests], ["thread", "recording", TASKS]);
  const lines = Deno.readTextFileSync(`${out}/part-00000/requests.csv`).split("\n").filter((l) => l.length);
  assert.equal(lines.length, TASKS + 1, "the header and every flushed row");
}

Deno.test("Deno: an awaited close() with nothing else alive writes everything; without close() the app exits", async (t) => {
  const dir = tempOut();
  try {
    const file = `${dir.dir}/app.ts`;
    Deno.writeTextFileSync(file, script(new URL("../../recorder/mod.ts", import.meta.url).href, "Deno.args"));
    const deno = (out: string, mode: string) =>
      run(Deno.execPath(), ["run", "-A", "--config", `${ROOT}deno.json`, file, out, mode]);
    await t.step("close", async () => {
      const r = await deno(`${dir.dir}/closed`, "close");
      assert.equal(r.code, 0, r.err);
      await checkClosed(`${dir.dir}/closed`, r.out, /^deno /);
    });
    await t.step("no close", async () => {
      const r = await deno(`${dir.dir}/open`, "flush");
      assert.equal(r.code, 0, r.err);
      checkFlushedOpen(`${dir.dir}/open`, r.out);
    });
  } finally {
    dir.remove();
  }
});

Deno.test("Node (the bundle): an awaited close() with nothing else alive writes everything; without it the app exits", async (t) => {
  const built = await run(Deno.execPath(), ["task", "recorder-node"]);
  assert.equal(built.code, 0, built.err);
  const dir = tempOut();
  try {
    const file = `${dir.dir}/app.mjs`;
    Deno.writeTextFileSync(file, script(`${ROOT}out/recorder-node/recorder.mjs`, "process.argv.slice(2)"));
    // node must be on PATH (.ci/run installs the pinned toolchain with it): its absence fails this test.
    const node = (out: string, mode: string) => run("node", [file, out, mode]);
    await t.step("close", async () => {
      const r = await node(`${dir.dir}/closed`, "close");
      // Node ends a process whose top-level await never settles with code 13: 0 means close() finished.
      assert.equal(r.code, 0, r.err);
      await checkClosed(`${dir.dir}/closed`, r.out, /^node v/);
    });
    await t.step("no close", async () => {
      const r = await node(`${dir.dir}/open`, "flush");
      assert.equal(r.code, 0, r.err);
      checkFlushedOpen(`${dir.dir}/open`, r.out);
    });
  } finally {
    dir.remove();
  }
});
