import assert from "node:assert/strict";
import { join } from "node:path";
import { loadRun } from "../../analysis/run/load_run.ts";
import { readLogCsv } from "../../runner/sinks/csv_read.ts";
import { startFaultServer } from "../support/fault_server.ts";
import { constantPlan, tinyCase, writeWorkload } from "../../testing/tiny_workload.ts";

const RUN = new URL("../../runner/cli/run.ts", import.meta.url).pathname;

Deno.test("kill -9 in the middle of a run leaves a readable log with every request finished before the last flush", async () => {
  const dir = Deno.makeTempDirSync();
  // Each answer takes ~4 × 25 ms; 40 rps for 10 s would outlast the kill.
  const srv = await startFaultServer({ tokens: 4, slowDelayMs: 25 });
  try {
    const workload = writeWorkload(dir, [tinyCase()]);
    const out = join(dir, "out");
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        RUN,
        "--workload",
        workload,
        "--plan",
        constantPlan(dir, 40, 10),
        "--target",
        `${srv.url}/slow`,
        "--out",
        out,
        "--run-id",
        "killed",
        "--no-progress",
        // The count below is of a fixed wall-clock window from the start: no probe before ms 0 to shorten it.
        "--no-preflight",
      ],
      stdout: "null",
      stderr: "null",
    }).spawn();
    // Killed once the server has received 100 calls (2.5 s of the 40 rps plan), however long the start-up took
    // on a loaded machine; at most 20 s of waiting.
    const calls = () => srv.requests.filter((r) => r.headers.has("idempotency-key")).length;
    for (let i = 0; i < 400 && calls() < 100; i++) await new Promise((r) => setTimeout(r, 50));
    const killedAt = Date.now();
    child.kill("SIGKILL");
    await child.status;

    const runDir = join(out, "killed");
    const manifest = JSON.parse(Deno.readTextFileSync(join(runDir, "run.json")));
    assert.equal(manifest.result.status, "running", "run.json written at start says the run never finished");
    const warnings: string[] = [];
    const rows = await readLogCsv(join(runDir, "requests.csv"), "requests", {
      dropTruncatedLast: true,
      onWarning: (w) => warnings.push(w),
    });
    const ids = new Set(rows.map((r) => r.request_id));
    assert.equal(ids.size, rows.length, "no request twice");
    // The server saw each request's idempotency key; a request that arrived
    // more than flush (100 ms) + answer (~100 ms) + margin (800 ms) before the
    // kill had finished before the last flush, so it must be in the log.
    const epoch = Date.parse(manifest.epoch_iso);
    const mustHave = srv.requests
      // Offered requests' calls only: the GET /sim/timeline and the pre-flight probe before ms 0 carry no key.
      .filter((r) => r.headers.has("idempotency-key") && r.receivedUnixMs < killedAt - 1000)
      .map((r) => r.headers.get("idempotency-key")!.split(":")[1]!);
    assert.ok(mustHave.length > 40, `the server answered ${mustHave.length} requests before the kill`);
    for (const id of mustHave) assert.ok(ids.has(id), `${id} finished before the last flush but is missing`);
    for (const r of rows) assert.ok(r.scheduled_ms < killedAt - epoch);
  } finally {
    await srv.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

/** Starts a 40 rps × 10 s run against the fault server's slow answers and resolves once it is 1 s past ms 0. */
async function startRun(dir: string, url: string, runId: string) {
  const workload = writeWorkload(dir, [tinyCase()]);
  const out = join(dir, "out");
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", RUN, "--workload", workload, "--plan", constantPlan(dir, 40, 10), "--target", `${url}/slow`]
      .concat(["--out", out, "--run-id", runId, "--no-progress", "--format", "csv"]),
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const runDir = join(out, runId);
  // run.json appears at ms 0 of the run.
  for (let i = 0; i < 200 && !exists(join(runDir, "run.json")); i++) await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 1000));
  return { child, runDir };
}

