import assert from "node:assert/strict";
import { join } from "node:path";
import { goodput, type GoodputResult } from "../../../analysis/goodput/goodput.ts";
import { loadSloPolicy, parseSloPolicy, runWindow } from "../../../analysis/goodput/policy.ts";
import { latencyInWindow } from "../../../analysis/latency/latency.ts";
import { sloSweepInput } from "../../../analysis/plots/slo_sweep.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import type { LoadedRun } from "../../../analysis/run/loaded_run.ts";
import { sqlGoodput } from "../../../analysis/sql/sql_goodput.ts";
import { sqlLatency, sqlSweep } from "../../../analysis/sql/sql_latency.ts";
import { openSqlRun, type SqlRun } from "../../../analysis/sql/sql_run.ts";
import type { SloMetric } from "../../../analysis/sql/classify_sql.ts";
import { FAILURE_REASONS, GATES, type SloPolicy } from "../../../schema/slo.ts";
import { STREAMING } from "../../../analysis/goodput/streaming_rules.ts";
import { randomLog, randomManifest, writeHiveRun, writeParquetRun, writeShardedRun } from "./_random_log.ts";

const quiet = { onWarning: () => {} };

/** The result with its rows in one order (by_class_stage by class, then stage) and without the files read. */
function comparable(r: GoodputResult) {
  const key = (x: { class: string; stage: string }) => `${x.class}\u0000${x.stage}`;
  const files = { ...r.disclosure.files, read: [] };
  return {
    ...r,
    by_class_stage: [...r.by_class_stage].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)),
    disclosure: { ...r.disclosure, files },
  };
}

const close = (a: number | null, b: number | null) =>
  a === b || (a !== null && b !== null && Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b)));

/** SQL percentiles (value, n, excluded) against `latencyInWindow` for e2e, TTFT and TPOT at p50, p95, p99. */
async function assertLatency(run: LoadedRun, sql: SqlRun, policy: SloPolicy, byStage: boolean, what: string) {
  const window = runWindow(run, policy.window);
  const want = latencyInWindow(run, window).filter((r) =>
    ["e2e_ms", "ttft_ms", "tpot_ms"].includes(r.metric) && (byStage || r.stage === null)
  );
  const { rows } = await sqlLatency(sql, window, { byStage });
  // e2e alone is read without the attempts join: the same rows.
  const e2e = await sqlLatency(sql, window, { byStage, metrics: ["e2e_ms"] });
  assert.match(e2e.sql, /^(?![\s\S]*final_attempt)/, `${what}: e2e alone joins no attempt`);
  assert.deepEqual(e2e.rows, rows.filter((r) => r.metric === "e2e_ms"), `${what}: e2e alone`);
  const key = (x: { class: string | null; stage: string | null; metric: string; p: number }) =>
    JSON.stringify([x.class, x.stage, x.metric, x.p]);
  const got = new Map(rows.map((r) => [key(r), r]));
  assert.equal(rows.length, want.length, `${what}: latency rows`);
  for (const w of want) {
    const g = got.get(key(w));
    assert.ok(g, `${what}: no SQL row for ${key(w)}`);
    assert.equal(g.n, w.n, `${what}: n of ${key(w)}`);
    assert.equal(g.excluded, w.excluded, `${what}: excluded of ${key(w)}`);
    assert.ok(close(g.value, w.value), `${what}: ${key(w)}: SQL ${g.value} vs polars ${w.value}`);
  }
}

