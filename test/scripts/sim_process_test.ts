import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { SimPool } from "../../scripts/_sim_process.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const OPTS = { root: ROOT, profile: "data/sim/fast.json", workload: "data/workloads/design-v1", seed: 1, maxLifeS: 60 };

async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/sim/reset`, { method: "POST", signal: AbortSignal.timeout(2000) });
    await res.body?.cancel();
    return res.ok;
  } catch (e) {
    if (e instanceof TypeError) return false; // connection refused: the process is gone
    throw e;
  }
}

Deno.test("SimPool starts simulator processes on free ports and stopAll() ends every one", async (t) => {
  const pool = new SimPool();
  try {
    const [a, b] = await Promise.all([pool.start(OPTS), pool.start(OPTS)]);
    await t.step("two simulators, two ports, both answering /sim/reset", async () => {
      assert.notEqual(a.url, b.url);
      assert.match(a.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      await a.reset();
      assert.equal(await answers(b.url), true);
    });
    await t.step("stop() ends one; stopAll() ends the rest", async () => {
      await pool.stop(a);
      assert.equal(await answers(a.url), false);
      assert.equal(await answers(b.url), true);
      await pool.stopAll();
      assert.equal(await answers(b.url), false);
    });
    await t.step("a stopped pool's signal is not aborted (only SIGINT/SIGTERM abort it)", () => {
      assert.equal(pool.signal.aborted, false);
      pool.throwIfInterrupted();
    });
  } finally {
    await pool.stopAll();
  }
});

Deno.test("startSimProcess() reports a simulator that exits before printing its URL", async () => {
  const pool = new SimPool();
  try {
    await assert.rejects(
      pool.start({ ...OPTS, profile: "data/sim/no-such-profile.json" }),
      /exited before printing its URL/,
    );
  } finally {
    await pool.stopAll();
  }
});
