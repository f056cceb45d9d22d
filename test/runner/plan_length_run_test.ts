import assert from "node:assert/strict";
import { join } from "node:path";
import { RunManifest } from "../../schema/run_manifest.ts";
import { SimProfile } from "../../schema/sim_profile.ts";
import { loadWorkload } from "../../schema/workload_file.ts";
import { runLoadTest } from "../../runner/run.ts";
import { startSim } from "../../sim/mod.ts";
import { constantPlan, tinyCase, writeJson, writeWorkload } from "../../testing/tiny_workload.ts";

/** Runs `plan` against a fast simulator, collecting what the run printed on stderr (console.error). */
async function runCollecting(dir: string, workload: string, plan: string) {
  const { workload: w } = await loadWorkload(workload);
  const profile = SimProfile.parse({ name: "quick", engine: { decode_step_ms_base: 1, decode_step_ms_per_seq: 0 } });
  const sim = await startSim({ port: 0, profile, workload: w, seed: 1, quiet: true });
  const printed: string[] = [];
  const error = console.error;
  console.error = (...args: unknown[]) => void printed.push(args.map(String).join(" "));
  try {
    const run = await runLoadTest({
      workload,
      plan,
      target: sim.url,
      out: join(dir, "out"),
      formats: ["csv"],
      progress: false,
      serverTimeline: false,
      signal: AbortSignal.timeout(20_000),
    });
    return { run, printed };
  } finally {
    console.error = error;
    await sim.stop();
  }
}

Deno.test("a run warns before ms 0 about levels too short for the knee, on stderr and in run.json", async (t) => {
  const dir = Deno.makeTempDirSync();
  try {
    const workload = writeWorkload(dir, [tinyCase()]); // one class, qa, streamed
    await t.step("a sweep of two 0.5-s steps: both levels too short, said in one line, once", async () => {
      // 4 and 8 req/s, constant: 2 + 4 = 6 requests in 1 s.
      const plan = writeJson(dir, "sweep.json", {
        name: "short-sweep",
        seed: 1,
        arrivals: {
          process: "sweep",
          start_rps: 4,
          step: { kind: "linear", step_rps: 4 },
          max_rps: 8,
          step_duration_s: 0.5,
          step_process: "constant",
        },
      });
      const { run, printed } = await runCollecting(dir, workload, plan);
      const warnings = run.manifest.plan.warnings ?? [];
      // One line for the plan. step-01: ⌊4 × 0.5⌋ = 2 arrivals, step-02: ⌊8 × 0.5⌋ = 4: both short of 90 and of 459
      // (and under 5 one-second blocks). The longest step any level needs is step-01's: p95 ⌈90 / 4⌉ = ⌈22.5⌉ = 23 s,
      // p99 ⌈459 / 4⌉ = ⌈114.75⌉ = 115 s; one class, so no per-class figure beyond it.
      assert.deepEqual(warnings, [
        "plan too short for the knee: p95 untestable at 2 of 2 levels (make steps ≥ 23 s over all classes), p99 at " +
        `2 of 2 (≥ 115 s); each level: npx deno task plan --plan ${plan}`,
      ]);
      // On stderr, each once, before ms 0 — and in run.json as written.
      assert.deepEqual(printed.filter((l) => l.includes("plan too short")), warnings.map((w) => `warning: ${w}`));
      const onDisk = RunManifest.parse(JSON.parse(Deno.readTextFileSync(join(run.dir, "run.json"))));
      assert.deepEqual(onDisk.plan.warnings, warnings);
    });
    await t.step("a plan without a knee (one level) says nothing and leaves the field out", async () => {
      const { run, printed } = await runCollecting(dir, workload, constantPlan(dir, 4, 0.5));
      assert.equal(run.manifest.plan.warnings, undefined);
      assert.deepEqual(printed.filter((l) => l.includes("plan too short")), []);
      const onDisk = JSON.parse(Deno.readTextFileSync(join(run.dir, "run.json")));
      assert.equal("warnings" in onDisk.plan, false);
    });
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
