import assert from "node:assert/strict";
import { judgeCalibration } from "../../../analysis/quality/calibration.ts";
import { humanConsensus } from "../../../analysis/quality/consensus.ts";
import { raterAgreement } from "../../../analysis/quality/rater_agreement.ts";
import { loadRunQuality } from "../../../analysis/quality/verdicts.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { HUMAN, JUDGE_M, verdict, writeQualityRun } from "./_quality_fixture.ts";

const close = (a: number | null, b: number, what: string) =>
  assert.ok(a !== null && Math.abs(a - b) < 1e-9, `${what}: ${a} vs ${b}`);

Deno.test("humanConsensus() settles each reviewed item of the fixture", async (t) => {
  const run = await loadRun(await writeQualityRun());
  const quality = (await loadRunQuality(run))!;
  const c = humanConsensus(quality.rows);
  await t.step("agreed, one rater, adjudicated, disagreed; judge-only items have no entry", () => {
    assert.deepEqual(c.get("s01"), { pass: true, status: "agreed", raters: ["ann", "bob"], adjudicator: null });
    assert.deepEqual(c.get("s02"), { pass: true, status: "agreed", raters: ["ann"], adjudicator: null });
    assert.deepEqual(c.get("s11"), { pass: true, status: "adjudicated", raters: ["ann", "bob"], adjudicator: "lee" });
    assert.deepEqual(c.get("s15"), { pass: null, status: "disagreed", raters: ["ann", "bob"], adjudicator: null });
    assert.equal(c.has("s06"), false);
    // 12 items reviewed: 10 agreed, 1 adjudicated, 1 disagreed.
    assert.equal(c.size, Object.keys(HUMAN).length);
    const status = [...c.values()].map((x) => x.status);
    assert.deepEqual(["agreed", "adjudicated", "disagreed"].map((s) => status.filter((x) => x === s).length), [
      10,
      1,
      1,
    ]);
  });
  await t.step("two adjudications settle an item when they agree, and nothing when they differ", () => {
    const rows = [verdict("x", "human:ann", true), verdict("x", "human:bob", false)];
    const agree = humanConsensus([
      ...rows,
      verdict("x", "adjudicated:lee", false),
      verdict("x", "adjudicated:kim", false),
    ]);
    assert.deepEqual(agree.get("x"), {
      pass: false,
      status: "adjudicated",
      raters: ["ann", "bob"],
      adjudicator: "kim,lee",
    });
    const differ = humanConsensus([
      ...rows,
      verdict("x", "adjudicated:lee", false),
      verdict("x", "adjudicated:kim", true),
    ]);
    assert.equal(differ.get("x")!.status, "disagreed");
  });
  await t.step("the raters' agreement on summ: Cohen's kappa on the 5 items both rated", () => {
    // (ann, bob) on s01 (T,T), s05 (F,F), s11 (T,F), s15 (T,F), s16 (F,F): p_o = 3/5;
    // ann passes 3/5, bob 1/5: p_e = (3/5)(1/5) + (2/5)(4/5) = 11/25; κ = (15/25 − 11/25)/(14/25) = 4/14.
    const g = raterAgreement(quality.rows, quality.class_of, "summ", { resamples: 200 });
    assert.equal(g.method, "cohen_kappa");
    close(g.value, 4 / 14, "kappa");
    assert.deepEqual([g.items, g.disagreements, g.raters], [5, 2, ["ann", "bob"]]);
  });
});

Deno.test("judgeCalibration() of the fixture's judges against the human consensus", async (t) => {
  const run = await loadRun(await writeQualityRun());
  const quality = (await loadRunQuality(run))!;
  await t.step("judge m: tp 6, fn 1, tn 3, fp 1 on 11 items; s15 (disagreed) left out", () => {
    // Settled items: truth T on s01 s02 s03 s04 s11 s14 s21, F on s05 s12 s13 s16.
    // m: fails s04 (fn), passes s13 (fp): tp 6, fn 1, tn 3, fp 1.
    const c = judgeCalibration(quality, "m", { resamples: 300 });
    const p = c.pooled;
    assert.deepEqual([p.tp, p.fn, p.tn, p.fp, p.n], [6, 1, 3, 1, 11]);
    close(p.sensitivity.estimate, 6 / 7, "Se");
    close(p.specificity.estimate, 3 / 4, "Sp");
    // p_o = 9/11; judge passes 7/11, truth 7/11: p_e = (49 + 16)/121 = 65/121; κ = (99 − 65)/(121 − 65) = 34/56.
    close(p.kappa.kappa, 34 / 56, "kappa");
    assert.ok(p.kappa.ci.low! < 34 / 56 && 34 / 56 < p.kappa.ci.high!);
    assert.deepEqual(c.unresolved, { summ: 1 });
    assert.deepEqual(c.by_class.map((x) => x.class), ["summ"]);
    // Wilson 95 % of Se = 6/7 (independent: the score formula written out here).
    const z = 1.959963984540054, n = 7, ph = 6 / 7;
    const centre = (ph + z * z / (2 * n)) / (1 + z * z / n);
    const half = z * Math.sqrt(ph * (1 - ph) / n + z * z / (4 * n * n)) / (1 + z * z / n);
    close(p.sensitivity.low, centre - half, "Se low");
    close(p.sensitivity.high, centre + half, "Se high");
  });
  await t.step("judge lenient passes all but s05: kappa 14/47", () => {
    // tp 7, fn 0, tn 1, fp 3: p_o = 8/11; p_e = (7·10 + 4·1)/121 = 74/121; κ = (88 − 74)/(121 − 74) = 14/47.
    const p = judgeCalibration(quality, "lenient", { resamples: 0 }).pooled;
    assert.deepEqual([p.tp, p.fn, p.tn, p.fp], [7, 0, 1, 3]);
    close(p.kappa.kappa, 14 / 47, "kappa");
  });
  await t.step("an independent count of the confusion matrix by plain loops", () => {
    const truth = new Map<string, boolean>();
    for (const [item, vs] of Object.entries(HUMAN)) {
      if (vs.every(([, p]) => p === vs[0]![1])) truth.set(item, vs[0]![1]);
    }
    truth.set("s11", true); // adjudicated
    let tp = 0, fn = 0, tn = 0, fp = 0;
    JUDGE_M.forEach((judged, i) => {
      const t = truth.get(`s${String(i + 1).padStart(2, "0")}`);
      if (t === undefined) return;
      if (t && judged) tp++;
      else if (t) fn++;
      else if (judged) fp++;
      else tn++;
    });
    const p = judgeCalibration(quality, "m", { resamples: 0 }).pooled;
    assert.deepEqual([p.tp, p.fn, p.tn, p.fp], [tp, fn, tn, fp]);
  });
});
