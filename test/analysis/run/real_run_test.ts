import assert from "node:assert/strict";
import { join } from "node:path";
import { goodput } from "../../../analysis/goodput/goodput.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { loadSloPolicy } from "../../../analysis/goodput/policy.ts";
import { runDesignV1OnSim, stagedPlan } from "../../support/sim_run.ts";

const ROOT = new URL("../../../", import.meta.url).pathname;

Deno.test("a runner-written design-v1 run loads from Parquet and CSV alike and its goodput adds up", async () => {
  const dir = Deno.makeTempDirSync();
  const plan = stagedPlan(dir, { name: "analysis-test", seed: 7, drain_s: 0.2 }, [
    { name: "cold", kind: "warmup", process: "constant", rate_rps: 20, duration_s: 0.3 },
    { name: "main", kind: "steady", process: "poisson", rate_rps: 30, duration_s: 0.8 },
  ]);
  const { dir: runDir } = await runDesignV1OnSim(dir, { plan, simSeed: 5, formats: ["csv", "parquet"] });
  const policy = await loadSloPolicy(join(ROOT, "data/slo/design-v1.json"));
  const pq = await loadRun(runDir);
  assert.equal(pq.format, "parquet");
  assert.deepEqual(pq.warnings, []);
  // Hide the Parquet files: the same run read from CSV.
  const csvDir = join(dir, "csv-only");
  Deno.mkdirSync(csvDir);
  for (const e of Deno.readDirSync(runDir)) {
    if (!e.name.endsWith(".parquet") && e.isFile) Deno.copyFileSync(join(runDir, e.name), join(csvDir, e.name));
  }
  const csv = await loadRun(csvDir);
  assert.equal(csv.format, "csv");
  for (const t of ["requests", "attempts", "tools"] as const) assert.ok(pq[t].frameEqual(csv[t], true), t);
  const { disclosure, ...a } = goodput(pq, policy);
  const { disclosure: _d, ...b } = goodput(csv, policy);
  assert.deepEqual(a, b);
  // Only the steady stage is in the window: its requests, its 0.8 s.
  const inMain = (pq.requests.getColumn("stage").toArray() as string[]).filter((s) => s === "main").length;
  assert.equal(a.overall.offered, inMain);
  assert.ok(Math.abs(a.overall.measurement_seconds! - 0.8) < 1e-9);
  assert.ok(a.overall.accepted > 0);
  const failed = Object.values(a.overall.failures).reduce((x, y) => x + y, 0);
  assert.equal(failed + a.overall.accepted, a.overall.offered);
  assert.deepEqual(disclosure.window.stages, ["main"]);
  Deno.removeSync(dir, { recursive: true });
});
