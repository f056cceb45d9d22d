import assert from "node:assert/strict";
import { join } from "node:path";
import { runLoadTest } from "../../runner/run.ts";
import { startFaultServer } from "../support/fault_server.ts";
import { constantPlan, tinyCase, writeWorkload } from "../../testing/tiny_workload.ts";

/** Runs a constant plan against the fault server; returns the connections it had accepted when the first request came. */
async function connectionsAtFirstRequest(rate: number, seconds: number, preconnect?: number): Promise<number> {
  const dir = Deno.makeTempDirSync();
  let atFirst = -1;
  const srv = await startFaultServer({
    tokens: 2,
    pick: () => {
      if (atFirst < 0) atFirst = srv.connections;
      return "ok-sse";
    },
  });
  try {
    const { manifest } = await runLoadTest({
      workload: writeWorkload(dir, [tinyCase()]),
      plan: constantPlan(dir, rate, seconds),
      target: srv.url,
      out: join(dir, "out"),
      formats: ["csv"],
      runId: "pre",
      progress: false,
      serverTimeline: false,
      httpClient: "raw",
      ...(preconnect === undefined ? {} : { preconnect }),
    });
    assert.equal(manifest.result?.offered, Math.round(rate * seconds));
    return atFirst;
  } finally {
    await srv.close();
    Deno.removeSync(dir, { recursive: true });
  }
}

Deno.test("the connections opened before ms 0 follow the schedule's first 25 ms unless given", async (t) => {
  await t.step("a slow schedule: the floor of 8", async () => {
    assert.equal(await connectionsAtFirstRequest(10, 0.3), 8);
  });
  await t.step("2,000 req/s: one per arrival of the first 25 ms, 50, all open before the first request", async () => {
    // The first request takes the newest idle connection, so the server has accepted all of them by then.
    assert.ok((await connectionsAtFirstRequest(2000, 0.05)) >= 50);
  });
  await t.step("a number given is the number opened, even for a fast schedule", async () => {
    const n = await connectionsAtFirstRequest(2000, 0.05, 3);
    assert.ok(n >= 3 && n < 50, `${n} connections when the first request came`);
  });
});
