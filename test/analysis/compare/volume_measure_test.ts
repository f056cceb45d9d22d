import assert from "node:assert/strict";
import pl from "nodejs-polars";
import { ledger } from "../../../analysis/cost/ledger.ts";
import { knee } from "../../../analysis/knee/knee.ts";
import { limitFromKnee } from "../../../analysis/knee/limit.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import type { LoadedRun } from "../../../analysis/run/loaded_run.ts";
import { costAtVolume } from "../../../analysis/compare/volume.ts";
import { parseVolumeFlags } from "../../../analysis/compare/volume_demand.ts";
import { volumeMeasurement } from "../../../analysis/compare/volume_measure.ts";
import type { PriceSheet } from "../../../schema/prices.ts";
import { SWEEP_OVERHEADS, SWEEP_POLICY, SWEEP_PRICES, writeSweepRun } from "../knee/knee_fixture.ts";

const quiet = { onWarning: () => {} };
const close = (a: number, b: number, tol = 1e-9) =>
  assert.ok(Math.abs(a - b) <= tol * Math.max(1, Math.abs(b)), `${a} ≠ ${b}`);

/** The hosted twin of SWEEP_PRICES: 1 per million input tokens, 2 per million output; 429s not charged. */
const HOSTED: PriceSheet = {
  ...SWEEP_PRICES,
  name: "sweep-hosted",
  routes: {
    "*": {
      kind: "hosted",
      provider: null,
      model: null,
      input_per_mtok: 1,
      cached_input_per_mtok: null,
      output_per_mtok: 2,
      reasoning_per_mtok: null,
      cache_write_per_mtok: null,
      per_request: 0,
      context_tiers: [],
      service_tier: "standard",
      batch_discount: null,
      tier_multipliers: {},
      tiers: {},
      charge: { rejected: false, failed: false, cancelled: true },
    },
  },
};

/** The run's measurement at a headroom (null: none given). */
function measure(run: LoadedRun, prices: PriceSheet, headroom: number | null = 0.25) {
  const k = knee([run], SWEEP_POLICY);
  const limit = limitFromKnee(k, headroom ?? undefined);
  const l = ledger(run, SWEEP_POLICY, prices, { overheads: SWEEP_OVERHEADS });
  return volumeMeasurement(run, { route: "sweep", knee: k, limit, ledger: l }, SWEEP_POLICY, prices);
}

/**
 * The knee fixture's sweep (docs in knee_fixture.ts): steps at 2, 4, 8, 16 req/s of 20 s each; the knee is step-03
 * (8 req/s, acceptance 144 / 160 = 0.9). In the window (the four steps) 600 offered, 40 + 78 + 144 + 0 = 262 accepted.
 * The timeline has 2 replicas in every step.
 */
Deno.test("volumeMeasurement() reads a self-hosted run's limit per replica and its per-request costs", async () => {
  const dir = writeSweepRun(Deno.makeTempDirSync(), {
    replicas: { "step-01": 2, "step-02": 2, "step-03": 2, "step-04": 2 },
  });
  const run = await loadRun(dir, quiet);
  const m = measure(run, SWEEP_PRICES);
  assert.equal(m.kind, "self_hosted");
  assert.equal(m.offered, 600);
  assert.equal(m.accepted, 262);
  assert.equal(m.knee_rps, 8);
  assert.equal(m.limit_rps, 6); // 8 × (1 − 0.25)
  close(m.knee_acceptance, 0.9);
  close(m.limit_accepted_rps, 5.4);
  assert.equal(m.highest_offered_rps, 16);
  const s = m.parts[0]!.self_hosted!;
  assert.equal(s.measured_replicas, 2);
  assert.match(s.replicas_from, /mean replicas over 20 rows of stage step-03/);
  // Per offered request: observability 0.001 × 600 sent / 600; review 0.001 × 262 accepted / 600. Per hour: 1.8.
  const per = Object.fromEntries(m.variable.map((v) => [v.item, v.per_offered]));
  close(per.observability!, 0.001);
  close(per.human_review!, 0.001 * 262 / 600);
  assert.equal(per.provider_or_gpu, undefined); // GPU time is re-sized at volume, not scaled
  assert.deepEqual(m.hourly.map((h) => h.per_hour), [1.8]);

  // 2 accepted/s peak, 1 M a month: ceil(2 / 2.7) = 1 replica + 1 spare (the sheet's) = 2 × 3.6 × 730 = 5256;
  // per request 1 M / (262/600) × 0.001 + 1 M × 0.001 = 2290.08 + 1000; operations 1.8 × 730 = 1314.
  const v = costAtVolume([m], parseVolumeFlags({ demand: "2", monthly: "1M" }));
  const r = v.routes[0]!;
  assert.equal(r.self_hosted[0]!.replicas, 2);
  close(r.monthly.gpu, 5256);
  close(r.monthly.total, 5256 + 1314 + 1e6 * 600 / 262 * 0.001 + 1000);
  assert.equal(r.extrapolated, false);
});

