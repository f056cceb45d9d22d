import assert from "node:assert/strict";
import { ledger } from "../../../analysis/cost/ledger.ts";
import { formatLedger } from "../../../analysis/cost/format_ledger.ts";
import { acceptedCost } from "../../../analysis/cost/accepted_cost.ts";
import { qualityLedger } from "../../../analysis/cost/quality_ledger.ts";
import { inlineQualityPolicy } from "../../../analysis/goodput/quality_source.ts";
import { qualityGoodput } from "../../../analysis/quality/quality_goodput.ts";
import { loadRunQuality } from "../../../analysis/quality/verdicts.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { withQuality } from "../../../analysis/run/run_quality.ts";
import { InputError } from "../../../schema/errors.ts";
import { JUDGE_M, POLICY, policyWith, writeQualityRun } from "../quality/_quality_fixture.ts";
import { QA_TOTAL, qualityOverheads, qualitySheet, SUMM_TOTAL, TOTAL } from "./quality_ledger_fixture.ts";

/*
 * The quality fixture run with judge m only (test/analysis/quality/_quality_fixture.ts) priced as in
 * quality_ledger_fixture.ts: total 0.2402 USD (summ 0.2202, qa 0.02), the same under every quality source.
 *
 * judge m (exact): summ 13 accepted (7 in low, 6 in peak), qa 3 inline: 16.
 *   cost per accepted task 0.2402 / 16 = 0.0150125; summ 0.2202 / 13 = 0.016938…; qa 0.02 / 3 = 0.006667.
 * human (stratified): summ ≈12 = 20 × 0.6, SE(p̂) = √0.0125 (quality_goodput_test.ts), interval
 *   20 × (0.6 ∓ 1.959964 × 0.1118034) = [7.61739, 16.38261]; overall 3 + that: ≈15 [10.61739, 19.38261].
 *   cost per accepted task 0.2402 / 15 = 0.0160133, interval [0.2402 / 19.38261, 0.2402 / 10.61739] =
 *   [0.0123926, 0.0226233]; summ 0.2202 / 12 = 0.01835 in [0.2202 / 16.38261, 0.2202 / 7.61739] =
 *   [0.0134411, 0.0289075].
 * calibrated-judge m: summ ≈ 20 × θ = 224 / 17 (Rogan–Gladen, quality_goodput_test.ts); cost 0.2202 / (224 / 17).
 */
const Z95 = 1.959963984540054;
const close = (a: number | null | undefined, b: number, what: string, tol = 1e-9) =>
  assert.ok(a !== null && a !== undefined && Math.abs(a - b) < tol, `${what}: ${a} vs ${b}`);

const run = await withQuality(await loadRun(await writeQualityRun(undefined, { judges: ["m"] })));
const sheet = qualitySheet(), overheads = qualityOverheads();
const TOTAL_OF = (r: ReturnType<typeof qualityLedger>) => r.lines.reduce((s, l) => s + l.amount, 0);
const cls = (r: ReturnType<typeof qualityLedger>, c: string) => r.quality.by_class.find((x) => x.class === c)!;

Deno.test("qualityLedger(): the numerator is the inline ledger's, line for line, under every source", () => {
  const inline = ledger(run, POLICY, sheet, { overheads });
  close(inline.overall.total, TOTAL, "total");
  close(inline.overall.cost.provider_or_gpu, 0.125, "model bill");
  close(inline.overall.cost.judge, 0.0252, "judge m");
  close(inline.overall.cost.human_review, 0.09, "recorded review");
  close(inline.by_class.find((c) => c.class === "summ")!.total, SUMM_TOTAL, "summ");
  close(inline.by_class.find((c) => c.class === "qa")!.total, QA_TOTAL, "qa");
  for (const source of ["judge", "human", "calibrated-judge"] as const) {
    const r = qualityLedger(run, policyWith(source, source === "human" ? undefined : "m"), sheet, { overheads });
    assert.deepEqual(r.lines, inline.lines, source);
    assert.deepEqual(r.pricing, inline.pricing, source);
    assert.equal(r.overall.total, inline.overall.total, source);
    assert.deepEqual(r.by_class.map((c) => c.cost), inline.by_class.map((c) => c.cost), source);
  }
});

Deno.test("qualityLedger() with every class inline is ledger() plus an exact quality section", () => {
  const { quality, ...rest } = qualityLedger(run, POLICY, sheet, { overheads });
  assert.deepEqual(rest, ledger(run, POLICY, sheet, { overheads }));
  assert.deepEqual(quality.by_class.map((c) => [c.class, c.source, c.method, c.accepted, c.level]), [
    ["qa", "inline", "inline", 3, null],
    ["summ", "inline", "inline", 20, null],
  ]);
  assert.deepEqual(quality.by_route.not_given, []);
});