/** An SQL sweep on the limits `sloSweepInput` chose: accepted and acceptance rate per class and limit. */
async function assertSweep(run: LoadedRun, sql: SqlRun, policy: SloPolicy, metric: SloMetric, what: string) {
  const want = sloSweepInput(run, policy, { metric, points: 25 });
  const limits = [...(want.series[0]?.curve.limit_ms ?? [100, 1000])];
  const { rows } = await sqlSweep(sql, policy, { metric, limits });
  for (const s of want.series) {
    const mine = rows.filter((r) => r.class === s.class);
    assert.equal(mine.length, s.curve.limit_ms.length, `${what}: ${metric} ${s.class}: points`);
    for (const [i, lim] of s.curve.limit_ms.entries()) {
      const g = mine[i]!;
      assert.equal(g.limit_ms, lim);
      assert.equal(g.accepted, s.curve.accepted[i], `${what}: ${metric} ${s.class} at ${lim} ms`);
      assert.equal(g.denominator, s.curve.denominator);
      const rate = s.curve.acceptance_rate[i]!;
      assert.equal(g.acceptance_rate, Number.isNaN(rate) ? null : rate);
    }
  }
  // The overall curve is the classes' sum at every limit.
  for (const lim of limits) {
    const at = rows.filter((r) => r.limit_ms === lim);
    const classes = at.filter((r) => r.class !== null);
    // No request in the window: no class, so no curve at all.
    assert.equal(at.length, classes.length ? classes.length + 1 : 0, `${what}: rows at ${lim} ms`);
    if (!classes.length) continue;
    const overall = at.find((r) => r.class === null)!;
    assert.equal(overall.accepted, classes.reduce((x, r) => x + r.accepted, 0));
  }
}

const POLICIES: SloPolicy[] = [
  parseSloPolicy({
    denominator: "offered",
    window: { exclude_stage_kinds: ["warmup", "drain"] },
    classes: {
      a: {
        e2e_ms: 1000,
        ttft_ms: 300,
        tpot_ms: 20,
        gates: ["output_valid", "quality_ok"],
        modes: { short: { output: "short answers", gates: ["output_valid"], e2e_ms: 1400 } },
      },
      b: { e2e_ms: 800, gates: ["output_valid", "schema_ok", "quality_ok", "safety_ok", "auth_ok"] },
      z: { e2e_ms: 500, gates: ["output_valid"] },
    },
    default: { ttft_ms: 400, tpot_ms: 40, gates: [] },
    modes: { cached: { output: "a cached answer", gates: ["safety_ok", "auth_ok"], e2e_ms: 2000, ttft_ms: 100 } },
  }, "policy 1"),
  parseSloPolicy({
    denominator: "completed",
    window: { start_ms: 1000, end_ms: 7000 },
    classes: { c: { e2e_ms: 1200, tpot_ms: 10, gates: ["safety_ok"] } },
    default: { e2e_ms: 900 },
  }, "policy 2"),
  parseSloPolicy({
    denominator: "sent",
    window: { exclude_stage_kinds: [], include_stages: ["s", "d"] },
    default: { e2e_ms: 1500, ttft_ms: 500, tpot_ms: 25, gates: ["auth_ok"] },
  }, "policy 3"),
  // A range after every request: every count zero, every stage outside it.
  parseSloPolicy({ window: { start_ms: 9500, end_ms: 20000 }, default: { e2e_ms: 700 } }, "policy 4"),
  parseSloPolicy({
    denominator: "offered",
    classes: { a: { ttft_ms: 250, gates: [] }, x: { tpot_ms: 15, gates: ["quality_ok"] }, z: { ttft_ms: 1 } },
    default: { gates: ["output_valid"] },
  }, "policy 5"),
];

Deno.test("SQL on DuckDB counts every goodput figure of random logs as the polars path does", async (t) => {
  // Every failure reason, streaming kind and n/a gate must occur somewhere, so that each rule is compared.
  const seen = new Map<string, number>();
  const tally = (k: string, n: number) => seen.set(k, (seen.get(k) ?? 0) + n);
  for (const seed of [1, 2, 3]) {
    await t.step(`seed ${seed}`, async () => {
      const dir = writeParquetRun(join(Deno.makeTempDirSync(), "run"), randomManifest(), randomLog(seed, 400));
      const run = await loadRun(dir, quiet);
      const sql = await openSqlRun(dir, quiet);
      try {
        for (const [i, policy] of POLICIES.entries()) {
          const what = `seed ${seed}, policy ${i + 1}`;
          const want = goodput(run, policy);
          const { result } = await sqlGoodput(sql, policy);
          assert.deepEqual(comparable(result), comparable(want), what);
          for (const [f, n] of Object.entries(result.overall.failures)) tally(f, n);
          for (const s of Object.values(result.disclosure.streaming)) {
            for (const [k, n] of Object.entries(s)) tally(k, n);
          }
          for (const [g, n] of Object.entries(result.disclosure.gates_not_applicable.overall)) tally(`na ${g}`, n);
          if (i !== 3) assert.ok(want.overall.accepted > 0 && want.overall.accepted < want.overall.offered, what);
          await assertLatency(run, sql, policy, i === 0, what);
          for (const metric of ["e2e_ms", "ttft_ms", "tpot_ms"] as const) {
            await assertSweep(run, sql, policy, metric, what);
          }
        }
      } finally {
        sql.close();
      }
    });
  }
  const never = [...FAILURE_REASONS, ...STREAMING, ...GATES.map((g) => `na ${g}`)].filter((k) => !seen.get(k));
  assert.deepEqual(never, [], "every rule occurs in the random logs");
});

