/**
 * The committed pair of notebook 05: a recording of the chat example and a load test of the same workload, plan and
 * simulator (`npx deno task samples-production`).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadRun } from "../../analysis/run/load_run.ts";
import { ProductionManifest } from "../../schema/production_manifest.ts";
import type { RunManifest } from "../../schema/run_manifest.ts";
import { loadWorkload } from "../../schema/workload_file.ts";
import { PRODUCTION_SAMPLE } from "../../scripts/samples_production.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const RUNS = join(ROOT, "data/runs");

/** Bytes of every file under `dir`. */
function size(dir: string): number {
  let n = 0;
  for (const e of Deno.readDirSync(dir)) {
    const path = join(dir, e.name);
    n += e.isDirectory ? size(path) : Deno.statSync(path).size;
  }
  return n;
}

Deno.test("the production sample pair: one workload, one plan, a closed recording and a complete load test", async (t) => {
  const prod = await loadRun(join(RUNS, PRODUCTION_SAMPLE.production), { verify: "strict" });
  const lt = await loadRun(join(RUNS, PRODUCTION_SAMPLE.loadtest), { verify: "strict" });
  const pm = ProductionManifest.parse(prod.manifest);
  const lm = lt.manifest as RunManifest;
  const workload = await loadWorkload(join(ROOT, PRODUCTION_SAMPLE.workload));

  await t.step(
    "the recording is closed, rotated to Parquet, and every click is a row joined to its page record",
    () => {
      assert.equal(pm.kind, "production");
      assert.equal(pm.observation.status, "closed");
      assert.ok(pm.parts.every((p) => p.format === "parquet"));
      assert.equal(prod.requests.height, pm.requests);
      assert.ok(pm.requests > 0);
      assert.deepEqual(Object.values(pm.dropped).filter((n) => n > 0), [], "nothing dropped");
      const phases = prod.phases.toRecords() as { request_id: string; phase: string }[];
      const withRender = new Set(phases.filter((p) => p.phase === "render").map((p) => p.request_id));
      assert.equal(withRender.size, pm.requests, "every task has its page's render phase");
    },
  );

  await t.step("the load test ran the committed workload under the shared plan, and finished", () => {
    assert.equal(lm.result.status, "complete");
    assert.equal(lm.workload.sha256, workload.sha256, "the workload file as committed");
    assert.equal(lm.plan.path, PRODUCTION_SAMPLE.plan);
    assert.equal(lt.requests.height, lm.result.offered);
  });

  await t.step("both name the workload chat-example, with its two classes and no other", () => {
    assert.equal(pm.workload.name, workload.workload.workload);
    assert.equal(lm.workload.name, workload.workload.workload);
    const classes = (run: typeof prod) => run.requests.getColumn("class").unique().toArray().sort();
    assert.deepEqual(classes(prod), ["order", "question"]);
    assert.deepEqual(classes(lt), ["order", "question"]);
  });

  await t.step("each folder stays small (< 1 MB)", () => {
    for (const id of [PRODUCTION_SAMPLE.production, PRODUCTION_SAMPLE.loadtest]) {
      assert.ok(size(join(RUNS, id)) < 1_000_000, `${id}: ${size(join(RUNS, id))} bytes`);
    }
  });
});
