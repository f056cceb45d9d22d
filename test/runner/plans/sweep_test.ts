import assert from "node:assert/strict";
import { InputError } from "../../../schema/errors.ts";
import { ArrivalProcess, PlanSpec, type Stage, SweepProcess } from "../../../schema/plan.ts";
import { Rng } from "../../../runner/rng.ts";
import { describeSweep, sweepArrivals, sweepSteps } from "../../../runner/plans/sweep.ts";
import { planProblems } from "../../../runner/plans/validate_plan.ts";

const base = {
  process: "sweep",
  start_rps: 2,
  step: { kind: "linear", step_rps: 2 },
  max_rps: 6,
  step_duration_s: 10,
  step_process: "constant",
};

function gen(spec: unknown, seed = 1) {
  return sweepArrivals.arrivals(SweepProcess.parse(spec), { rng: new Rng(seed), planDir: ".", planFile: "p.json" });
}

const row = (s: Stage) => [s.name, s.kind, s.start_ms, s.end_ms, s.offered_rps];
const inStage = (times: number[], s: Stage) => times.filter((t) => t >= s.start_ms && t < s.end_ms).length;

Deno.test("a linear sweep rises by step_rps up to max_rps with a drain after each step", async (t) => {
  const a = await gen({ ...base, drain_s: 3 });
  await t.step("steps 2, 4, 6 req/s of 10 s, each followed by a 3-s drain", () => {
    assert.deepEqual(a.stages.map(row), [
      ["step-01", "steady", 0, 10000, 2],
      ["drain-after-step-01", "drain", 10000, 13000, 0],
      ["step-02", "steady", 13000, 23000, 4],
      ["drain-after-step-02", "drain", 23000, 26000, 0],
      ["step-03", "steady", 26000, 36000, 6],
      ["drain-after-step-03", "drain", 36000, 39000, 0],
    ]);
  });
  await t.step("constant steps hold exactly rate × duration arrivals; drains none", () => {
    // 2 × 10, 4 × 10, 6 × 10 arrivals; the first of step-02 at its start, 13 000 ms.
    assert.deepEqual(a.stages.map((s) => inStage(a.timesMs, s)), [20, 0, 40, 0, 60, 0]);
    assert.equal(a.timesMs.length, 120);
    assert.equal(a.timesMs[20], 13000);
    assert.equal(a.timesMs[21], 13250);
  });
  await t.step("final_drain false ends on the last step; drain_s 0 has no drains", async () => {
    const noFinal = await gen({ ...base, drain_s: 3, final_drain: false });
    assert.equal(noFinal.stages.at(-1)?.name, "step-03");
    const noDrain = await gen(base);
    assert.deepEqual(noDrain.stages.map((s) => s.name), ["step-01", "step-02", "step-03"]);
    assert.equal(noDrain.stages[2]?.start_ms, 20000);
  });
  await t.step("a max_rps between levels stops at the level below it", () => {
    const steps = sweepSteps(SweepProcess.parse({ ...base, max_rps: 5.9 }));
    assert.deepEqual(steps.map((s) => s.rate_rps), [2, 4]);
  });
  await t.step("a level above max_rps by rounding only is still offered, at max_rps", () => {
    // 0.1 + 2 × 0.1 = 0.30000000000000004 in doubles: above 0.3 by one rounding.
    const spec = SweepProcess.parse({ ...base, start_rps: 0.1, step: { kind: "linear", step_rps: 0.1 }, max_rps: 0.3 });
    assert.deepEqual(sweepSteps(spec).map((s) => s.name), ["step-01", "step-02", "step-03"]);
    assert.equal(sweepSteps(spec).at(-1)?.rate_rps, 0.3);
  });
});

Deno.test("a geometric sweep multiplies by factor and repeats each step", async (t) => {
  const spec = { ...base, start_rps: 1, step: { kind: "geometric", factor: 3 }, max_rps: 10, repeats: 2, drain_s: 1 };
  const a = await gen(spec);
  await t.step("levels 1, 3, 9 req/s, each twice; repeats are named -r2", () => {
    // 27 > 10 ends the sweep.
    assert.deepEqual(a.stages.filter((s) => s.kind !== "drain").map((s) => [s.name, s.offered_rps]), [
      ["step-01", 1],
      ["step-01-r2", 1],
      ["step-02", 3],
      ["step-02-r2", 3],
      ["step-03", 9],
      ["step-03-r2", 9],
    ]);
    assert.equal(a.stages.length, 12);
    assert.equal(a.stages.at(-1)?.end_ms, 6 * 11000);
  });
  await t.step("a repeat offers the same count as its first run", () => {
    const counts = a.stages.filter((s) => s.kind !== "drain").map((s) => inStage(a.timesMs, s));
    assert.deepEqual(counts, [10, 10, 30, 30, 90, 90]);
  });
  await t.step("step names widen past 99 levels", () => {
    const many = SweepProcess.parse({ ...base, start_rps: 1, step: { kind: "linear", step_rps: 1 }, max_rps: 120 });
    const names = sweepSteps(many).map((s) => s.name);
    assert.equal(names.length, 120);
    assert.equal(names[0], "step-001");
    assert.equal(names.at(-1), "step-120");
  });
});

