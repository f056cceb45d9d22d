import assert from "node:assert/strict";
import { join } from "node:path";
import { loadRun } from "../../analysis/run/load_run.ts";
import { runLoadTest } from "../../runner/run.ts";
import { readLogCsv } from "../../runner/sinks/csv_read.ts";
import { startFaultServer } from "../support/fault_server.ts";
import { constantPlan, tinyCase, writeJson, writeWorkload } from "../../testing/tiny_workload.ts";

/** Runs `plan` as shards 0 and 1 of 2 of one run (in turn, against one fault server answering `ok-sse`). */
async function twoShards(planOf: (dir: string) => string): Promise<{ out: string; dir: string }> {
  const dir = Deno.makeTempDirSync();
  const srv = await startFaultServer({ tokens: 2 });
  try {
    const workload = writeWorkload(dir, [tinyCase()]);
    const plan = planOf(dir);
    for (const index of [0, 1]) {
      await runLoadTest({
        workload,
        plan,
        target: `${srv.url}/ok-sse`,
        out: join(dir, "out"),
        runId: "sharded",
        shard: { index, count: 2 },
        formats: ["csv"],
        progress: false,
        serverTimeline: false,
      });
    }
  } finally {
    await srv.close();
  }
  return { out: join(dir, "out", "sharded"), dir };
}

Deno.test("a 2-shard closed-loop run numbers its requests apart per shard and analyses as one run", async () => {
  const closed = (dir: string) =>
    writeJson(dir, "closed.json", { name: "closed", arrivals: { process: "closed", users: 2, duration_s: 0.4 } });
  const { out, dir } = await twoShards(closed);
  try {
    const ids = [];
    for (const index of [0, 1]) {
      const rows = await readLogCsv(join(out, `shard-${index}-of-2`, "requests.csv"), "requests");
      assert.ok(rows.length >= 2, `shard ${index} sent ${rows.length}`);
      // Shard i of 2 numbers its k-th request 2k + i: shard 0 r0000000, r0000002, …; shard 1 r0000001, r0000003, …
      const numbers = rows.map((r) => Number(r.request_id.slice(1))).sort((a, b) => a - b);
      assert.deepEqual(numbers, numbers.map((_, k) => 2 * k + index), `shard ${index}: ${numbers}`);
      assert.ok(rows.every((r) => r.shard === index));
      ids.push(...rows.map((r) => r.request_id));
    }
    assert.equal(new Set(ids).size, ids.length, "no request id in two shards");
    // The analysis reads the folder of shard folders as one whole run (analysis/run/_shard_set.ts checks pass).
    const run = await loadRun(out, { onWarning: () => {} });
    assert.deepEqual(run.shard_set, { count: 2, present: [0, 1], missing: [] });
    assert.equal(run.requests.height, ids.length);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a 2-shard open-loop run analyses as one run (the ids come from the shared schedule)", async () => {
  const { out, dir } = await twoShards((d) => constantPlan(d, 10, 0.4));
  try {
    const run = await loadRun(out, { onWarning: () => {} });
    assert.deepEqual(run.shard_set, { count: 2, present: [0, 1], missing: [] });
    // 10 rps × 0.4 s = 4 arrivals: shard 0 keeps r0000000 and r0000002, shard 1 r0000001 and r0000003.
    assert.deepEqual(run.requests.getColumn("request_id").toArray().sort(), [
      "r0000000",
      "r0000001",
      "r0000002",
      "r0000003",
    ]);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
