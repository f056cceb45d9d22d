/**
 * The two runs the interop test reads with pandas, pyarrow, DuckDB and polars, both written by the real runner
 * (CSV and Parquet, every sink, finalisation), on loopback only and bounded:
 *
 * - `normal`: design-v1 against the in-process simulator (data/sim/fast.json), 6 req/s for 2 s: answered requests,
 *   tool and retrieval rows, and the simulator's server timeline.
 * - `failed`: a one-case workload against the fault server in `reset` mode (the connection closes before any byte of
 *   answer), 10 req/s for 0.3 s: every request a `transport_error` with every attempt retried once, so
 *   `http_status`, every gate and every latency are null in every row, and the tools table is empty. Its case id
 *   starts with `=`, so its CSV cells carry the formula escape (a leading `'`).
 *
 * @module
 */
import { join } from "node:path";
import { runLoadTest } from "../../../runner/run.ts";
import { constantPlan, tinyCase, writeJson, writeWorkload } from "../../../testing/tiny_workload.ts";
import { startFaultServer } from "../../support/fault_server.ts";
import { runDesignV1OnSim } from "../../support/sim_run.ts";

/** The case id of the failed run: a formula to a spreadsheet, so the CSV escapes it. */
export const FORMULA_CASE = "=qa-001";

/** Writes both runs under `dir`; returns their folders. */
export async function writeInteropRuns(dir: string): Promise<{ normal: string; failed: string }> {
  Deno.mkdirSync(dir, { recursive: true });
  const normal = await runDesignV1OnSim(join(dir, "normal"), {
    plan: constantPlan(dir, 6, 2, "interop-normal"),
    simSeed: 5,
    formats: ["csv", "parquet"],
  });
  const srv = await startFaultServer({ pick: () => "reset" });
  try {
    const work = join(dir, "failed");
    Deno.mkdirSync(work, { recursive: true });
    const failed = await runLoadTest({
      workload: writeWorkload(work, [tinyCase({ case_id: FORMULA_CASE })]),
      plan: constantPlan(work, 10, 0.3, "interop-failed"),
      target: srv.url,
      out: join(work, "out"),
      formats: ["csv", "parquet"],
      retryFile: writeJson(work, "retry.json", { max_attempts: 2, base_ms: 5, cap_ms: 20, budget_min: 100 }),
      progress: false,
      serverTimeline: false,
    });
    return { normal: normal.dir, failed: failed.dir };
  } finally {
    await srv.close();
  }
}

if (import.meta.main) {
  // `deno run -A test/runner/sinks/_interop_runs.ts DIR`: writes the two runs to look at them by hand.
  const dir = Deno.args[0] ?? Deno.makeTempDirSync({ prefix: "interop-runs-" });
  console.log(JSON.stringify(await writeInteropRuns(dir)));
}
