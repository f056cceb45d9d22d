import assert from "node:assert/strict";
import { join } from "node:path";
import { sqlGoodput } from "../../../analysis/sql/sql_goodput.ts";
import { sqlLatency, sqlSweep } from "../../../analysis/sql/sql_latency.ts";
import { openSqlRun } from "../../../analysis/sql/sql_run.ts";
import { runWindow } from "../../../analysis/goodput/policy.ts";
import { fixtureManifest, fixtureTables, POLICY } from "../hand_fixture.ts";
import { writeRun } from "../_fixture.ts";
import { asParquet } from "./_random_log.ts";

/** The hand-built run of test/analysis/hand_fixture.ts, as Parquet (each row's expected reason is commented there). */
async function handRun(): Promise<string> {
  const tmp = Deno.makeTempDirSync();
  const csv = writeRun(join(tmp, "csv"), fixtureManifest(), fixtureTables());
  return await asParquet(csv, join(tmp, "parquet"));
}

Deno.test("sqlGoodput() counts the hand-built run as computed by hand", async (t) => {
  const run = await openSqlRun(await handRun(), { onWarning: () => {} });
  try {
    await t.step("overall, denominator offered", async () => {
      const { result } = await sqlGoodput(run, POLICY);
      // In the window (low 10–20 s + peak 20–30 s): 14 + 9 = 23 offered; w1 (warmup) and w2 (30000 = end) are out.
      // sent = 23 − q3 (client_shed) − q4 (not_sent) = 21; completed: low 6 (q1 q14 q15 q16 q17 q18) + peak 9 = 15.
      // accepted = q1 q14 q15 j2 o1 = 5; goodput = 5 / 20 s = 0.25; acceptance = 5 / 23; miss = (23 − 5) / 23.
      const o = result.overall;
      assert.deepEqual([o.offered, o.sent, o.completed, o.accepted], [23, 21, 15, 5]);
      assert.deepEqual([o.measurement_seconds, o.accepted_goodput], [20, 0.25]);
      assert.equal(o.acceptance_rate, 5 / 23);
      assert.equal(o.slo_miss_rate, 18 / 23);
      // rejected q2, client_shed q3, not_sent q4, timeout q5, error q6–q9 (4), late_e2e q10 j4, late_ttft q11,
      // slow_tpot q12 q18, gates: q13 output_valid, q16 safety_ok, q17 auth_ok, j1 schema_ok, j3 quality_ok.
      assert.deepEqual(
        Object.entries(o.failures).filter(([, n]) => n > 0),
        [
          ["rejected", 1],
          ["client_shed", 1],
          ["not_sent", 1],
          ["timeout", 1],
          ["error", 4],
          ["late_e2e", 2],
          ["late_ttft", 1],
          ["slow_tpot", 2],
          ["gate_output_valid", 1],
          ["gate_schema_ok", 1],
          ["gate_quality_ok", 1],
          ["gate_safety_ok", 1],
          ["gate_auth_ok", 1],
        ],
      );
    });
    await t.step(
      "by stage, with each stage's own seconds; the other denominators move only the miss rate",
      async () => {
        const { result } = await sqlGoodput(run, { ...POLICY, denominator: "completed" });
        // low: q1–q9 q14–q18 = 14 offered, accepted q1 q14 q15 = 3 in 10 s → 0.3/s;
        // peak: q10–q13 j1–j4 o1 = 9 offered, accepted j2 o1 = 2 in 10 s → 0.2/s.
        const stages = result.by_stage.map((
          r,
        ) => [r.stage, r.offered, r.accepted, r.measurement_seconds, r.accepted_goodput]);
        assert.deepEqual(stages, [["low", 14, 3, 10, 0.3], ["peak", 9, 2, 10, 0.2]]);
        // completed = 15: miss = (15 − 5) / 15; acceptance stays accepted / offered = 5 / 23.
        assert.equal(result.overall.slo_miss_rate, 10 / 15);
        assert.equal(result.overall.acceptance_rate, 5 / 23);
        assert.equal(result.disclosure.denominator, "completed");
      },
    );
  } finally {
    run.close();
  }
});

Deno.test("sqlLatency() gives nearest-rank percentiles of the hand-built run with n", async () => {
  const run = await openSqlRun(await handRun(), { onWarning: () => {} });
  try {
    const window = runWindow(run, POLICY.window);
    const { rows } = await sqlLatency(run, window, { percentiles: [0.5, 0.9, 0.95], metrics: ["e2e_ms", "ttft_ms"] });
    const overall = (m: string) => rows.filter((r) => r.grain === "overall" && r.metric === m).map((r) => r.value);
    // e2e of the 15 completed requests in the window, ascending: 800 × 8 (q1 q12 q13 q14 q16 q17 j1 j3),
    // 900 × 3 (q11 q15 q18), 1200 (q10), 1900 (j2), 2500 (j4), 4000 (o1).
    // p50: rank ⌈0.5 · 15⌉ = 8 → 800; p90: ⌈13.5⌉ = 14 → 2500; p95: ⌈14.25⌉ = 15 → 4000.
    assert.deepEqual(overall("e2e_ms"), [800, 2500, 4000]);
    // TTFT: 200 × 9 (q1 q12–q14 q16 q17 j1 j3 j4), 250 (q15), 400 (q10 q11), 100 (q18), 1500 (j2), 3000 (o1):
    // ascending 100, 200 × 9, 250, 400, 400, 1500, 3000; p50 rank 8 → 200; p90 rank 14 → 1500; p95 rank 15 → 3000.
    assert.deepEqual(overall("ttft_ms"), [200, 1500, 3000]);
    const n = rows.find((r) => r.grain === "class" && r.class === "json" && r.metric === "e2e_ms")!;
    // json: j1–j4 completed, all with an e2e: n = 4, none excluded.
    assert.deepEqual([n.n, n.excluded], [4, 0]);
  } finally {
    run.close();
  }
});

Deno.test("sqlSweep() counts, at each e2e limit, the requests that pass every other condition", async () => {
  const run = await openSqlRun(await handRun(), { onWarning: () => {} });
  try {
    const { rows } = await sqlSweep(run, POLICY, { metric: "e2e_ms", limits: [4000, 1000, 2000, 3000, 2000] });
    const curve = (cls: string | null) => rows.filter((r) => r.class === cls).map((r) => [r.limit_ms, r.accepted]);
    // Without the e2e limit, qa passes q1 (800), q14 (800), q15 (900); q10 and q11 are late on TTFT, q12 q18 slow
    // on TPOT, q13 q16 q17 fail a gate. json passes j2 (1900) only (j4 fails schema_ok, null). other: o1 (4000).
    assert.deepEqual(curve("qa"), [[1000, 3], [2000, 3], [3000, 3], [4000, 3]]);
    assert.deepEqual(curve("json"), [[1000, 0], [2000, 1], [3000, 1], [4000, 1]]);
    assert.deepEqual(curve("other"), [[1000, 0], [2000, 0], [3000, 0], [4000, 1]]); // 4000 ≤ 4000: inclusive
    assert.deepEqual(curve(null), [[1000, 3], [2000, 4], [3000, 4], [4000, 5]]);
    // At 4000 ms overall: 5 of 23 offered, over 20 s.
    const last = rows.find((r) => r.class === null && r.limit_ms === 4000)!;
    assert.deepEqual([last.denominator, last.acceptance_rate, last.accepted_goodput], [23, 5 / 23, 0.25]);
  } finally {
    run.close();
  }
});
