import assert from "node:assert/strict";
import { join } from "node:path";
import { goodput } from "../../../analysis/goodput/goodput.ts";
import { classify } from "../../../analysis/goodput/classify.ts";
import { runWindow } from "../../../analysis/goodput/policy.ts";
import { qualityGoodput } from "../../../analysis/quality/quality_goodput.ts";
import { loadRunQuality } from "../../../analysis/quality/verdicts.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { InputError } from "../../../schema/errors.ts";
import { parseSloPolicy } from "../../../analysis/goodput/policy.ts";
import { answered, writeRun } from "../_fixture.ts";
import { fixtureManifest, fixtureTables, POLICY as HAND_POLICY } from "../hand_fixture.ts";
import { HUMAN, POLICY, policyWith, writeQualityRun } from "./_quality_fixture.ts";

/** Φ⁻¹(0.975) to 16 digits (tables); the library's quantile approximates it to ~1e-10, so bounds agree to 1e-7. */
const Z95 = 1.959963984540054;
const close = (a: number | null | undefined, b: number, what: string) =>
  assert.ok(a !== null && a !== undefined && Math.abs(a - b) < 1e-7, `${what}: ${a} vs ${b}`);

const run = await loadRun(await writeQualityRun());
const quality = (await loadRunQuality(run))!;
const summ = (g: ReturnType<typeof qualityGoodput>) => g.by_class.find((r) => r.class === "summ")!;

Deno.test("inline (the default) gives goodput()'s result for every policy, with or without a quality table", async (t) => {
  await t.step("the fixture run: summ 20 of 21 (s21 late), qa 3 of 4", () => {
    const g = qualityGoodput(run, POLICY, quality);
    const { quality: q, ...tables } = g;
    assert.deepEqual(tables, goodput(run, POLICY));
    assert.deepEqual([summ(g).accepted, g.overall.accepted, g.overall.offered], [20, 23, 25]);
    assert.deepEqual(q.classes, []);
    assert.equal(g.overall.estimate, undefined);
  });
  await t.step("the hand fixture and every policy of data/slo/ parse with no quality source", async () => {
    const hand = await loadRun(writeRun(join(Deno.makeTempDirSync(), "run"), fixtureManifest(), fixtureTables()));
    const { quality: _q, ...tables } = qualityGoodput(hand, HAND_POLICY, null);
    assert.deepEqual(tables, goodput(hand, HAND_POLICY));
    for (const e of Deno.readDirSync("data/slo")) {
      const p = parseSloPolicy(JSON.parse(Deno.readTextFileSync(join("data/slo", e.name))), e.name);
      assert.ok(Object.values(p.classes).every((c) => c.quality_source === undefined), e.name);
      assert.equal(p.quality, undefined);
    }
  });
  await t.step("goodput() and classify() refuse a measured source instead of counting inline silently", () => {
    const p = policyWith("judge", "m");
    assert.throws(
      () => goodput(run, p),
      (e) => e instanceof InputError && /classes\.summ\.quality_source is judge/.test(e.message),
    );
    assert.throws(() => classify(run, p, runWindow(run, p.window)), InputError);
  });
  await t.step("the schema: a measured source needs quality_ok, a judge model needs a judge source", () => {
    assert.throws(
      () => parseSloPolicy({ default: { gates: ["output_valid"], quality_source: "human" } }, "p"),
      /default\.quality_source: quality_source human needs quality_ok/,
    );
    assert.throws(() => parseSloPolicy({ default: { judge: "m" } }, "p"), /default\.judge: judge names a judge model/);
  });
});

