import assert from "node:assert/strict";
import { formatKnee } from "../../../analysis/knee/format_knee.ts";
import { knee } from "../../../analysis/knee/knee.ts";
import { productionLimit } from "../../../analysis/knee/limit.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { SWEEP_POLICY, writeSweepRun } from "./knee_fixture.ts";

const quiet = { onWarning: () => {} };

/** C(a, k) / C(b, k) = ∏_{i<k} (a − i) / (b − i): the chance that all k failures fall in the group of a out of b. */
function allFailuresIn(a: number, b: number, k: number): number {
  let p = 1;
  for (let i = 0; i < k; i++) p *= (a - i) / (b - i);
  return p;
}

Deno.test("knee() finds the first degrading signal, with its evidence", async (t) => {
  const run = await loadRun(writeSweepRun(Deno.makeTempDirSync() + "/run"), quiet);
  const r = knee([run], SWEEP_POLICY);

  await t.step("levels: four planned rates, the lowest is the baseline", () => {
    assert.deepEqual(r.levels.map((l) => l.planned_rps), [2, 4, 8, 16]);
    assert.deepEqual(r.baseline.planned_rps, [2]);
  });
  await t.step("4 req/s: 2 of 80 rejected is beyond tolerance but not significant: undecidable", () => {
    const d = r.signals.acceptance_rate!.departures[0]!;
    assert.equal(d.value, 0.975); // 78 / 80
    assert.equal(d.threshold, 0.98); // 1 − 0.02
    assert.equal(d.verdict, "undecidable");
    // Blocks: both rejections (requests 0 and 1, at 30 000 and 30 250 ms) are in the level's first second of 20
    // (4 requests each); every baseline second is 2 of 2 accepted. A resample is worse than the baseline exactly
    // when it draws that second: p = P(never in 20 draws) = (19/20)^20 ≈ 0.358 (1000 resamples: 4 SE = 0.061).
    assert.ok(Math.abs(d.guard.block_p_value! - (19 / 20) ** 20) < 0.061, `p = ${d.guard.block_p_value}`);
    // Independence, Fisher: both failures in the level: C(80, 2) / C(120, 2) = 80·79 / (120·119) ≈ 0.443
    assert.ok(Math.abs(d.guard.independent_p_value! - (80 * 79) / (120 * 119)) < 1e-12);
    // The guard takes the larger: 0.443 ≥ 0.05.
    assert.equal(d.guard.p_value, d.guard.independent_p_value);
  });
  await t.step("8 req/s: acceptance and rejection degrade first, confirmed by the block bootstrap", () => {
    assert.deepEqual(r.first_degrading, {
      planned_rps: 8,
      offered_rps: 8,
      signals: ["acceptance_rate", "rejection_rate"],
    });
    const d = r.signals.acceptance_rate!.departures[1]!;
    assert.equal(d.verdict, "degraded");
    assert.equal(d.guard.name, "block_bootstrap_and_independent");
    // Every 10th request rejected: 16 of the 20 seconds (8 requests each) hold one; only seconds 4, 9, 14 and 19 hold
    // none. A resample is not worse only if all 20 draws miss those 16: (4/20)^20 ≈ 1e-14, so none of 1000 is.
    assert.equal(d.guard.block_p_value, 0);
    // Fisher, all 16 failures in the level: C(160, 16) / C(200, 16) ≈ 0.024; the guard's p is the larger.
    assert.ok(Math.abs(d.guard.independent_p_value! - allFailuresIn(160, 200, 16)) < 1e-12);
    assert.equal(d.guard.p_value, d.guard.independent_p_value);
    assert.match(d.why, /below 0.98 and 144\/160 vs baseline 40\/40: block bootstrap \(20 blocks vs baseline 20/);
  });
  await t.step("a percentile the baseline's n cannot bound stays undecidable", () => {
    // p95 needs n ≥ 72 for an upper bound at 95 %; the baseline has 40 values.
    const d = r.signals["e2e_p95_ms@qa"]!.departures[2]!;
    assert.equal(d.value, 2000);
    assert.equal(d.verdict, "undecidable");
    assert.equal(d.guard.significant, null);
    assert.equal(d.slo_limit_ms, 1000);
  });
  await t.step("timeline signals are judged on tolerance alone, and say so", () => {
    const d = r.signals.server_queue_len_mean!.departures;
    assert.deepEqual(d.map((x) => x.verdict), ["ok", "ok", "degraded"]); // 0, 1 (not above 0 + 1), 10
    assert.match(d[2]!.why, /tolerance only/);
  });
  await t.step("Kneedle on accepted goodput: (2, 2) (4, 3.9) (8, 7.2) (16, 0) bends at 8", () => {
    const k = r.kneedle.result!;
    assert.equal(k.knee, 8);
    // x_n = 0, 1/7, 3/7, 1; y_n = (y − 2) / (7.2 − 2): scaled by the levels up to the peak, the collapse below 0;
    // y_d = y_n − x_n
    assert.deepEqual(k.y_range, { min: 2, max: 7.2 });
    assert.equal(k.interior, true);
    const want = [0, 1.9 / 5.2 - 1 / 7, 1 - 3 / 7, -2 / 5.2 - 1];
    k.y_difference.forEach((v, i) => assert.ok(Math.abs(v - want[i]!) < 1e-12));
    assert.ok(Math.abs(k.maxima[0]!.threshold - (4 / 7 - 1 / 3)) < 1e-12); // mean Δx_n = 1/3
    assert.match(formatKnee(r, productionLimit(8)), /goodput normalised over 2–7\.2 \/s \(the levels up to its peak/);
  });
  await t.step("the knee is the lower of both: 8 req/s, first reached by a departure", () => {
    assert.deepEqual(r.knee, { offered_rps: 8, source: "departure", signal: "acceptance_rate" });
  });
});

Deno.test("knee() options change the baseline and the tolerances", async (t) => {
  const run = await loadRun(writeSweepRun(Deno.makeTempDirSync() + "/run"), quiet);
  await t.step("two baseline levels pool 118 latencies: the p95 is supported and 2000 ms is degraded", () => {
    const r = knee([run], SWEEP_POLICY, { baselineLevels: 2 });
    assert.deepEqual(r.baseline.planned_rps, [2, 4]);
    const d = r.signals["e2e_p95_ms@qa"]!.departures.at(-1)!;
    // Baseline: 40 + 78 latencies of 500 ms in 40 seconds; level: 160 of 2000 ms: every resample is 1500 ms worse,
    // by blocks and by single requests alike.
    assert.equal(d.guard.name, "block_bootstrap_and_independent");
    assert.equal(d.guard.p_value, 0);
    assert.equal(d.verdict, "degraded");
  });
  await t.step("a wider acceptance tolerance leaves only the rejection rate degrading at 8 req/s", () => {
    const r = knee([run], SWEEP_POLICY, { tolerances: { acceptance_rate: { rel: 0, abs: 0.2 } } });
    assert.deepEqual(r.first_degrading?.signals, ["rejection_rate"]);
    assert.equal(r.signals.acceptance_rate!.departures[1]!.threshold, 0.8);
  });
  await t.step("baselineLevels must leave a level to test", () => {
    assert.throws(() => knee([run], SWEEP_POLICY, { baselineLevels: 4 }), RangeError);
  });
});

Deno.test("knee() reports no knee for a sweep that never degrades", async () => {
  const dir = writeSweepRun(Deno.makeTempDirSync() + "/run", { healthy: true, server: false });
  const r = knee([await loadRun(dir, quiet)], SWEEP_POLICY);
  assert.equal(r.first_degrading, null);
  assert.equal(r.kneedle.result?.knee, null); // goodput = offered: a straight line
  assert.equal(r.knee, null);
});