function exists(p: string): boolean {
  try {
    Deno.statSync(p);
    return true;
  } catch {
    return false;
  }
}

/** Every request of the saved schedule has exactly one row in requests.csv. */
async function assertOneRowPerScheduledRequest(runDir: string) {
  const rows = await readLogCsv(join(runDir, "requests.csv"), "requests", { dropTruncatedLast: true });
  const scheduled = Deno.readTextFileSync(join(runDir, "schedule.csv")).trim().split("\n").slice(1)
    .map((l) => l.split(",")[0]!);
  assert.equal(scheduled.length, 400, "40 rps × 10 s were scheduled");
  const ids = rows.map((r) => r.request_id).sort();
  assert.deepEqual(ids, [...scheduled].sort(), "one row per scheduled request, none twice, none missing");
}

Deno.test("SIGTERM, SIGHUP and SIGINT in the middle of a run each finalise it: status interrupted, the signal recorded, one row per scheduled request", async (t) => {
  const srv = await startFaultServer({ tokens: 4, slowDelayMs: 25 });
  try {
    for (const signal of ["SIGTERM", "SIGHUP", "SIGINT"] as const) {
      await t.step(signal, async () => {
        const dir = Deno.makeTempDirSync();
        try {
          const { child, runDir } = await startRun(dir, srv.url, signal.toLowerCase());
          child.kill(signal);
          const status = await child.output();
          const stderr = new TextDecoder().decode(status.stderr);
          assert.equal(status.code, 0, stderr);
          const manifest = JSON.parse(Deno.readTextFileSync(join(runDir, "run.json")));
          assert.equal(manifest.result.status, "interrupted");
          assert.equal(manifest.result.stopped_by_signal, signal);
          await assertOneRowPerScheduledRequest(runDir);
          const run = await loadRun(runDir, { onWarning: () => {} });
          assert.equal(run.requests.height, 400);
          // A stop at ~1 s of a 10 s plan: most of the schedule was never sent, and says why.
          const stopped = run.requests.getColumn("error_kind").toArray().filter((k) => k === "run_stopped").length;
          assert.ok(stopped > 200, `${stopped} requests recorded run_stopped`);
        } finally {
          Deno.removeSync(dir, { recursive: true });
        }
      });
    }
  } finally {
    await srv.close();
  }
});

Deno.test("a second SIGTERM exits at once with 143 and leaves a log that loads as a killed run", async () => {
  const srv = await startFaultServer({ tokens: 4, slowDelayMs: 25 });
  const dir = Deno.makeTempDirSync();
  try {
    const { child, runDir } = await startRun(dir, srv.url, "twice");
    child.kill("SIGTERM");
    // Apart, so that the kernel cannot merge the two into one pending signal.
    await new Promise((r) => setTimeout(r, 20));
    child.kill("SIGTERM");
    const sentAt = Date.now();
    const status = await child.output();
    const stderr = new TextDecoder().decode(status.stderr);
    assert.ok(Date.now() - sentAt < 2000, "exits at once");
    const manifest = JSON.parse(Deno.readTextFileSync(join(runDir, "run.json")));
    // The second signal normally lands before finalisation ends; if the run had already finalised, it exited 0.
    if (status.code === 143) {
      assert.match(stderr, /SIGTERM again: exiting at once/);
      assert.equal(manifest.result.status, "running", "not finalised: loads as a killed run");
    } else {
      assert.equal(status.code, 0, stderr);
      assert.equal(manifest.result.status, "interrupted");
    }
    const warnings: string[] = [];
    const run = await loadRun(runDir, { onWarning: (w) => warnings.push(w) });
    assert.ok(run.requests.height > 0, "rows flushed before the exit are kept");
    const ids = run.requests.getColumn("request_id").toArray();
    assert.equal(new Set(ids).size, ids.length, "no request twice");
  } finally {
    await srv.close();
    Deno.removeSync(dir, { recursive: true });
  }
});