Deno.test("one log read as one folder, as shard folders and hive-partitioned gives one result", async () => {
  const log = randomLog(7, 300);
  const root = Deno.makeTempDirSync();
  const plain = writeParquetRun(join(root, "plain"), randomManifest(), log);
  const sharded = writeShardedRun(join(root, "sharded"), randomManifest(), log, 3);
  const hive = writeHiveRun(join(root, "hive"), randomManifest(), log, 4);
  const policy = POLICIES[0]!;
  const results: GoodputResult[] = [];
  for (const dir of [plain, sharded, hive]) {
    const sql = await openSqlRun(dir, quiet);
    try {
      results.push((await sqlGoodput(sql, policy)).result);
    } finally {
      sql.close();
    }
  }
  const [a, b, c] = results.map(comparable);
  // Only the folder and the number of shard folders differ.
  const same = (x: typeof a) => ({ ...x!, disclosure: { ...x!.disclosure, files: a!.disclosure.files } });
  assert.deepEqual(same(b), a);
  assert.deepEqual(same(c), a);
  assert.deepEqual([b!.disclosure.files.shards, c!.disclosure.files.shards], [3, 1]);
  assert.deepEqual(results[2]!.disclosure.files.read.slice(0, 3), [
    "run.json",
    "requests/shard=0/part.parquet",
    "requests/shard=1/part.parquet",
  ]);
  // The polars path on the shard folders agrees.
  assert.deepEqual(comparable(goodput(await loadRun(sharded, quiet), policy)), b);
});

Deno.test("SQL and polars agree on every sample run in data/runs", async (t) => {
  const design = await loadSloPolicy("data/slo/design-v1.json");
  const modes = await loadSloPolicy("data/slo/design-v1-modes.json");
  const runs = ["explore", "route-hosted", "route-selfhosted", "route-hybrid", "route-selfhosted-alone-safety"];
  for (const name of runs) {
    await t.step(name, async () => {
      const dir = join("data/runs", name);
      const run = await loadRun(dir, quiet);
      const sql = await openSqlRun(dir, quiet);
      try {
        // The safety-only run's workload is one class: the policy keeps that class's SLO alone.
        const policies = name.endsWith("alone-safety")
          ? [{ ...design, classes: { safety: design.classes.safety! } }]
          : [design, modes, { ...design, denominator: "completed" as const }];
        for (const policy of policies) {
          assert.deepEqual(comparable((await sqlGoodput(sql, policy)).result), comparable(goodput(run, policy)));
          await assertLatency(run, sql, policy, true, name);
          await assertSweep(run, sql, policy, "e2e_ms", name);
          await assertSweep(run, sql, policy, "ttft_ms", name);
        }
      } finally {
        sql.close();
      }
    });
  }
});

Deno.test("a contract 1.0 log (no streaming, applicability or service mode recorded) counts the same", async () => {
  const dir = "test/testdata/contract-1.0";
  // Its workload is the safety class alone.
  const design = await loadSloPolicy("data/slo/design-v1.json");
  const policy = { ...design, classes: { safety: design.classes.safety! } };
  const run = await loadRun(dir, quiet);
  const sql = await openSqlRun(dir, quiet);
  try {
    const { result } = await sqlGoodput(sql, policy);
    assert.deepEqual(comparable(result), comparable(goodput(run, policy)));
    // 1.0 infers streaming: the inferred kinds occur, so the inference is exercised.
    const s = Object.values(result.disclosure.streaming);
    assert.ok(s.some((c) => c.assumed_streamed > 0));
    await assertLatency(run, sql, policy, true, "1.0");
    await assertSweep(run, sql, policy, "tpot_ms", "1.0");
  } finally {
    sql.close();
  }
});
