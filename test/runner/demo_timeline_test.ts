import assert from "node:assert/strict";
import { join } from "node:path";
import { loadSimProfile } from "../../schema/sim_profile.ts";
import type { Stage } from "../../schema/plan.ts";
import { buildSchedule, loadPlan } from "../../runner/schedule.ts";
import { tinyCase } from "../../testing/tiny_workload.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
/** The design-v1 mix saturates the default profile near 8 req/s (data/sim/README.md, measured). */
const DEFAULT_CAPACITY_RPS = 8;

Deno.test("the demo's plan and profile line up: a knee, a burst, then an outage in the recovery stage", async (t) => {
  const plan = await loadPlan(join(ROOT, "data/plans/demo-timeline.json"));
  const workload = {
    workload: "w",
    version: "1",
    kind: "design" as const,
    description: "",
    does_not_represent: [],
    tokenizer: "o200k_base" as const,
    cases: [tinyCase()],
  };
  const { stages } = await buildSchedule(plan.spec, workload, { planDir: plan.planDir });
  const demo = await loadSimProfile(join(ROOT, "data/sim/demo.json"));
  const byName = (name: string) => stages.find((s) => s.name === name) as Stage;

  await t.step("it starts warm, lasts at most 135 s of stages, and ends with a drain", () => {
    assert.equal(stages[0]?.kind, "warmup");
    assert.ok(stages.at(-1)!.end_ms <= 135_000, `${stages.at(-1)!.end_ms} ms`);
    assert.equal(stages.at(-1)?.kind, "drain");
  });
  await t.step("the rising steps straddle the default capacity", () => {
    const steps = stages.filter((s) => s.name.startsWith("step-"));
    const rates = steps.map((s) => s.offered_rps);
    assert.ok(steps.length >= 4);
    assert.deepEqual(rates, [...rates].sort((a, b) => a - b));
    assert.ok(rates.filter((r) => r < DEFAULT_CAPACITY_RPS).length >= 2, `${rates}`);
    assert.ok(rates.filter((r) => r > DEFAULT_CAPACITY_RPS).length >= 2, `${rates}`);
  });
  await t.step("the burst is above every step and comes after them", () => {
    const burst = byName("burst");
    assert.equal(burst.kind, "burst");
    assert.ok(stages.every((s) => s === burst || s.offered_rps < burst.offered_rps));
    assert.ok(stages.filter((s) => s.name.startsWith("step-")).every((s) => s.end_ms <= burst.start_ms));
  });
  await t.step(
    "a settle stage below capacity lets the steps' backlog drain before the burst (its recovery baseline)",
    () => {
      const settle = byName("settle");
      assert.equal(settle.kind, "recovery");
      assert.ok(settle.offered_rps < DEFAULT_CAPACITY_RPS / 2, `${settle.offered_rps}`);
      assert.ok(settle.end_ms - settle.start_ms >= 14_000);
      assert.ok(settle.end_ms <= byName("burst").start_ms);
    },
  );
  await t.step(
    "the profile is default.json plus one 503 outage inside 'recovery', ≥ 10 s after the burst",
    async () => {
      const def = await loadSimProfile(join(ROOT, "data/sim/default.json"));
      assert.deepEqual({ ...demo, name: def.name, description: def.description, faults: def.faults }, def);
      const [outage, ...more] = demo.faults.outages;
      assert.equal(more.length, 0);
      assert.equal(outage?.mode, "503");
      const recovery = byName("recovery");
      assert.ok(outage!.start_ms >= recovery.start_ms && outage!.end_ms <= recovery.end_ms);
      assert.ok(outage!.start_ms - byName("burst").end_ms >= 10_000);
      assert.ok(recovery.end_ms - outage!.end_ms >= 10_000, "time to see the recovery");
    },
  );
});
