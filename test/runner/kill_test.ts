import assert from "node:assert/strict";
import { join } from "node:path";
import { readLogCsv } from "../../runner/sinks/csv_read.ts";
import { startFaultServer } from "../support/fault_server.ts";
import { constantPlan, tinyCase, writeWorkload } from "../support/tiny_workload.ts";

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
      ],
      stdout: "null",
      stderr: "null",
    }).spawn();
    await new Promise((r) => setTimeout(r, 3000));
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
      .filter((r) => r.receivedUnixMs < killedAt - 1000)
      .map((r) => r.headers.get("idempotency-key")!.split(":")[1]!);
    assert.ok(mustHave.length > 40, `the server answered ${mustHave.length} requests before the kill`);
    for (const id of mustHave) assert.ok(ids.has(id), `${id} finished before the last flush but is missing`);
    for (const r of rows) assert.ok(r.scheduled_ms < killedAt - epoch);
  } finally {
    await srv.close();
    Deno.removeSync(dir, { recursive: true });
  }
});
