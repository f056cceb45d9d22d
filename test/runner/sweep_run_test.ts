import assert from "node:assert/strict";
import { join } from "node:path";
import { RunManifest, SimProfile } from "../../schema/mod.ts";
import { loadWorkload } from "../../schema/workload_file.ts";
import { runLoadTest, type RunResult } from "../../runner/run.ts";
import { readSchedule } from "../../runner/schedule.ts";
import { readLogCsv } from "../../runner/sinks/csv_read.ts";
import { startSim } from "../../sim/mod.ts";
import { tinyCase, writeJson, writeWorkload } from "../../testing/tiny_workload.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/**
 * data/sim/slow.json made exact: 40 ms per decode step, 4 sequences at once,
 * always the right answer, no faults. A 20-token answer takes 21 steps
 * (≈ 0.84 s), so the sim serves at most 4 / 0.84 ≈ 4.8 req/s.
 */
async function slowExactProfile(): Promise<SimProfile> {
  const slow = JSON.parse(await Deno.readTextFile(join(ROOT, "data/sim/slow.json")));
  slow.behaviour.default = { accuracy: 1, refusal_rate: 1, json_validity: 1, tool_accuracy: 1 };
  slow.behaviour.classes = {};
  slow.faults = { error_rate: 0, outages: [] };
  return SimProfile.parse(slow);
}

async function withSlowSim<T>(body: (dir: string, workload: string, url: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "sweep_run_" });
  const workloadDir = writeWorkload(dir, [tinyCase({ expected_output_tokens: 20 })], { qa: false });
  const { workload } = await loadWorkload(workloadDir);
  const sim = await startSim({ port: 0, profile: await slowExactProfile(), workload, seed: 1, quiet: true });
  try {
    return await body(dir, workloadDir, sim.url);
  } finally {
    await sim.stop();
    await Deno.remove(dir, { recursive: true });
  }
}

/** Runs a constant-step sweep with `arrivals` against the slow sim: CSV only, no server timeline. */
function runSweep(
  dir: string,
  workload: string,
  url: string,
  arrivals: object,
  o: { timeoutsFile?: string; signal: AbortSignal },
): Promise<RunResult> {
  const plan = writeJson(dir, "sweep.json", {
    name: "sweep-test",
    seed: 3,
    arrivals: { process: "sweep", step_process: "constant", ...arrivals },
  });
  return runLoadTest({
    workload,
    plan,
    target: url,
    out: join(dir, "out"),
    formats: ["csv"],
    timeoutsFile: o.timeoutsFile,
    progress: false,
    serverTimeline: false,
    signal: o.signal,
  });
}

Deno.test("a sweep against a slow simulator stops after the step where acceptance falls", async () => {
  await withSlowSim(async (dir, workload, url) => {
    // Steps of 2 s at 1, 5, 25, 125 req/s, 2-s drains. Step-03 offers 50 requests; by the end of its drain
    // (4 s) the sim can have served at most 4.8 × 4 ≈ 19 of them (≤ 0.39 < 0.75). Step-02 (10 requests at
    // 5 req/s) is served within ~1 s of each arrival, all before its drain ends. Step-04 must never be offered.
    // Unfinished step-03 requests time out 5 s after their schedule, which bounds the run to ~15 s.
    const timeoutsFile = writeJson(dir, "timeouts.json", { request_ms: 5000, attempt_ms: 5000 });
    const guard = AbortSignal.timeout(28_000);
    const { dir: runDir, manifest } = await runSweep(dir, workload, url, {
      start_rps: 1,
      step: { kind: "geometric", factor: 5 },
      max_rps: 125,
      step_duration_s: 2,
      drain_s: 2,
      stop: { acceptance_below: 0.75 },
    }, { timeoutsFile, signal: guard });
    assert.equal(guard.aborted, false, "the run needed the test's guard to end");
    const requests = await readLogCsv(join(runDir, "requests.csv"), "requests");
    const stopped = manifest.result.stopped_by!;
    assert.equal(stopped.rule, "acceptance_below");
    assert.equal(stopped.step, "step-03");
    assert.ok(stopped.value < 0.75 && stopped.offered === 50, JSON.stringify(stopped));
    // Rows only for the offered steps: 2 + 10 + 50, none for step-04.
    const perStage = Object.groupBy(requests, (r) => r.stage);
    assert.deepEqual(Object.keys(perStage).sort(), ["step-01", "step-02", "step-03"]);
    assert.deepEqual([1, 2, 3].map((i) => perStage[`step-0${i}`]?.length), [2, 10, 50]);
    assert.equal(manifest.plan.scheduled_requests, 62);
    assert.equal(manifest.result.offered, 62);
    // run.json lists only the stages that ran; schedule.csv holds exactly the offered requests.
    assert.deepEqual(manifest.stages.map((s) => s.name), [
      "step-01",
      "drain-after-step-01",
      "step-02",
      "drain-after-step-02",
      "step-03",
      "drain-after-step-03",
    ]);
    const schedule = await readSchedule(join(runDir, "schedule.csv"));
    assert.deepEqual(schedule.map((e) => e.request_id), requests.map((r) => r.request_id).sort());
    const saved = RunManifest.parse(JSON.parse(await Deno.readTextFile(join(runDir, "run.json"))));
    assert.deepEqual(saved.result.stopped_by, stopped);
    // Step-02 was fully accepted by the runner's own rule, so it did not stop there.
    assert.ok(perStage["step-02"]!.every((r) => r.outcome === "ok" && r.quality_ok === true));
  });
});

Deno.test("a sweep that stays under its floor runs every step and records max_rps", async () => {
  await withSlowSim(async (dir, workload, url) => {
    // 1 and 2 req/s for 1 s each: 1 + 2 requests, far below the ~4.8 req/s the sim serves.
    const { manifest, summary } = await runSweep(dir, workload, url, {
      start_rps: 1,
      step: { kind: "linear", step_rps: 1 },
      max_rps: 2,
      step_duration_s: 1,
      drain_s: 1,
      stop: { acceptance_below: 0.5, rejection_above: 0.5 },
    }, { signal: AbortSignal.timeout(20_000) });
    assert.equal(summary.offered, 3);
    assert.deepEqual(manifest.stages.map((s) => s.name), [
      "step-01",
      "drain-after-step-01",
      "step-02",
      "drain-after-step-02",
    ]);
    const { basis: _, ...stopped } = manifest.result.stopped_by!;
    assert.deepEqual(stopped, { rule: "max_rps", step: "step-02", value: 2, threshold: 2, offered: 2, in_flight: 0 });
  });
});