Deno.test("quality_source judge: the judge's verdict decides, a request without one is not accepted", async (t) => {
  await t.step("judge m: 13 of summ's 20 in the population pass (7 in low, 6 in peak)", () => {
    const g = qualityGoodput(run, policyWith("judge", "m"), quality);
    const s = summ(g);
    // Accepted s01 s02 s03 s06 s07 s09 s10 | s11 s13 s14 s15 s18 s20; s21 late; 7 fail quality.
    assert.deepEqual([s.accepted, s.offered, s.failures.gate_quality_ok, s.failures.late_e2e], [13, 21, 7, 1]);
    assert.equal(s.acceptance_rate, 13 / 21);
    assert.equal(s.estimate, undefined);
    assert.deepEqual(g.by_class_stage.filter((r) => r.class === "summ").map((r) => [r.stage, r.accepted]), [
      ["low", 7],
      ["peak", 6],
    ]);
    // Overall: qa's 3 inline + 13 = 16 over 20 s.
    assert.deepEqual([g.overall.accepted, g.overall.accepted_goodput], [16, 16 / 20]);
    const d = g.quality.classes[0]!;
    assert.deepEqual([d.class, d.source, d.judge, d.method, d.population, d.quality_unknown], [
      "summ",
      "judge",
      "m",
      "verdict_count",
      20,
      0,
    ]);
    // Calibration pooled (7 passes and 4 fails < 10 each): Se 6/7, Sp 3/4, κ 34/56 ≥ 0.6: used.
    assert.equal(d.calibration!.scope, "pooled");
    close(d.calibration!.kappa.value, 34 / 56, "kappa");
    assert.match(g.disclosure.slo_rules.summ!, /quality_ok from judge m$/);
    assert.ok(g.disclosure.files.read.includes("quality/judge-m.csv"));
  });
  await t.step("judge quick has no verdict on s20: 12 accepted, 1 quality unknown, counted", () => {
    const g = qualityGoodput(run, policyWith("judge", "quick"), quality);
    assert.deepEqual([summ(g).accepted, summ(g).failures.gate_quality_ok], [12, 8]);
    const d = g.quality.classes[0]!;
    assert.equal(d.quality_unknown, 1);
    assert.match(
      d.caveats[0]!,
      /^1 of 20 requests passing every other gate have no verdict of judge quick: not accepted/,
    );
  });
  await t.step("several judges and none named: refused naming them", () => {
    assert.throws(
      () => qualityGoodput(run, policyWith("judge"), quality),
      (e) =>
        e instanceof InputError &&
        /class summ: quality source judge refused: the table holds several judges \(lenient, m, quick\)/.test(
          e.message,
        ),
    );
  });
  await t.step("no quality table: refused", async () => {
    const bare = await loadRun(await writeQualityRun(undefined, { judges: [], humans: false }));
    assert.equal(await loadRunQuality(bare), null);
    assert.throws(() => qualityGoodput(bare, policyWith("judge", "m"), null), /no quality table/);
  });
});

Deno.test("the kappa minimum: judge m's 34/56 = 0.6071 passes at 0.6 and is refused at 0.61; lenient's 14/47 always", async (t) => {
  await t.step("min 0.607 (below 0.60714): used", () => {
    const g = qualityGoodput(
      run,
      policyWith("calibrated-judge", "m", { min_judge_kappa: 0.607, level: 0.95, min_calibration_per_side: 10 }),
      quality,
    );
    assert.equal(g.quality.classes[0]!.source, "calibrated-judge");
  });
  await t.step("min 0.61: refused naming class, judge, kappa, its interval and the minimum", () => {
    for (const source of ["judge", "calibrated-judge"] as const) {
      assert.throws(
        () =>
          qualityGoodput(
            run,
            policyWith(source, "m", { min_judge_kappa: 0.61, level: 0.95, min_calibration_per_side: 10 }),
            quality,
          ),
        (e) =>
          e instanceof InputError &&
          new RegExp(
            `class summ: quality source ${source} refused: judge m's Cohen's kappa against the reviewers' ` +
              "consensus pooled over every class is 0\\.607 \\(95 % interval \\[-?\\d\\.\\d{3}, \\d\\.\\d{3}\\]; n = 11\\), " +
              "below the policy's min_judge_kappa 0\\.61",
          ).test(e.message),
      );
    }
  });
  await t.step("judge lenient (κ 0.298) is refused at the default 0.6", () => {
    assert.throws(
      () => qualityGoodput(run, policyWith("judge", "lenient"), quality),
      /kappa .* is 0\.298 .*below the policy's min_judge_kappa 0\.6/,
    );
  });
});

