import assert from "node:assert/strict";
import { kneeJson } from "../../../analysis/cli/knee.ts";
import { formatKnee } from "../../../analysis/knee/format_knee.ts";
import { knee, type KneeResult } from "../../../analysis/knee/knee.ts";
import { kneedle } from "../../../analysis/knee/kneedle.ts";
import { productionLimit } from "../../../analysis/knee/limit.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { goodputDips } from "../../../analysis/knee/persistence.ts";
import { TRANSIENT_POLICY, type TransientOptions, writeTransientRun } from "./transient_fixture.ts";

const quiet = { onWarning: () => {} };
const BURST = { stage: "step-02", from_s: 3, to_s: 7 };

async function analyse(...runs: TransientOptions[]): Promise<KneeResult> {
  const loaded = await Promise.all(
    runs.map((o, i) => loadRun(writeTransientRun(Deno.makeTempDirSync() + "/run", { runId: `r${i}`, ...o }), quiet)),
  );
  return knee(loaded, TRANSIENT_POLICY);
}

Deno.test("a burst of late requests in 4 s of one step, the next step healthy: a transient that does not move the knee", async (t) => {
  // Steps at 20, 24, 28, 32, 36 req/s; from 32 req/s on every request takes 900 ms (within the SLO, above the
  // baseline's 500 ms by more than 25 % + 100 ms = 725 ms); in the transient run, requests scheduled 3–7 s into the
  // 24 req/s step (13 000–17 000 ms: 96 of 240) take 1500 ms and miss the 1000 ms SLO.
  const steady = await analyse({ slowFrom: "step-04" });
  const r = await analyse({ slowFrom: "step-04", late: [BURST] });

  await t.step("without the burst the knee is 32 req/s, where e2e p95 departs and persists to 36", () => {
    assert.deepEqual(steady.knee, { offered_rps: 32, source: "departure", signal: "e2e_p95_ms@all" });
    assert.deepEqual(steady.transients, []);
  });
  await t.step("with it, the knee is not moved", () => {
    assert.deepEqual(r.knee, steady.knee);
    assert.deepEqual(r.first_degrading, {
      planned_rps: 32,
      offered_rps: 32,
      signals: ["e2e_p95_ms@all", "e2e_p95_ms@qa"],
    });
    assert.deepEqual(r.signals["e2e_p95_ms@all"]!.departures[2]!.persistence, {
      status: "confirmed",
      by: "next_level",
      why: "the next level with data (36 req/s) also departs",
    });
  });
  await t.step(
    "each signal the burst moved at 24 req/s is a transient: acceptance, tokens per accepted, e2e p95",
    () => {
      // acceptance 144 / 240 = 0.6; tokens (240 × 30) / 144 = 50 vs 30; e2e p95: 96 of 240 values are 1500 ms (40 %).
      assert.deepEqual(
        r.transients.map((x) => [x.signal, x.planned_rps, x.value, x.baseline]),
        [
          ["acceptance_rate", 24, 0.6, 1],
          ["tokens_per_accepted", 24, 50, 30],
          ["e2e_p95_ms@all", 24, 1500, 500],
          ["e2e_p95_ms@qa", 24, 1500, 500],
        ],
      );
      for (const x of r.transients) {
        assert.match(x.why, /^the next level with data \(28 req\/s\) does not depart \(ok: within tolerance/);
        // Seconds 3, 4, 5, 6 of the stage hold only late requests: out of line there and nowhere else.
        assert.deepEqual(x.where, [
          { run_id: "r0", stage: "step-02", start_ms: 10_000, end_ms: 20_000, out_of_line_s: [[3, 7]] },
        ]);
      }
    },
  );
  await t.step("within its level the burst is a confirmed departure: 4 bad seconds of 10", () => {
    const d = r.signals.acceptance_rate!.departures[0]!;
    assert.equal(d.verdict, "degraded");
    assert.equal(d.persistence!.status, "transient");
    // Blocks: 10 seconds of 24 requests, 4 with none accepted; baseline seconds all accepted. A resample is not worse
    // only if it draws none of the 4: p = 0.6^10 ≈ 0.0060 (1000 resamples: 4 SE ≈ 0.0098). Fisher (96 failures, all in
    // the level) is far smaller, so the guard's p is the block one.
    assert.ok(Math.abs(d.guard.block_p_value! - 0.6 ** 10) < 0.0098, `p = ${d.guard.block_p_value}`);
    assert.ok(d.guard.independent_p_value! < 1e-20);
    assert.equal(d.guard.p_value, d.guard.block_p_value);
  });
  await t.step("Kneedle reads the goodput curve without the dip at 24 req/s", () => {
    // Goodput 20, 14.4 (= 144 / 10 s), 28, 32, 36: 14.4 < 20 at 20 req/s, and 36 at 36 req/s is back above 20.
    assert.deepEqual(r.kneedle.excluded.map((e) => [e.offered_rps, e.accepted_goodput]), [[24, 14.4]]);
    assert.match(r.kneedle.excluded[0]!.why, /below 20 \/s at 20 req\/s, and 36 \/s at 36 req\/s is back at or above/);
    assert.deepEqual(r.kneedle.x, [20, 28, 32, 36]);
    assert.equal(r.kneedle.result!.knee, null); // goodput = offered: a straight line
    // With the dip, Kneedle would bend at 20: x_n = 0, .25, .5, .75, 1; y_n = (y − 14.4) / 21.6 = .259, 0, .630, .815,
    // 1; y_d = .259, −.25, .130, .065, 0: the maximum at 20 sets T = .259 − .25 = .009 and y_d(24) = −.25 < T.
    assert.equal(kneedle([20, 24, 28, 32, 36], [20, 14.4, 28, 32, 36]).knee, 20);
  });
  await t.step("the text and the JSON report the transient with its time", () => {
    const limit = productionLimit(r.knee!.offered_rps);
    const text = formatKnee(r, limit);
    assert.match(text, /transients \(degraded at a level but not persistent, so not counted for the knee\): 4/);
    assert.match(text, /@ 24 req\/s \(measured 24\), step-02 \(10000–20000 ms\):/);
    assert.match(text, /acceptance_rate: 0.6 vs baseline 1 \(threshold 0.98\), out of line at 3–7 s; the next level/);
    assert.match(text, /left out: 24 req\/s: accepted goodput 14.4 \/s/);
    assert.match(text, /e2e_p95_ms@all +↑ worse .* 1500 ~ +500 +900 ! +900 !/);
    const json = kneeJson(r, limit, "slo.json");
    assert.deepEqual(json.transients, r.transients);
    assert.match(String((json.disclosure as Record<string, unknown>).persistence_rule), /counts for the knee only/);
  });
});

Deno.test("a departure that persists is the knee", async (t) => {
  await t.step("the next level departs too: late bursts at 24 and 28 req/s put the knee at 24", async () => {
    const r = await analyse({ slowFrom: "step-04", late: [BURST, { ...BURST, stage: "step-03" }] });
    assert.deepEqual(r.knee, { offered_rps: 24, source: "departure", signal: "acceptance_rate" });
    assert.equal(r.signals.acceptance_rate!.departures[0]!.persistence!.by, "next_level");
    // At 28 req/s acceptance (0.6) does not persist to 32 (every request within the SLO): a transient there.
    assert.deepEqual(r.transients.map((x) => [x.signal, x.planned_rps]), [
      ["acceptance_rate", 28],
      ["tokens_per_accepted", 28],
    ]);
  });
  await t.step("a second repeat departs on its own: the burst in both runs puts the knee at 24", async () => {
    const r = await analyse({ slowFrom: "step-04", late: [BURST] }, { slowFrom: "step-04", late: [BURST] });
    assert.deepEqual(r.knee, { offered_rps: 24, source: "departure", signal: "acceptance_rate" });
    assert.deepEqual(r.signals.acceptance_rate!.departures[0]!.persistence, {
      status: "confirmed",
      by: "repeats",
      why: "2 of 2 repeats of the level each depart on their own",
    });
  });
  await t.step("the burst in one repeat only: the repeats disagree, undecidable, the knee stays at 32", async () => {
    const r = await analyse({ slowFrom: "step-04", late: [BURST] }, { slowFrom: "step-04" });
    const d = r.signals.acceptance_rate!.departures[0]!;
    assert.deepEqual(d.spread, { values: [0.6, 1], min: 0.6, max: 1 });
    assert.equal(d.verdict, "undecidable");
    assert.equal(r.knee!.offered_rps, 32);
  });
  await t.step("a departure at the highest level counts, marked last_level", async () => {
    const r = await analyse({ slowFrom: "step-05" });
    assert.deepEqual(r.knee, { offered_rps: 36, source: "departure", signal: "e2e_p95_ms@all" });
    assert.equal(r.signals["e2e_p95_ms@all"]!.departures[3]!.persistence!.status, "last_level");
    assert.match(formatKnee(r, productionLimit(36)), /unconfirmed: the highest level with data for this signal/);
  });
});

Deno.test("goodputDips() leaves out dips that recover, never a collapse", async (t) => {
  await t.step("a dip below a lower level that a higher level makes up is left out", () => {
    assert.deepEqual(goodputDips([1, 2, 3, 4], [1, 0.5, 3, 4]).map((d) => d.index), [1]);
  });
  await t.step("two dips in a row, both below the level before them, are both left out", () => {
    assert.deepEqual(goodputDips([1, 2, 3, 4], [2, 1, 1.5, 4]).map((d) => d.index), [1, 2]);
  });
  await t.step("a collapse that lasts to the highest level is kept", () => {
    assert.deepEqual(goodputDips([2, 4, 8, 16], [2, 3.9, 7.2, 0]), []);
    assert.deepEqual(goodputDips([2, 4, 8, 16], [2, 3.9, 3, 2]), []); // never back at 3.9
  });
  await t.step("on a plateau a point a hair under an earlier one is left out; the bend is kept", () => {
    assert.deepEqual(goodputDips([1, 2, 3, 4, 5], [1, 2, 1.98, 2.01, 2]).map((d) => d.index), [2]);
  });
});
