import assert from "node:assert/strict";
import { join } from "node:path";
import { knee } from "../../../analysis/knee/knee.ts";
import { costSample, LevelCoster } from "../../../analysis/knee/level_cost.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { InputError } from "../../../schema/errors.ts";
import { SWEEP_OVERHEADS, SWEEP_POLICY, SWEEP_PRICES, SWEEP_REPLICAS, writeSweepRun } from "./knee_fixture.ts";

const quiet = { onWarning: () => {} };
const close = (a: number | null | undefined, b: number, what: string) =>
  assert.ok(a != null && Math.abs(a - b) < 1e-12, `${what}: ${a} ≠ ${b}`);

/*
 * The sweep fixture priced by hand. Each step lasts 20 s; the server timeline
 * has one row per second, so a step holds 20 rows of 1 s; every ok request
 * has one attempt on route "default", priced by the sheet's "*" entry.
 *
 * The run is paid from 0 to 95 s (the drain's end: run.json has no ended_ms). The levels are the four 20 s steps
 * (80 s); the warm-up (0–10 s) and the drain (90–95 s), 15 s, are outside every level and shared by the levels by
 * their seconds: each level carries 20 / 80 = a quarter of them.
 * - GPU time: replicas × 20 s × 1 GPU at 3.6 / GPU-hour = replicas × 0.02 (warm-up and drain have 0 replicas).
 * - Spare replica (redundancy 1) over the step's 20 s + 15 s / 4 = 23.75 s: 0.02375.
 * - Observability: 0.001 per sent request (rejected requests were sent).
 * - Review: 0.1 × 3 min × 0.2 / h = 0.001 per accepted task.
 * - Operations: 1.8 / h × 20 s = 0.01 (the overheads' shared operations: per window hour).
 *
 * level 2 req/s (step-01: 40 offered, 40 accepted, 1 replica):
 *   0.02 + 0.02375 + 40 × 0.001 + 40 × 0.001 + 0.01 = 0.13375 → 0.13375 / 40 = 0.00334375
 * level 4 req/s (step-02: 80 offered, 78 accepted, 2 replicas):
 *   0.04 + 0.02375 + 80 × 0.001 + 78 × 0.001 + 0.01 = 0.23175 → / 78 ≈ 0.0029712: within 20 % of 0.00334375 (ok)
 * level 8 req/s (step-03: 160 offered, 144 accepted, 16 replicas):
 *   0.32 + 0.02375 + 0.16 + 0.144 + 0.01 = 0.65775 → / 144 ≈ 0.0045677 > 0.00334375 × 1.2 = 0.0040125: degraded
 * level 16 req/s (step-04): nothing accepted → no value.
 */
const L2 = 0.13375 / 40, L4 = 0.23175 / 78, L8 = 0.65775 / 144;

async function pricedRuns(...ids: [string, number][]) {
  const root = Deno.makeTempDirSync();
  return await Promise.all(
    ids.map(([runId, every]) =>
      loadRun(writeSweepRun(join(root, runId), { runId, replicas: SWEEP_REPLICAS, step3RejectEvery: every }), quiet)
    ),
  );
}

Deno.test("cost_per_accepted is the ledger's cost of each level's stages / its accepted tasks", async (t) => {
  const [run] = await pricedRuns(["a", 10]);
  const report = knee([run!], SWEEP_POLICY, { prices: SWEEP_PRICES, overheads: SWEEP_OVERHEADS });
  const cost = report.signals.cost_per_accepted!;

  await t.step(
    "values by hand: GPU time and spare replicas over each level's seconds plus its share of warm-up and drain",
    () => {
      close(report.baseline.point.signals.cost_per_accepted!.value, L2, "2 req/s");
      close(cost.departures[0]!.value, L4, "4 req/s");
      close(cost.departures[1]!.value, L8, "8 req/s");
      assert.equal(cost.departures[2]!.value, null);
      assert.deepEqual({ ...report.baseline.point.signals.cost_per_accepted!, value: 0, note: "" }, {
        test: "none",
        value: 0,
        n: 40,
        note: "",
      });
    },
  );
  await t.step("higher is worse, 20 % tolerance, tolerance only with the reason in the evidence", () => {
    assert.equal(cost.worse, "higher");
    assert.deepEqual(report.tolerances.cost_per_accepted, { rel: 0.2, abs: 0 });
    assert.deepEqual(cost.departures.map((d) => d.verdict), ["ok", "degraded", "no data"]);
    close(cost.departures[1]!.threshold, L2 * 1.2, "threshold");
    assert.equal(cost.departures[1]!.guard.name, "none");
    assert.match(cost.departures[1]!.guard.detail, /fixed costs .* paid once per level/);
    assert.ok(report.first_degrading!.signals.includes("cost_per_accepted"));
  });
  await t.step("the unit cost is the ledger's, in the sheet's currency; tokens per accepted stay beside it", () => {
    assert.equal(report.unit_cost.signal, "cost_per_accepted");
    assert.equal(report.unit_cost.currency, "USD");
    assert.equal(report.unit_cost.price_sheet, "sweep-prices (as of 2026-01-01)");
    assert.equal(report.unit_cost.overheads, "sweep-overheads (as of 2026-01-01)");
    assert.ok(report.signals.tokens_per_accepted);
  });
  await t.step("a pooled baseline is one ledger over both stages: (0.13375 + 0.23175) / (40 + 78)", () => {
    const two = knee([run!], SWEEP_POLICY, {
      prices: SWEEP_PRICES,
      overheads: SWEEP_OVERHEADS,
      baselineLevels: 2,
    });
    // Both steps: 40 s, share 40 / 80 of the 15 s: spare 1 × (40 + 7.5) s = 0.0475 = 2 × 0.02375.
    close(two.baseline.point.signals.cost_per_accepted!.value, 0.3655 / 118, "pooled baseline");
  });
  await t.step("without overheads only the GPU lines count: (0.02 + 0.02375) / 40 at 2 req/s", () => {
    const bare = knee([run!], SWEEP_POLICY, { prices: SWEEP_PRICES });
    close(bare.baseline.point.signals.cost_per_accepted!.value, 0.04375 / 40, "GPU only");
    assert.match(bare.unit_cost.note, /overheads not priced/);
  });
});

