import assert from "node:assert/strict";
import { InputError } from "../../schema/errors.ts";
import { PlanSpec, type RequestRow, type RunManifest, type ScheduledRequest, type Workload } from "../../schema/mod.ts";
import { buildSchedule } from "../../runner/schedule.ts";
import type { DispatchOptions } from "../../runner/dispatch.ts";
import { provisionallyAccepted, sweepStopRule, withStopRule } from "../../runner/stop_rule.ts";
import { tinyCase } from "../../testing/tiny_workload.ts";
import { requestRow } from "./sinks/_rows.ts";

const WORKLOAD: Workload = {
  workload: "w",
  version: "1",
  kind: "design",
  description: "",
  does_not_represent: [],
  tokenizer: "o200k_base",
  cases: [tinyCase()],
};
const DEADLINE = 5000;

/** A finished row: ok, every gate true, 1 s after its schedule unless told otherwise. */
const row = (e: ScheduledRequest, over: Partial<RequestRow> = {}): RequestRow =>
  requestRow({
    request_id: e.request_id,
    class: e.class,
    stage: e.stage,
    scheduled_ms: e.scheduled_ms,
    completed_ms: e.scheduled_ms + 1000,
    outcome: "ok",
    output_valid: true,
    schema_ok: null,
    quality_ok: true,
    safety_ok: null,
    auth_ok: true,
    ...over,
  });

/** Constant steps of 2, 4, 6 req/s for 10 s, 3-s drains: 20, 40, 60 arrivals. */
async function sweep(stop: object, extra: object = {}) {
  const spec = PlanSpec.parse({
    name: "s",
    arrivals: {
      process: "sweep",
      start_rps: 2,
      step: { kind: "linear", step_rps: 2 },
      max_rps: 6,
      step_duration_s: 10,
      drain_s: 3,
      step_process: "constant",
      stop,
      ...extra,
    },
  });
  const built = await buildSchedule(spec, WORKLOAD, { planDir: "." });
  const rule = sweepStopRule(spec, built, () => DEADLINE, "s.json")!;
  const manifest = {
    stages: built.stages,
    plan: { scheduled_requests: built.entries.length },
    result: {},
  } as unknown as RunManifest;
  const inStep = (name: string) => built.entries.filter((e) => e.stage === name);
  return { built, rule, manifest, inStep };
}

Deno.test("provisionallyAccepted: ok, no false gate, within the class deadline", async (t) => {
  const e = { request_id: "r", scheduled_ms: 1000, case_id: "c", class: "qa", stage: "s", shard: 0 };
  await t.step("ok with true and unevaluated gates, on time", () => {
    assert.equal(provisionallyAccepted(row(e), DEADLINE), true);
    // Exactly at the deadline still counts: 1000 + 5000.
    assert.equal(provisionallyAccepted(row(e, { completed_ms: 6000 }), DEADLINE), true);
  });
  await t.step("late, a false gate, another outcome or no completion time: not accepted", () => {
    assert.equal(provisionallyAccepted(row(e, { completed_ms: 6000.5 }), DEADLINE), false);
    assert.equal(provisionallyAccepted(row(e, { safety_ok: false }), DEADLINE), false);
    assert.equal(provisionallyAccepted(row(e, { outcome: "rejected" }), DEADLINE), false);
    assert.equal(provisionallyAccepted(row(e, { completed_ms: null }), DEADLINE), false);
  });
  await t.step("without a known deadline, lateness is not judged", () => {
    assert.equal(provisionallyAccepted(row(e, { completed_ms: 1e9 }), null), true);
  });
});

