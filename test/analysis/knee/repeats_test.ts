import assert from "node:assert/strict";
import { knee } from "../../../analysis/knee/knee.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { checkRepeatRuns, spreadOf, straddles } from "../../../analysis/knee/repeats.ts";
import { InputError } from "../../../schema/errors.ts";
import { makeManifest } from "../_fixture.ts";
import { SWEEP_POLICY, SWEEP_STAGES, writeSweepRun } from "./knee_fixture.ts";

const quiet = { onWarning: () => {} };
const tmp = () => Deno.makeTempDirSync();

/** Run a rejects every 10th request of step-03 (acceptance 0.9), run b every 5th (0.8). */
async function twoRuns() {
  const a = await loadRun(writeSweepRun(`${tmp()}/a`, { runId: "a", step3RejectEvery: 10 }), quiet);
  const b = await loadRun(writeSweepRun(`${tmp()}/b`, { runId: "b", step3RejectEvery: 5 }), quiet);
  return [a, b];
}

Deno.test("repeats of one plan are grouped level by level and kept apart", async (t) => {
  const runs = await twoRuns();
  const r = knee(runs, SWEEP_POLICY, { acceptanceFloor: 0.85 });
  const l8 = r.levels.find((l) => l.planned_rps === 8)!;

  await t.step("each level holds both repeats; the tested value pools their requests", () => {
    assert.deepEqual(r.levels.map((l) => l.repeats.length), [2, 2, 2, 2]);
    assert.deepEqual(l8.repeats.map((p) => p.signals.acceptance_rate!.value), [0.9, 0.8]); // 144/160, 128/160
    assert.equal(l8.pooled.offered, 320);
    assert.equal(l8.pooled.accepted, 272); // 144 + 128, not an average of the two rates
    assert.equal(l8.pooled.seconds, 40);
  });
  await t.step("the departure shows the spread of the repeats", () => {
    const d = r.signals.acceptance_rate!.departures[1]!;
    assert.deepEqual(d.spread, { values: [0.9, 0.8], min: 0.8, max: 0.9 });
    assert.equal(d.verdict, "degraded"); // both repeats are below 0.98
  });
  await t.step("a floor inside the spread is undecidable, not met or missed", () => {
    const f = r.acceptance_floor!.levels.find((l) => l.planned_rps === 8)!;
    assert.equal(f.meets, null);
    assert.match(f.why, /undecidable: repeats 0.8–0.9 straddle 0.85/);
    assert.equal(r.acceptance_floor!.levels[0]!.meets, true);
  });
  await t.step("a departure threshold inside the spread is undecidable", () => {
    const wide = knee(runs, SWEEP_POLICY, { tolerances: { acceptance_rate: { rel: 0, abs: 0.15 } } });
    const d = wide.signals.acceptance_rate!.departures[1]!;
    assert.equal(d.threshold, 0.85);
    assert.equal(d.verdict, "undecidable");
    assert.match(d.why, /both sides of the threshold 0.85/);
  });
  await t.step("each run's own Kneedle knee is reported", () => {
    assert.deepEqual(r.kneedle_by_run.map((k) => [k.run_id, k.knee]), [["a", 8], ["b", 8]]);
  });
});

Deno.test("checkRepeatRuns() accepts only repeats of one plan", async (t) => {
  const [a, b] = await twoRuns();
  await t.step("same schedule", () => assert.match(checkRepeatRuns([a!, b!]).basis, /same schedule/));
  await t.step("the same run twice is refused", () => {
    assert.throws(() => checkRepeatRuns([a!, a!]), (e) => e instanceof InputError && /given twice/.test(e.message));
  });
  await t.step("another plan is refused, naming the folder", async () => {
    const base = makeManifest(SWEEP_STAGES).plan;
    const other = await loadRun(
      writeSweepRun(`${tmp()}/c`, {
        runId: "c",
        manifest: {
          plan: { ...base, schedule_sha256: "1".repeat(64), spec: { ...base.spec, name: "another-plan" } },
        },
      }),
      quiet,
    );
    assert.throws(
      () => checkRepeatRuns([a!, other]),
      (e) => e instanceof InputError && e.message.includes(other.dir) && /not repeats of one plan/.test(e.message),
    );
  });
  await t.step("another seed of the same plan is a repeat; other conditions are a warning", async () => {
    const base = makeManifest(SWEEP_STAGES);
    const seeded = await loadRun(
      writeSweepRun(`${tmp()}/d`, {
        runId: "d",
        manifest: {
          plan: { ...base.plan, seed: 9, schedule_sha256: "2".repeat(64), spec: { ...base.plan.spec, seed: 9 } },
          conditions: { ...base.conditions, region: "elsewhere" },
        },
      }),
      quiet,
    );
    const c = checkRepeatRuns([a!, seeded]);
    assert.match(c.basis, /same plan spec apart from the seed \(seeds 1, 9\)/);
    assert.equal(c.warnings.length, 1);
    assert.match(c.warnings[0]!, /conditions differ/);
  });
});

Deno.test("straddles() needs values on both sides", () => {
  assert.equal(straddles(spreadOf([0.9]), 0.9), false); // one value decides
  assert.equal(straddles(spreadOf([0.9, 0.9]), 0.9), false);
  assert.equal(straddles(spreadOf([0.8, 0.9]), 0.9), true); // one on the threshold, one below
  assert.equal(straddles(spreadOf([null, null]), 0.5), false);
});