Deno.test("quality_source human: a stratified estimate over route × stage with its interval", async (t) => {
  const g = qualityGoodput(run, policyWith("human"), quality);
  // Strata: a × low: N 10, reviewed 5 (s01–s05), 4 pass → p 0.8; a × peak: N 10, reviewed 5 settled
  // (s11 adjudicated T, s12 F, s13 F, s14 T, s16 F; s15 disagreed, left out), 2 pass → p 0.4.
  // p̂ = 0.5·0.8 + 0.5·0.4 = 0.6 → accepted 20 × 0.6 = 12.
  // v = 0.25·(1 − 5/10)·0.8·0.2/4 + 0.25·(1 − 5/10)·0.4·0.6/4 = 0.005 + 0.0075 = 0.0125; SE(p̂) = 0.1118034.
  const se = Math.sqrt(0.0125);
  await t.step("the class: ≈12 [20·(0.6 − z·SE), 20·(0.6 + z·SE)] = [7.617, 16.383]", () => {
    const s = summ(g);
    close(s.accepted, 12, "accepted");
    close(s.estimate!.accepted_low, 20 * (0.6 - Z95 * se), "low");
    close(s.estimate!.accepted_high, 20 * (0.6 + Z95 * se), "high");
    close(s.estimate!.standard_error, 20 * se, "se");
    close(s.acceptance_rate, 12 / 21, "acceptance");
    close(s.failures.gate_quality_ok, 8, "quality failures (20 − 12)");
    const d = g.quality.classes[0]!;
    assert.deepEqual(d.strata, [
      { name: "a × low", population: 10, sampled: 5, passed: 4 },
      { name: "a × peak", population: 10, sampled: 5, passed: 2 },
    ]);
    assert.deepEqual([d.reviewed, d.unresolved, d.raters, d.adjudicators, d.method], [
      10,
      1,
      ["ann", "bob"],
      ["lee"],
      "stratified_normal_fpc",
    ]);
  });
  await t.step("stages: low ≈8 clipped at its 10 requests; peak ≈4 [0.605, 7.395]", () => {
    const low = g.by_stage.find((r) => r.stage === "low")!;
    // low: qa's 3 + 10·0.8 = 11; var(p_low) = 0.5·0.16/4 = 0.02 → sd 10·√0.02 = √2; 8 ± 2.772 → [5.228, 10.77 → 10].
    close(low.accepted, 11, "low accepted");
    close(low.estimate!.accepted_low, 3 + 8 - Z95 * Math.SQRT2, "low low");
    close(low.estimate!.accepted_high, 3 + 10, "low high (clipped at 10 members)");
    const peak = g.by_stage.find((r) => r.stage === "peak")!;
    // peak: 10·0.4 = 4; var(p_peak) = 0.5·0.24/4 = 0.03 → sd 10·√0.03 = √3.
    close(peak.accepted, 4, "peak");
    close(peak.estimate!.accepted_low, 4 - Z95 * Math.sqrt(3), "peak low");
    close(peak.estimate!.accepted_high, 4 + Z95 * Math.sqrt(3), "peak high");
  });
  await t.step("the total carries the interval: qa's 3 + summ's ≈12", () => {
    close(g.overall.accepted, 15, "overall");
    close(g.overall.estimate!.accepted_low, 3 + 20 * (0.6 - Z95 * se), "overall low");
    close(g.overall.accepted_goodput, 15 / 20, "goodput");
    close(g.overall.estimate!.accepted_goodput_high, (3 + 20 * (0.6 + Z95 * se)) / 20, "goodput high");
    assert.deepEqual(g.overall.estimate!.classes, ["summ: stratified"]);
    assert.equal(g.by_class.find((r) => r.class === "qa")!.estimate, undefined);
  });
  await t.step("an independent computation by plain loops over the fixture's verdicts", () => {
    const truth = new Map<string, boolean | null>();
    for (const [item, vs] of Object.entries(HUMAN)) {
      truth.set(
        item,
        vs.every(([, p]) => p === vs[0]![1]) ? vs[0]![1] : null,
      );
    }
    truth.set("s11", true);
    let est = 0, variance = 0;
    for (const [from, to] of [[1, 10], [11, 20]]) {
      let N = 0, n = 0, pass = 0;
      for (let i = from!; i <= to!; i++) {
        N++;
        const t = truth.get(`s${String(i).padStart(2, "0")}`);
        if (t === undefined || t === null) continue;
        n++;
        if (t) pass++;
      }
      const p = pass / n;
      est += N * p;
      variance += N * N * (1 - n / N) * p * (1 - p) / (n - 1);
    }
    close(summ(g).accepted, est, "estimate");
    close(summ(g).estimate!.accepted_high, est + Z95 * Math.sqrt(variance), "high");
  });
  await t.step("a stratum with population and no reviewed item is refused, naming it", async () => {
    const extra = answered({ request_id: "s22", class: "summ", stage: "peak", route: "b", scheduled_ms: 15_000 }, 500);
    const dir = await writeQualityRun(undefined, { extra: [extra.request] });
    const r = await loadRun(dir);
    const q = (await loadRunQuality(r))!;
    assert.throws(
      () => qualityGoodput(r, policyWith("human"), q),
      (e) =>
        e instanceof InputError &&
        /class summ, stratum b × peak: 1 requests pass every other gate, none reviewed/.test(e.message),
    );
  });
});

