import { SCHEMA_MINOR } from "../../schema/version.ts";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import pl from "nodejs-polars";
import { OUTCOMES, RunManifest } from "../../schema/mod.ts";
import { readSchedule } from "../../runner/schedule.ts";
import { clientVerdict } from "../../runner/request_tally.ts";
import { readLogCsv } from "../../runner/sinks/csv_read.ts";
import { runDesignV1OnSim, stagedPlan } from "../support/sim_run.ts";

Deno.test("a staged run of design-v1 against the simulator writes a complete, self-consistent run folder", async () => {
  const dir = Deno.makeTempDirSync();
  try {
    const plan = stagedPlan(dir, { name: "staged-test", seed: 11, drain_s: 0.3 }, [
      { name: "cold", kind: "warmup", process: "poisson", rate_rps: 20, duration_s: 0.6 },
      { name: "peak", kind: "steady", process: "constant", rate_rps: 40, duration_s: 0.6 },
      { name: "spike", kind: "burst", process: "gamma", rate_rps: 60, duration_s: 0.4, burstiness: 0.5 },
    ], "staged.json");
    const { dir: runDir, manifest, summary } = await runDesignV1OnSim(dir, {
      plan,
      simSeed: 3,
      formats: ["csv", "parquet"],
    });
    const requests = await readLogCsv(join(runDir, "requests.csv"), "requests");
    // Finalisation keeps the requests only as counts: the same counts as the rows, and the same verdict.
    assert.equal(summary.offered, requests.length);
    assert.equal(summary.lagged, requests.filter((r) => r.send_lag_ms !== null).length);
    for (const [stage, counts] of summary.byStage) {
      for (const [outcome, n] of counts) {
        assert.equal(
          n,
          requests.filter((r) => r.stage === stage && r.outcome === outcome).length,
          `${stage} ${outcome}`,
        );
      }
    }
    assert.equal(
      [...summary.byStage.values()].reduce((s, m) => s + [...m.values()].reduce((a, b) => a + b, 0), 0),
      requests.length,
    );
    const { offered, not_sent, client_shed, send_lag_p99_ms, send_lag_max_ms, client_limited, client_limit_reason } =
      manifest.result;
    const { client_limit_reason: reason, ...verdict } = clientVerdict(requests, { stages: manifest.stages });
    assert.deepEqual({ offered, not_sent, client_shed, send_lag_p99_ms, send_lag_max_ms, client_limited }, verdict);
    // A client-limited run's reason ends with its cause, from the CPU contention over the run.
    assert.equal(client_limit_reason === null ? null : client_limit_reason.slice(0, reason?.length ?? 0), reason);
    assert.ok(manifest.result.cpu_contention !== undefined, "the contention is recorded (null only off Linux)");

    const classOf = new Map(requests.map((r) => [r.request_id, r.class]));
    const byClass = (id: string) => classOf.get(id);
    // Every scheduled request appears exactly once, with a valid outcome.
    const schedule = await readSchedule(join(runDir, "schedule.csv"));
    assert.ok(schedule.length > 20);
    assert.deepEqual(requests.map((r) => r.request_id).sort(), schedule.map((e) => e.request_id).sort());
    for (const r of requests) assert.ok(OUTCOMES.includes(r.outcome));
    assert.ok(requests.filter((r) => r.outcome === "ok").length > 0.9 * requests.length);
    // Stages come from the plan; the first is the cold start.
    assert.deepEqual(manifest.stages.map((s) => s.kind), ["warmup", "drain", "steady", "drain", "burst", "drain"]);
    for (const r of requests) {
      const e = schedule.find((s) => s.request_id === r.request_id)!;
      assert.equal(r.stage, e.stage);
      assert.equal(r.scheduled_ms, e.scheduled_ms);
      assert.equal(r.case_id, e.case_id);
    }
    // Tool cases ran their frozen tools; retrieval cases their retrieval step.
    const tools = await readLogCsv(join(runDir, "tools.csv"), "tools");
    for (const r of requests.filter((r) => r.outcome === "ok" && r.class === "tool_agent")) {
      assert.ok((r.tool_calls >= 1 && r.rounds === r.tool_calls + 1) || r.auth_ok === false, r.request_id);
    }
    for (const r of requests.filter((r) => r.class === "rag_answer" && r.outcome === "ok")) {
      assert.ok(tools.some((t) => t.request_id === r.request_id && t.tool === "retrieval" && t.round === 0));
    }
    // Contract 1.1 columns (1.2 adds none): streaming per class (design-v1 sends extract_json unstreamed),
    // applicable gates per case.
    assert.equal(manifest.schema_minor, SCHEMA_MINOR);
    assert.deepEqual(manifest.workload.classes, [...new Set(requests.map((r) => r.class))].sort());
    for (const r of requests) {
      assert.equal(r.streamed, r.class !== "extract_json", r.request_id);
      assert.ok(r.applicable_gates?.startsWith("output_valid,"), r.request_id);
      if (r.class === "extract_json") assert.ok(r.applicable_gates!.includes("schema_ok"), r.request_id);
      if (r.class === "tool_agent") assert.ok(r.applicable_gates!.includes("auth_ok"), r.request_id);
      if (r.safety_ok === null && r.outcome === "ok") assert.ok(!r.applicable_gates!.includes("safety_ok"));
    }
    const attempts = await readLogCsv(join(runDir, "attempts.csv"), "attempts");
    for (const a of attempts) assert.equal(a.streamed, byClass(a.request_id) !== "extract_json", a.request_id);
    // The simulator's timeline was copied onto the run clock.
    const server = await readLogCsv(join(runDir, "server.csv"), "server");
    assert.ok(server.length >= 1);
    for (const s of server) assert.ok(s.t_ms >= 0 && s.t_ms <= manifest.result.ended_ms + 1000);
    // run.json validates, and every file's sha256 matches.
    RunManifest.parse(JSON.parse(Deno.readTextFileSync(join(runDir, "run.json"))));
    assert.equal(manifest.result.status, "complete");
    for (const [name, sha] of Object.entries(manifest.files)) {
      assert.equal(createHash("sha256").update(Deno.readFileSync(join(runDir, name))).digest("hex"), sha, name);
    }
    assert.ok(
      ["requests.parquet", "attempts.parquet", "tools.parquet", "server.parquet"].every((f) => f in manifest.files),
    );
    // Parquet holds the same rows as CSV.
    const pq = pl.readParquet(join(runDir, "requests.parquet"));
    assert.equal(pq.height, requests.length);
    const byId = new Map(requests.map((r) => [r.request_id, r]));
    for (const rec of pq.toRecords()) {
      const r = byId.get(rec.request_id as string)!;
      assert.equal(rec.outcome, r.outcome);
      assert.equal(rec.completed_ms, r.completed_ms);
      assert.equal(rec.quality_ok, r.quality_ok);
      assert.equal(Number(rec.output_tokens), r.output_tokens);
    }
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