Deno.test("quality_source judge: exact counts, cost per accepted task with no interval", () => {
  const r = qualityLedger(run, policyWith("judge", "m"), sheet, { overheads });
  assert.equal(r.overall.accepted, 16);
  close(r.overall.cost_per_accepted_task, 0.0150125, "0.2402 / 16");
  // Independent: judge m's passes among summ's population (s01–s20; s21 is late) by a plain count, plus qa's 3.
  const passes = JUDGE_M.slice(0, 20).filter((p) => p).length;
  assert.equal(passes, 13);
  close(r.quality.overall.cost_per_accepted_task, TOTAL_OF(r) / (passes + 3), "the lines summed / 16", 1e-15);
  close(cls(r, "summ").cost_per_accepted_task, SUMM_TOTAL / 13, "summ / 13");
  close(cls(r, "qa").cost_per_accepted_task, QA_TOTAL / 3, "qa / 3");
  assert.deepEqual([cls(r, "summ").source, cls(r, "summ").judge, cls(r, "summ").method], [
    "judge",
    "m",
    "verdict_count",
  ]);
  for (const c of [r.quality.overall, cls(r, "summ")]) {
    assert.deepEqual([c.accepted_low, c.level, c.cost_per_accepted_task_low, c.cost_per_accepted_task_high], [
      null,
      null,
      null,
      null,
    ]);
  }
  assert.equal(r.by_class.find((c) => c.class === "summ")!.accepted, 13);
  assert.match(r.disclosure.slo_rules.summ!, /quality_ok from judge m$/);
  // By route: route a carries summ (a measured class): its accepted count is not given, its costs are.
  const a = r.by_route.find((x) => x.route === "a")!;
  assert.deepEqual([a.accepted, a.cost_per_accepted_task], [null, null]);
  close(a.total, TOTAL, "route a total");
  assert.deepEqual(r.quality.by_route.not_given, ["a"]);
});

Deno.test("quality_source human: the cost per accepted task carries the estimate's interval", async (t) => {
  const r = qualityLedger(run, policyWith("human"), sheet, { overheads });
  const se = Math.sqrt(0.0125), low = 20 * (0.6 - Z95 * se), high = 20 * (0.6 + Z95 * se);
  await t.step("hand-computed: ≈15 [10.617, 19.383] accepted, 0.016013 [0.0123926, 0.0226233]", () => {
    const o = r.quality.overall;
    close(o.accepted, 15, "accepted", 1e-7);
    close(o.accepted_low, 3 + low, "accepted_low", 1e-7);
    close(o.cost_per_accepted_task, TOTAL / 15, "point", 1e-9);
    close(o.cost_per_accepted_task_low, TOTAL / (3 + high), "low = total / accepted_high", 1e-9);
    close(o.cost_per_accepted_task_high, TOTAL / (3 + low), "high = total / accepted_low", 1e-9);
    close(o.cost_per_accepted_task_low, 0.0123926, "low to 6 significant digits", 1e-7);
    close(o.cost_per_accepted_task_high, 0.0226233, "high to 6 significant digits", 1e-7);
    assert.equal(o.level, 0.95);
    const s = cls(r, "summ");
    close(s.cost_per_accepted_task, 0.01835, "summ 0.2202 / 12", 1e-9);
    close(s.cost_per_accepted_task_low, SUMM_TOTAL / high, "summ low", 1e-9);
    close(s.cost_per_accepted_task_high, SUMM_TOTAL / low, "summ high", 1e-9);
    assert.deepEqual([s.source, s.method], ["human", "stratified_normal_fpc"]);
    assert.equal(cls(r, "qa").level, null, "qa is inline: exact");
    close(r.overall.cost_per_accepted_task, TOTAL / 15, "overall row", 1e-9);
  });
  await t.step("independent: the total ÷ qualityGoodput's own estimate, with the table read apart", async () => {
    const g = qualityGoodput(run, policyWith("human"), await loadRunQuality(run));
    const total = ledger(run, inlineQualityPolicy(policyWith("human")), sheet, { overheads }).overall.total;
    const e = g.overall.estimate!;
    assert.equal(r.quality.overall.cost_per_accepted_task, total / g.overall.accepted);
    assert.equal(r.quality.overall.cost_per_accepted_task_low, total / e.accepted_high);
    assert.equal(r.quality.overall.cost_per_accepted_task_high, total / e.accepted_low);
    const gs = g.by_class.find((c) => c.class === "summ")!;
    assert.equal(cls(r, "summ").cost_per_accepted_task_high, SUMM_TOTAL / gs.estimate!.accepted_low);
    assert.deepEqual(r.quality.disclosure, g.quality);
  });
});