Deno.test("sweep steps run their own process, seeded", async (t) => {
  await t.step("Poisson steps: each step's count within ±4σ of rate × duration; same seed, same times", async () => {
    const spec = {
      ...base,
      step_process: "poisson",
      start_rps: 20,
      step: { kind: "linear", step_rps: 20 },
      max_rps: 40,
    };
    const a = await gen(spec, 5);
    const [s1, s2] = a.stages as [Stage, Stage];
    // 200 ± 4√200 ≈ ±57, 400 ± 4√400 = ±80.
    assert.ok(Math.abs(inStage(a.timesMs, s1) - 200) <= 4 * Math.sqrt(200), `${inStage(a.timesMs, s1)}`);
    assert.ok(Math.abs(inStage(a.timesMs, s2) - 400) <= 80, `${inStage(a.timesMs, s2)}`);
    assert.deepEqual((await gen(spec, 5)).timesMs, a.timesMs);
    assert.notDeepEqual((await gen(spec, 6)).timesMs, a.timesMs);
  });
  await t.step("gamma steps need burstiness and get it", async () => {
    const r = SweepProcess.safeParse({ ...base, step_process: "gamma" });
    assert.equal(r.success, false);
    assert.deepEqual(r.error?.issues.map((i) => i.path), [["burstiness"]]);
    const a = await gen({ ...base, step_process: "gamma", burstiness: 0.5 });
    assert.ok(a.timesMs.length > 0);
    assert.ok(a.timesMs.every((x, i) => i === 0 || x >= a.timesMs[i - 1]!));
  });
});

Deno.test("bad sweeps are refused naming the field", async (t) => {
  await t.step("start above max, burstiness without gamma, a factor of 1: every problem at once", () => {
    const r = ArrivalProcess.safeParse({
      ...base,
      start_rps: 8,
      burstiness: 2,
      step: { kind: "geometric", factor: 1 },
    });
    assert.equal(r.success, false);
    const paths = r.error!.issues.map((i) => i.path.join("."));
    assert.ok(paths.includes("step.factor"), paths.join());
    // Refinements run only once the object parsed, so check them with a valid step.
    const r2 = SweepProcess.safeParse({ ...base, start_rps: 8, burstiness: 2 });
    assert.deepEqual(r2.error?.issues.map((i) => i.path.join(".")).sort(), ["burstiness", "max_rps"]);
  });
  await t.step("more than 999 steps, or a warm-up as the only step", async () => {
    const plan = (arrivals: object) => PlanSpec.parse({ name: "x", arrivals: { ...base, ...arrivals } });
    const many = plan({ start_rps: 1, step: { kind: "linear", step_rps: 1 }, max_rps: 5000 });
    assert.match(planProblems(many, "p.json")[0]!, /p\.json: arrivals\.max_rps: more than 999 steps/);
    const lone = plan({ max_rps: 2, first_step_warmup: true });
    assert.match(planProblems(lone, "p.json")[0]!, /p\.json: arrivals\.first_step_warmup: the only step/);
    await assert.rejects(gen({ ...base, max_rps: 2, first_step_warmup: true }), InputError);
  });
  await t.step("first_step_warmup makes step-01 the warm-up", async () => {
    const a = await gen({ ...base, first_step_warmup: true, repeats: 2 });
    assert.deepEqual(a.stages.map((s) => s.kind), ["warmup", "warmup", "steady", "steady", "steady", "steady"]);
  });
});

Deno.test("describeSweep names the steps, the rise and the stop rule", () => {
  const spec = SweepProcess.parse({ ...base, repeats: 2, stop: { rejection_above: 0.1 } });
  assert.equal(
    describeSweep(spec),
    "sweep: 3 steps × 2 repeats of 10 s (constant), 2 → 6 req/s (+2 req/s); stops after the first step whose " +
      "rejection > 0.1 at the end of its drain (the runner's provisional verdict); later steps are then not offered",
  );
  assert.match(describeSweep(SweepProcess.parse(base)), /no stop rule: every step is offered$/);
});