Deno.test("volumeMeasurement() asks for a headroom when a knee was found", async () => {
  const run = await loadRun(writeSweepRun(Deno.makeTempDirSync(), { replicas: { "step-03": 2 } }), quiet);
  assert.throws(() => measure(run, SWEEP_PRICES, null), /^InputError: --headroom: cost at a planned volume/);
});

Deno.test("volumeMeasurement() reads a hosted run's attempts, tokens and stated quota", async () => {
  const loaded = await loadRun(writeSweepRun(Deno.makeTempDirSync()), quiet);
  // The heads of the answered attempts state 600 requests and 100 000 tokens a minute.
  const stated = () => pl.when(pl.col("http_status").eq(200));
  const run: LoadedRun = {
    ...loaded,
    attempts: loaded.attempts.withColumns(
      stated().then(pl.lit(600)).otherwise(pl.lit(null)).cast(pl.Float64).alias("rl_limit_requests"),
      stated().then(pl.lit(100_000)).otherwise(pl.lit(null)).cast(pl.Float64).alias("rl_limit_tokens"),
    ),
  };
  const m = measure(run, HOSTED);
  assert.equal(m.kind, "hosted");
  const p = m.parts[0]!;
  // 920 attempts: 422 answered (1 each) and 498 refused with 429 (2 + 16 + 160 × 3); 30 tokens per answered attempt.
  assert.equal(p.attempts, 920);
  close(p.attempts_per_offered, 920 / 600);
  close(p.counted_attempts_per_offered, 422 / 600);
  close(p.tokens_per_offered, 422 * 30 / 600);
  assert.deepEqual(p.hosted, { stated_requests: 600, stated_tokens: 100_000, attempts_stating: 422, varied: false });

  const at = (demand: string, extrapolate = false) =>
    costAtVolume([m], parseVolumeFlags({ demand, monthly: "1M", extrapolate })).routes[0]!;
  const r = at("2");
  // offered peak 2 × 600 / 262 = 4.58 req/s; × 422/600 × 60 = 193.3 req/min; × 12 660/600 × 60 = 5798 tok/min
  const q = r.hosted[0]!;
  close(q.requests_per_min, 2 * 422 / 262 * 60);
  close(q.tokens_per_min, 2 * 12_660 / 262 * 60);
  assert.equal(q.covers_requests, true);
  assert.equal(q.covers_tokens, true);
  // Tokens of the 422 answered attempts: 4220 input at 1/M + 8440 output at 2/M = 0.00422 + 0.01688 = 0.0211.
  close(r.monthly.variable.find((x) => x.label === "provider_or_gpu default")!.per_offered, 0.0211 / 600);
  assert.equal(r.extrapolated, false);
  // 8 accepted/s is 18.3 req/s offered, above the 16 req/s measured: refused without --extrapolate.
  assert.throws(() => at("8"), /--demand 8\/s is above every route's measured capacity/);
  const e = at("8", true);
  assert.equal(e.extrapolated, true);
  assert.match(e.extrapolation[0]!, /above the highest offered rate measured, 16 req\/s \(level 16 req\/s\)/);
});