Deno.test("quality_source calibrated-judge: Rogan–Gladen's estimate in the denominator", async () => {
  const policy = policyWith("calibrated-judge", "m");
  const r = qualityLedger(run, policy, sheet, { overheads });
  const s = cls(r, "summ");
  close(s.accepted, 224 / 17, "summ ≈ 224/17", 1e-7);
  close(s.cost_per_accepted_task, SUMM_TOTAL * 17 / 224, "summ cost", 1e-9);
  assert.deepEqual([s.source, s.judge, s.method], ["calibrated-judge", "m", "rogan_gladen_delta"]);
  const g = qualityGoodput(run, policy, await loadRunQuality(run));
  const e = g.by_class.find((c) => c.class === "summ")!.estimate!;
  close(s.cost_per_accepted_task_low, SUMM_TOTAL / e.accepted_high, "low", 1e-12);
  close(s.cost_per_accepted_task_high, SUMM_TOTAL / e.accepted_low, "high", 1e-12);
  close(r.quality.overall.cost_per_accepted_task, TOTAL / g.overall.accepted, "overall", 1e-12);
});

Deno.test("a judge refused by min_judge_kappa refuses the ledger, naming class, judge and kappa", () => {
  // Judge m's pooled kappa is 34/56 = 0.607 (quality_goodput_test.ts): refused at 0.61.
  const policy = policyWith("calibrated-judge", "m", {
    min_judge_kappa: 0.61,
    level: 0.95,
    min_calibration_per_side: 10,
  });
  assert.throws(
    () => qualityLedger(run, policy, sheet, { overheads }),
    (e) =>
      e instanceof InputError &&
      /class summ: quality source calibrated-judge refused: judge m's Cohen's kappa/.test(e.message),
  );
  assert.throws(
    () => ledger(run, policyWith("judge", "m"), sheet),
    /analyze, audit and ledger apply a measured source/,
  );
  assert.throws(() => qualityLedger(run, policyWith("judge", "m"), sheet, { quality: null }), /no quality table/);
});

Deno.test("the text ledger: each class's source and method, the interval and what it rests on", () => {
  const text = formatLedger(qualityLedger(run, policyWith("human"), sheet, { overheads }));
  assert.match(text, /accepted tasks +≈15\.0 \[10\.6, 19\.4\] of 25 offered/);
  assert.match(
    text,
    /cost per accepted task +0\.01601 +\(95 % interval \[0\.01239, 0\.02262\], from the accepted count's interval only; prices taken as exact\)/,
  );
  assert.match(
    text,
    /^summ +human +stratified_normal_fpc +≈12\.0 \[7\.6, 16\.4\] +0\.2202 +0\.01835 +\[0\.01344, 0\.02891\]$/m,
  );
  assert.match(text, /^qa +inline +inline +3 +0\.02 +0\.006667 +exact$/m);
  assert.match(text, /^by route: no accepted count or cost per accepted task for a: the quality sources give/m);
  // An accepted_low of 0: the interval has no upper bound, printed as such.
  const r = qualityLedger(run, policyWith("human"), sheet, { overheads });
  const e = {
    accepted_low: 0,
    accepted_high: 4,
    standard_error: 1,
    level: 0.95,
    acceptance_rate_low: null,
    acceptance_rate_high: null,
    accepted_goodput_low: null,
    accepted_goodput_high: null,
    classes: [],
  };
  const open = formatLedger({ ...r, quality: { ...r.quality, overall: acceptedCost(TOTAL, 2, e) } });
  assert.match(open, /95 % interval \[0\.06005, no upper bound\]/);
});

Deno.test("no human verdict: the expected-count review samples the inline accepted tasks, and the rules say so", async () => {
  // Judge m only, no review: the overheads' expected model, basis accepted, counts 23 inline accepted tasks
  // (summ 20, qa 3): 0.5 × 23 × 6 min = 69 min = 1.15 h × 0.6 = 0.69 USD. Total 0.125 + 0.0252 + 0.69 = 0.8402;
  // under judge m 16 accepted: 0.8402 / 16 = 0.0525125.
  const bare = await withQuality(await loadRun(await writeQualityRun(undefined, { judges: ["m"], humans: false })));
  const r = qualityLedger(bare, policyWith("judge", "m"), sheet, { overheads });
  assert.equal(r.pricing.evaluation.human_review.basis, "expected");
  close(r.overall.cost.human_review, 0.69, "expected review on 23 inline accepted");
  close(r.overall.total, 0.8402, "total");
  assert.equal(r.overall.accepted, 16);
  close(r.overall.cost_per_accepted_task, 0.0525125, "0.8402 / 16");
  assert.ok(r.quality.rules.some((s) => /^human review's expected counts .* under inline quality/.test(s)));
});
