import { SCHEMA_MINOR } from "../../schema/version.ts";
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadRun } from "../../analysis/run/load_run.ts";
import { runLoadTest } from "../../runner/run.ts";
import { readLogCsv } from "../../runner/sinks/csv_read.ts";
import { FORMULA_FINISH } from "../support/fault_misshapen.ts";
import { startFaultServer } from "../support/fault_server.ts";
import { constantPlan, tinyCase, writeJson, writeWorkload } from "../../testing/tiny_workload.ts";

Deno.test("a finish_reason that is a spreadsheet formula is a text cell in the CSV log and comes back whole", async () => {
  const dir = Deno.makeTempDirSync();
  const srv = await startFaultServer({ tokens: 2 });
  try {
    const { dir: runDir, manifest } = await runLoadTest({
      workload: writeWorkload(dir, [tinyCase()], { qa: true }),
      plan: constantPlan(dir, 10, 0.3),
      target: `${srv.url}/finish-formula`,
      out: join(dir, "out"),
      formats: ["csv", "parquet"],
      retryFile: writeJson(dir, "retry.json", { max_attempts: 2, base_ms: 5, cap_ms: 20, budget_min: 100 }),
      timeoutsFile: writeJson(dir, "timeouts.json", { attempt_ms: 1000, request_ms: 2500, idle_ms: 1000 }),
      progress: false,
      serverTimeline: false,
    });
    assert.equal(manifest.result.status, "complete");
    assert.equal(manifest.schema_minor, SCHEMA_MINOR);
    // On disk: every row's finish_reason cell is the value with one ' in front (quoted, for its commas and quotes).
    for (const table of ["requests", "attempts"] as const) {
      const text = Deno.readTextFileSync(join(runDir, `${table}.csv`));
      const cell = `"'${FORMULA_FINISH.replaceAll('"', '""')}"`;
      assert.equal(text.split(cell).length - 1, 3, `${table}.csv: 3 escaped cells`);
      assert.ok(!text.includes(`,"${FORMULA_FINISH.replaceAll('"', '""')}"`), `${table}.csv: no live formula`);
    }
    // Every reader of the contract gets the server's string back: the runner's reader, Parquet, and the analysis.
    const rows = await readLogCsv(join(runDir, "requests.csv"), "requests");
    assert.deepEqual(rows.map((r) => r.finish_reason), [FORMULA_FINISH, FORMULA_FINISH, FORMULA_FINISH]);
    const fromParquet = await loadRun(runDir, { onWarning: () => {} });
    assert.equal(fromParquet.format, "parquet");
    for (const name of ["requests.parquet", "attempts.parquet"]) Deno.removeSync(join(runDir, name));
    const fromCsv = await loadRun(runDir, { onWarning: () => {} });
    assert.equal(fromCsv.format, "csv");
    for (const run of [fromParquet, fromCsv]) {
      assert.deepEqual(run.requests.getColumn("finish_reason").toArray(), [
        FORMULA_FINISH,
        FORMULA_FINISH,
        FORMULA_FINISH,
      ]);
      assert.deepEqual(run.attempts.getColumn("finish_reason").toArray(), [
        FORMULA_FINISH,
        FORMULA_FINISH,
        FORMULA_FINISH,
      ]);
    }
    assert.ok(fromParquet.requests.frameEqual(fromCsv.requests, true), "CSV = Parquet");
    assert.ok(fromParquet.attempts.frameEqual(fromCsv.attempts, true), "CSV = Parquet");
  } finally {
    await srv.close();
    Deno.removeSync(dir, { recursive: true });
  }
});
