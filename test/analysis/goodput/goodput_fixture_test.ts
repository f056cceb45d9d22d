import assert from "node:assert/strict";
import { join } from "node:path";
import { goodput } from "../../../analysis/goodput/goodput.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { FAILURE_ORDER, type FailureReason } from "../../../analysis/goodput/classify.ts";
import { fixtureManifest, fixtureTables, POLICY } from "../hand_fixture.ts";
import { writeRun } from "../_fixture.ts";

function failures(nonzero: Partial<Record<FailureReason, number>>): Record<FailureReason, number> {
  return Object.fromEntries(FAILURE_ORDER.map((f) => [f, nonzero[f] ?? 0])) as Record<FailureReason, number>;
}

Deno.test("goodput of the hand-built fixture matches the worked-out numbers", async (t) => {
  const dir = writeRun(join(Deno.makeTempDirSync(), "run"), fixtureManifest(), fixtureTables());
  const run = await loadRun(dir, { onWarning: () => {} });
  const before = run.requests.clone();

  await t.step("overall, denominator offered", () => {
    const r = goodput(run, POLICY);
    // In the window (low 10–20 s + peak 20–30 s): 14 + 9 = 23 offered; w1 (warmup) and w2 (30000 = end) are out.
    // sent = 23 − q3 (client_shed) − q4 (not_sent) = 21; completed = ok: low 6 (q1 q14 q15 q16 q17 q18) + peak 9 = 15.
    // accepted = q1 q14 q15 + j2 o1 = 5. goodput = 5 / 20 s = 0.25; acceptance = 5/23; miss = (23 − 5)/23 = 18/23.
    assert.deepEqual(r.overall, {
      offered: 23,
      sent: 21,
      completed: 15,
      accepted: 5,
      measurement_seconds: 20,
      accepted_goodput: 0.25,
      acceptance_rate: 5 / 23,
      slo_miss_rate: 18 / 23,
      // 1+1+1+1+4 (q6–q9) + 2 late_e2e (q10 j4) + 1 (q11) + 2 slow_tpot (q12 q18) + 5 gates = 18 = 23 − 5.
      failures: failures({
        rejected: 1,
        client_shed: 1,
        not_sent: 1,
        timeout: 1,
        error: 4,
        late_e2e: 2,
        late_ttft: 1,
        slow_tpot: 2,
        gate_output_valid: 1,
        gate_schema_ok: 1,
        gate_quality_ok: 1,
        gate_safety_ok: 1,
        gate_auth_ok: 1,
      }),
    });
    assert.equal(r.disclosure.denominator, "offered");
    assert.equal(r.disclosure.window.measurement_seconds, 20);
    assert.deepEqual(r.disclosure.window.stages, ["low", "peak"]);
    assert.deepEqual(r.disclosure.n.by_class, { json: 4, other: 1, qa: 18 });
    assert.equal(r.disclosure.run_id, "fixture-run");
    assert.match(r.disclosure.tpot_definition, /last round/);
    assert.ok(r.disclosure.inclusion_rules.some((s) => /drain/.test(s)));
  });

  await t.step("every denominator", () => {
    const miss = (d: "offered" | "sent" | "completed") => goodput(run, { ...POLICY, denominator: d }).overall;
    assert.equal(miss("offered").slo_miss_rate, 18 / 23);
    assert.equal(miss("sent").slo_miss_rate, (21 - 5) / 21); // 16/21
    assert.equal(miss("completed").slo_miss_rate, (15 - 5) / 15); // 10/15
    // The denominator moves only slo_miss_rate.
    assert.equal(miss("completed").acceptance_rate, 5 / 23);
    assert.equal(miss("completed").accepted_goodput, 0.25);
  });

  await t.step("one class: qa", () => {
    const qa = goodput(run, POLICY).by_class.find((r) => r.class === "qa")!;
    // qa: q1–q18 = 18 offered; sent 16; completed q1 q10–q18 = 10; accepted q1 q14 q15 = 3; 20 s window.
    assert.deepEqual({ ...qa, failures: undefined }, {
      class: "qa",
      offered: 18,
      sent: 16,
      completed: 10,
      accepted: 3,
      measurement_seconds: 20,
      accepted_goodput: 3 / 20,
      acceptance_rate: 3 / 18,
      slo_miss_rate: 15 / 18,
      failures: undefined,
    });
    assert.deepEqual(
      qa.failures,
      failures({
        rejected: 1,
        client_shed: 1,
        not_sent: 1,
        timeout: 1,
        error: 4,
        late_e2e: 1,
        late_ttft: 1,
        slow_tpot: 2,
        gate_output_valid: 1,
        gate_safety_ok: 1,
        gate_auth_ok: 1,
      }),
    );
    const json = goodput(run, POLICY).by_class.find((r) => r.class === "json")!;
    // json: j1 gate_schema_ok, j2 accepted (TTFT 1500 has no limit), j3 gate_quality_ok, j4 late_e2e.
    assert.deepEqual([json.offered, json.accepted], [4, 1]);
    assert.deepEqual(json.failures, failures({ gate_schema_ok: 1, gate_quality_ok: 1, late_e2e: 1 }));
  });

  await t.step("one stage: peak, and stage seconds", () => {
    const r = goodput(run, POLICY);
    assert.deepEqual(r.by_stage.map((s) => s.stage), ["low", "peak"]);
    const peak = r.by_stage.find((s) => s.stage === "peak")!;
    // peak: q10–q13, j1–j4, o1 = 9 offered, all sent and ok; accepted j2 o1 = 2; 10 s → 0.2/s; miss 7/9.
    assert.deepEqual([peak.offered, peak.sent, peak.completed, peak.accepted], [9, 9, 9, 2]);
    assert.equal(peak.measurement_seconds, 10);
    assert.equal(peak.accepted_goodput, 0.2);
    assert.equal(peak.slo_miss_rate, 7 / 9);
    const low = r.by_stage.find((s) => s.stage === "low")!;
    // low: 14 offered, sent 12, completed 6, accepted 3 → 0.3/s.
    assert.deepEqual([low.offered, low.sent, low.completed, low.accepted, low.accepted_goodput], [14, 12, 6, 3, 0.3]);
    const qaPeak = r.by_class_stage.find((s) => s.class === "qa" && s.stage === "peak")!;
    assert.deepEqual([qaPeak.offered, qaPeak.accepted], [4, 0]);
  });

  await t.step("windows: drain included counts its seconds; explicit range", () => {
    const withDrain = goodput(run, { ...POLICY, window: { exclude_stage_kinds: ["warmup"] } });
    // low + peak + drain = 25 s; w2 (30000, in drain) is now offered: 24 offered, 6 accepted.
    assert.equal(withDrain.overall.measurement_seconds, 25);
    assert.deepEqual([withDrain.overall.offered, withDrain.overall.accepted], [24, 6]);
    assert.equal(withDrain.overall.accepted_goodput, 6 / 25);
    const range = goodput(run, { ...POLICY, window: { start_ms: 20_000, end_ms: 25_000 } });
    // [20000, 25000): the 9 peak requests (scheduled 20000–24000); length 5 s.
    assert.deepEqual([range.overall.offered, range.overall.accepted, range.overall.measurement_seconds], [9, 2, 5]);
    assert.deepEqual(range.by_stage.map((s) => [s.stage, s.measurement_seconds]), [["peak", 5]]);
  });

  await t.step("a lenient class SLO moves the failures to the next reason", () => {
    const lenient = goodput(run, {
      ...POLICY,
      classes: { ...POLICY.classes, qa: { ...POLICY.classes.qa!, e2e_ms: 2000 } },
    });
    // q10 (e2e 1200) now passes e2e and fails on TTFT 400 > 300: late_ttft 1 → 2, late_e2e 2 → 1.
    assert.equal(lenient.overall.failures.late_e2e, 1);
    assert.equal(lenient.overall.failures.late_ttft, 2);
  });

  await t.step("the input frames are not changed", () => {
    assert.ok(run.requests.frameEqual(before, true));
  });
});