Deno.test("the sweep stop rule judges each step at the end of its drain", async (t) => {
  await t.step("one checkpoint per judged step, at its drain's end; none without a rule", async () => {
    const { rule } = await sweep({ acceptance_below: 0.7 });
    assert.deepEqual(rule.checkpoints().map((c) => c.atMs), [13000, 26000, 39000]);
    const warm = await sweep({ acceptance_below: 0.7 }, { first_step_warmup: true });
    assert.deepEqual(warm.rule.checkpoints().map((c) => c.atMs), [26000, 39000]);
    assert.deepEqual((await sweep({})).rule.checkpoints(), []);
  });

  await t.step("acceptance below the floor stops the sweep after that step", async () => {
    const { rule, manifest, built, inStep } = await sweep({ acceptance_below: 0.7 });
    const [c1, c2] = rule.checkpoints();
    for (const e of inStep("step-01")) rule.observe(row(e));
    assert.equal(c1!.stop(), false);
    // step-02, 40 requests: 25 accepted, 5 rejected, 5 late, 5 not finished → 25 / 40 = 0.625.
    const s2 = inStep("step-02");
    s2.slice(0, 25).forEach((e) => rule.observe(row(e)));
    s2.slice(25, 30).forEach((e) => rule.observe(row(e, { outcome: "rejected", completed_ms: null })));
    s2.slice(30, 35).forEach((e) => rule.observe(row(e, { completed_ms: e.scheduled_ms + 6000 })));
    assert.equal(c2!.stop(), true);
    const offered = rule.conclude(manifest, built.entries, { offered: 60, withheldFromMs: 26000 }, false);
    assert.equal(offered.length, 60);
    assert.ok(offered.every((e) => e.stage === "step-01" || e.stage === "step-02"));
    assert.deepEqual(manifest.stages.map((s) => s.name), [
      "step-01",
      "drain-after-step-01",
      "step-02",
      "drain-after-step-02",
    ]);
    assert.equal(manifest.plan.scheduled_requests, 60);
    const { basis, ...stopped } = manifest.result.stopped_by!;
    assert.deepEqual(stopped, {
      rule: "acceptance_below",
      step: "step-02",
      value: 0.625,
      threshold: 0.7,
      offered: 40,
      in_flight: 5,
    });
    assert.match(basis, /provisional/);
  });

  await t.step("rejection above the ceiling stops it; skipped rows count as finished", async () => {
    const { rule, manifest, built, inStep } = await sweep({ rejection_above: 0.1 });
    const c1 = rule.checkpoints()[0]!;
    // step-01, 20 requests: 3 rejected (0.15 > 0.1), 2 never sent, 15 accepted.
    const s1 = inStep("step-01");
    s1.slice(0, 3).forEach((e) => rule.observe(row(e, { outcome: "rejected" })));
    s1.slice(3, 5).forEach((e) => rule.skipped(e));
    s1.slice(5).forEach((e) => rule.observe(row(e)));
    assert.equal(c1.stop(), true);
    rule.conclude(manifest, built.entries, { offered: 20, withheldFromMs: 13000 }, false);
    assert.equal(manifest.result.stopped_by?.rule, "rejection_above");
    assert.equal(manifest.result.stopped_by?.value, 0.15);
    assert.equal(manifest.result.stopped_by?.in_flight, 0);
    assert.deepEqual(manifest.stages.map((s) => s.name), ["step-01", "drain-after-step-01"]);
  });

  await t.step("a sweep that ran every step records max_rps; an interrupted one null", async () => {
    const ran = await sweep({ acceptance_below: 0.5 });
    for (const e of ran.built.entries) ran.rule.observe(row(e));
    assert.ok(ran.rule.checkpoints().every((c) => !c.stop()));
    const all = ran.rule.conclude(ran.manifest, ran.built.entries, { offered: 120, withheldFromMs: null }, false);
    assert.equal(all, ran.built.entries);
    assert.equal(ran.manifest.stages.length, 6);
    const { basis: _, ...stopped } = ran.manifest.result.stopped_by!;
    assert.deepEqual(stopped, { rule: "max_rps", step: "step-03", value: 6, threshold: 6, offered: 60, in_flight: 0 });
    const cut = await sweep({ acceptance_below: 0.5 });
    cut.rule.conclude(cut.manifest, cut.built.entries, { offered: 120, withheldFromMs: null }, true);
    assert.equal(cut.manifest.result.stopped_by, null);
  });
});

Deno.test("sweepStopRule: null for other plans; a judged sweep refuses to be sharded", async () => {
  const constant = PlanSpec.parse({ name: "c", arrivals: { process: "constant", rate_rps: 1, duration_s: 1 } });
  const built = await buildSchedule(constant, WORKLOAD, { planDir: "." });
  assert.equal(sweepStopRule(constant, built, () => null, "c.json"), null);
  const { built: sb } = await sweep({ acceptance_below: 0.5 });
  const spec = PlanSpec.parse({
    name: "s",
    arrivals: { process: "sweep", start_rps: 1, step: { kind: "linear", step_rps: 1 }, max_rps: 2, step_duration_s: 1 },
  });
  const sharded = { ...sb, shard: { index: 0, count: 2 } };
  assert.ok(sweepStopRule(spec, sharded, () => null, "s.json"), "a sweep without stop rule may be sharded");
  const judged = { ...spec, arrivals: { ...spec.arrivals, stop: { acceptance_below: 0.5 } } } as typeof spec;
  assert.throws(() => sweepStopRule(judged, sharded, () => null, "s.json"), (e: unknown) => {
    assert.ok(e instanceof InputError);
    assert.match(e.message, /s\.json: arrivals\.stop: .*one runner process/);
    return true;
  });
});

Deno.test("withStopRule feeds the rule every row and still calls the run's own hooks", async () => {
  const { rule, inStep } = await sweep({ acceptance_below: 0.9 });
  const seen: string[] = [];
  const o = {
    done: (r: RequestRow) => seen.push(`done ${r.request_id}`),
    skip: (e: ScheduledRequest) => seen.push(`skip ${e.request_id}`),
  } as unknown as DispatchOptions;
  assert.equal(withStopRule(null, o), o);
  const wrapped = withStopRule(rule, o);
  const s1 = inStep("step-01");
  // 17 finished ok + 3 skipped = 0.85 < 0.9: the rule saw both kinds.
  s1.slice(0, 17).forEach((e) => wrapped.done!(row(e)));
  s1.slice(17).forEach((e) => wrapped.skip(e, "not_sent", 2000, "send_lag>1000ms"));
  assert.equal(seen.length, 20);
  assert.deepEqual(seen.slice(16, 18), [`done ${s1[16]!.request_id}`, `skip ${s1[17]!.request_id}`]);
  assert.equal(wrapped.checkpoints?.length, 3);
  assert.equal(wrapped.checkpoints![0]!.stop(), true);
});