Deno.test("quality_source calibrated-judge: judge m's pass share corrected by Rogan–Gladen", async (t) => {
  // p = 13/20 = 0.65; Se = 6/7, Sp = 3/4; J = Se + Sp − 1 = 17/28; θ = (0.65 + 0.75 − 1)/J = 0.4·28/17 = 11.2/17.
  const p = 13 / 20, se = 6 / 7, sp = 3 / 4, J = 17 / 28, theta = 0.4 / J;
  // Var(θ) = [p(1−p)/20 + θ²·Se(1−Se)/7 + (1−θ)²·Sp(1−Sp)/4]/J² (delta method).
  const sd = Math.sqrt(
    (p * (1 - p) / 20 + theta ** 2 * se * (1 - se) / 7 + (1 - theta) ** 2 * sp * (1 - sp) / 4) / J ** 2,
  );
  await t.step("pooled calibration (7 passes, 4 fails < 10): ≈13.18 [20·(θ − z·sd), 20 clipped]", () => {
    const g = qualityGoodput(run, policyWith("calibrated-judge", "m"), quality);
    const s = summ(g);
    close(s.accepted, 20 * theta, "accepted = 224/17");
    close(s.estimate!.accepted_low, 20 * (theta - Z95 * sd), "low");
    close(s.estimate!.accepted_high, 20, "high: θ + z·sd > 1, clipped at the 20 judged");
    const d = g.quality.classes[0]!;
    assert.equal(d.calibration!.scope, "pooled");
    close(d.correction!.apparent, 0.65, "apparent");
    close(d.correction!.corrected, theta, "θ");
    assert.match(
      d.caveats.join("\n"),
      /the class has 7 reviewed passes and 4 fails with a verdict of judge m: its error is measured pooled/,
    );
  });
  await t.step("with min_calibration_per_side 4 the class's own items are used (the same 11 here)", () => {
    const g = qualityGoodput(
      run,
      policyWith("calibrated-judge", "m", { min_judge_kappa: 0.6, level: 0.95, min_calibration_per_side: 4 }),
      quality,
    );
    assert.equal(g.quality.classes[0]!.calibration!.scope, "class");
    close(summ(g).accepted, 20 * theta, "accepted");
  });
  await t.step("stage peak alone: 6 of 10 judged pass, corrected with the same Se and Sp", () => {
    const g = qualityGoodput(run, policyWith("calibrated-judge", "m"), quality);
    const pk = (0.6 + sp - 1) / J; // (0.6 − 0.25)·28/17 = 9.8/17
    const v = (0.6 * 0.4 / 10 + pk ** 2 * se * (1 - se) / 7 + (1 - pk) ** 2 * sp * (1 - sp) / 4) / J ** 2;
    const peak = g.by_stage.find((r) => r.stage === "peak")!;
    close(peak.accepted, 10 * pk, "peak");
    close(peak.estimate!.accepted_low, Math.max(0, 10 * (pk - Z95 * Math.sqrt(v))), "peak low");
  });
  await t.step("judge quick (no verdict on s20): 12 of 19 judged, the unknown one not accepted", () => {
    const g = qualityGoodput(run, policyWith("calibrated-judge", "quick"), quality);
    const th = (12 / 19 + sp - 1) / J;
    close(summ(g).accepted, 19 * th, "19 judged × θ");
    assert.equal(g.quality.classes[0]!.quality_unknown, 1);
  });
});