Deno.test("cost_per_accepted pools repeats' ledgers: Σ cost / Σ accepted, each repeat kept", async () => {
  // Run b rejects every 5th request of step-03: 128 accepted, review 0.128 → 0.64175 instead of 0.65775.
  const runs = await pricedRuns(["a", 10], ["b", 5]);
  const report = knee(runs, SWEEP_POLICY, { prices: SWEEP_PRICES, overheads: SWEEP_OVERHEADS });
  close(report.baseline.point.signals.cost_per_accepted!.value, 0.2675 / 80, "2 req/s, two runs");
  const l8 = report.levels[2]!;
  close(l8.pooled.signals.cost_per_accepted!.value, (0.65775 + 0.64175) / (144 + 128), "8 req/s pooled");
  close(l8.repeats[1]!.signals.cost_per_accepted!.value, 0.64175 / 128, "8 req/s, run b alone");
});

Deno.test("without a price sheet the cost signal is absent and tokens stand for unit cost", async () => {
  const [run] = await pricedRuns(["a", 10]);
  const report = knee([run!], SWEEP_POLICY);
  assert.equal(report.signals.cost_per_accepted, undefined);
  assert.equal(report.levels[0]!.pooled.signals.cost_per_accepted, undefined);
  assert.equal(report.tolerances.cost_per_accepted, undefined);
  assert.equal(report.unit_cost.signal, "tokens_per_accepted");
  assert.match(report.unit_cost.note, /no price sheet given/);
  assert.throws(() => knee([run!], SWEEP_POLICY, { overheads: SWEEP_OVERHEADS }), RangeError);
});

Deno.test("costSample refuses a level whose counts the ledger does not reproduce", async () => {
  const [run] = await pricedRuns(["a", 10]);
  const coster = new LevelCoster(run!, SWEEP_POLICY, { prices: SWEEP_PRICES });
  const parts = [{ coster, dir: run!.dir, stages: ["step-02"] }];
  // Without overheads: GPU 2 replicas × 20 s + 1 spare over 23.75 s at 0.001 per GPU-second = 0.06375.
  close(costSample(parts, { offered: 80, accepted: 78 }).value, 0.06375 / 78, "step-02");
  assert.throws(
    () => costSample(parts, { offered: 80, accepted: 77 }),
    (e) => e instanceof InputError && /ledger counts 78 accepted of 80 offered/.test(e.message),
  );
});

Deno.test("the warm-up's and drain's GPU time is shared by the levels by their seconds and adds up to the run", async () => {
  // Replicas 4 in the warm-up (10 rows) and 2 in the drain (5 rows): 40 + 10 = 50 replica-s outside every level;
  // each 20 s level of the 80 s carries a quarter: 12.5 replica-s × 0.001 = 0.0125 on top of its own GPU and spare.
  const run = await loadRun(
    writeSweepRun(join(Deno.makeTempDirSync(), "r"), { replicas: { ...SWEEP_REPLICAS, warm: 4, drain: 2 } }),
    quiet,
  );
  const coster = new LevelCoster(run, SWEEP_POLICY, { prices: SWEEP_PRICES });
  // step-01: 1 replica × 20 s = 0.02, spare 0.02375, its share 0.0125 → 0.05625.
  close(coster.cost(["step-01"]).total, 0.05625, "step-01");
  const levels = ["step-01", "step-02", "step-03", "step-04"].map((s) => coster.cost([s]).total);
  // The four levels: GPU (1 + 2 + 16 + 16) × 20 × 0.001 = 0.7 + 50 × 0.001 = 0.05 outside; spares 1 × 95 s = 0.095.
  close(levels.reduce((a, b) => a + b, 0), 0.7 + 0.05 + 0.095, "levels add up to the run's paid time");
});
