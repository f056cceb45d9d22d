import assert from "node:assert/strict";
import { type AlphaMetric, krippendorffAlpha } from "../../../analysis/quality/krippendorff_alpha.ts";
import { mulberry32 } from "../../../lib/prng.ts";

type Value = number | string | null;
const _ = null;

/** Observer rows → unit rows (`units[u][r]`). */
const byUnit = (observers: Value[][]): Value[][] =>
  observers[0]!.map((_v, u) => observers.map((row) => row[u] ?? null));

/**
 * Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: 4 observers × 12 units,
 * missing values. Published: α nominal 0.743, ordinal 0.815, interval 0.849, ratio 0.797.
 */
const K2011 = byUnit([
  [1, 2, 3, 3, 2, 1, 4, 1, 2, _, _, _],
  [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, _, 3],
  [_, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, _],
  [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, _],
]);

/** Wikipedia, "Krippendorff's alpha", a computational example: 3 coders × 15 units. Published: nominal 0.691, interval 0.811. */
const WIKIPEDIA = byUnit([
  [_, _, _, _, _, 3, 4, 1, 2, 1, 1, 3, 3, _, 3],
  [1, _, 2, 1, 3, 3, 4, 3, _, _, _, _, _, _, _],
  [_, _, 2, 1, 3, 4, 4, _, 2, 1, 1, 3, 3, _, 4],
]);

/**
 * α by its pairwise definition, without a coincidence matrix: D_o averages δ² over the ordered pairs of values
 * two different raters gave one unit (each unit's pairs weighted 1/(m_u − 1)); D_e averages δ² over all ordered
 * pairs of distinct pairable values pooled across units. Ordinal δ² counts the pooled values between c and k.
 */
function pairwiseAlpha(units: Value[][], metric: AlphaMetric): number | null {
  const kept = units.map((row) => row.filter((v): v is number | string => v !== null)).filter((vs) => vs.length >= 2);
  const pooled = kept.flat();
  const n = pooled.length;
  const count = (g: number | string) => pooled.filter((v) => v === g).length;
  const delta = (c: number | string, k: number | string): number => {
    if (c === k) return 0;
    if (metric === "nominal") return 1;
    const x = c as number, y = k as number;
    if (metric === "interval") return (x - y) ** 2;
    if (metric === "ratio") return x + y === 0 ? 0 : ((x - y) / (x + y)) ** 2;
    const between = pooled.filter((v) => (v as number) >= Math.min(x, y) && (v as number) <= Math.max(x, y)).length;
    return (between - (count(c) + count(k)) / 2) ** 2;
  };
  let observed = 0;
  for (const vs of kept) {
    for (let i = 0; i < vs.length; i++) {
      for (let j = 0; j < vs.length; j++) if (i !== j) observed += delta(vs[i]!, vs[j]!) / (vs.length - 1);
    }
  }
  let expected = 0;
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (i !== j) expected += delta(pooled[i]!, pooled[j]!);
  if (n < 2 || expected === 0) return null;
  return 1 - (observed / n) / (expected / (n * (n - 1)));
}

/** Random reliability data: `raters` raters, values 1..`levels` near a unit's true value, 25 % missing. */
function randomUnits(units: number, raters: number, levels: number, seed: number): Value[][] {
  const rand = mulberry32(seed);
  return Array.from({ length: units }, () => {
    const truth = 1 + Math.floor(rand() * levels);
    return Array.from({ length: raters }, () => {
      if (rand() < 0.25) return null;
      const off = rand() < 0.6 ? 0 : rand() < 0.5 ? -1 : 1;
      return Math.min(levels, Math.max(1, truth + off));
    });
  });
}

Deno.test("krippendorffAlpha() reproduces Krippendorff (2011): nominal 0.743, ordinal 0.815, interval 0.849, ratio 0.797", () => {
  const published: [AlphaMetric, string][] = [
    ["nominal", "0.743"],
    ["ordinal", "0.815"],
    ["interval", "0.849"],
    ["ratio", "0.797"],
  ];
  for (const [metric, alpha] of published) {
    const r = krippendorffAlpha(K2011, { metric, resamples: 0 });
    assert.equal(r.alpha!.toFixed(3), alpha, metric);
    assert.equal(r.metric, metric);
  }
});

Deno.test("krippendorffAlpha()'s coincidence matrix is the paper's, and nominal α follows by hand", () => {
  const r = krippendorffAlpha(K2011, { metric: "nominal", resamples: 0 });
  // Unit 12 has one value and is dropped; units 1–11 hold 3+4+4+4+4+4+4+4+4+3+2 = 40 values.
  assert.deepEqual([r.units, r.units_pairable, r.values_pairable], [12, 11, 40]);
  assert.deepEqual(r.values, [1, 2, 3, 4, 5]);
  // The paper's matrix. E.g. o_11 = 7: unit 1 (1,1,1) has 6 ordered (1,1) pairs / (3 − 1) = 3, unit 8
  // (1,1,2,1) 6 / 3 = 2, unit 11 (1,1) 2 / 1 = 2. o_12 = 4/3: unit 8 has 3 ordered (1,2) pairs / 3 = 1,
  // unit 6 (1,2,3,4) 1 / 3.
  const third = 1 / 3;
  const paper = [
    [7, 4 * third, third, third, 0],
    [4 * third, 10, 4 * third, third, 0],
    [third, 4 * third, 8, third, 0],
    [third, third, third, 4, 0],
    [0, 0, 0, 0, 3],
  ];
  r.coincidences.forEach((row, c) =>
    row.forEach((o, k) => assert.ok(Math.abs(o - paper[c]![k]!) < 1e-12, `o_${c}${k}`))
  );
  // Margins n_c = 9, 13, 10, 5, 3 (n = 40); off-diagonal sum = 40 − (7 + 10 + 8 + 4 + 3) = 8;
  // α = 1 − (n − 1)·8 / (n² − Σ n_c²) = 1 − 39·8 / (1600 − 384) = 1 − 312/1216 = 0.743421.
  assert.ok(Math.abs(r.alpha! - (1 - 312 / 1216)) < 1e-12);
  // D_o = 8/40 = 0.2; D_e = 1216 / (40·39) = 0.779487
  assert.ok(Math.abs(r.observed_disagreement! - 0.2) < 1e-12);
  assert.ok(Math.abs(r.expected_disagreement! - 1216 / 1560) < 1e-12);
});

Deno.test("krippendorffAlpha() reproduces Wikipedia's computational example: nominal 0.691, interval 0.811", () => {
  assert.equal(krippendorffAlpha(WIKIPEDIA, { metric: "nominal", resamples: 0 }).alpha!.toFixed(3), "0.691");
  assert.equal(krippendorffAlpha(WIKIPEDIA, { metric: "interval", resamples: 0 }).alpha!.toFixed(3), "0.811");
});

Deno.test("krippendorffAlpha() agrees with α by the pairwise definition, every metric", () => {
  for (const metric of ["nominal", "ordinal", "interval", "ratio"] as const) {
    for (const seed of [1, 2, 3]) {
      const units = randomUnits(25, 4, 5, seed);
      const r = krippendorffAlpha(units, { metric, resamples: 0 });
      assert.ok(Math.abs(r.alpha! - pairwiseAlpha(units, metric)!) < 1e-12, `${metric}, seed ${seed}`);
    }
    for (const data of [K2011, WIKIPEDIA]) {
      const r = krippendorffAlpha(data, { metric, resamples: 0 });
      assert.ok(Math.abs(r.alpha! - pairwiseAlpha(data, metric)!) < 1e-12, metric);
    }
  }
});

Deno.test("krippendorffAlpha()'s interval resamples pairable units: an independent redraw gives the same ends", () => {
  const units = randomUnits(30, 3, 4, 7);
  const r = krippendorffAlpha(units, { metric: "ordinal", resamples: 400, seed: 3 });
  assert.equal(r.ci.resampled, "units");
  const pairable = units.filter((row) => row.filter((v) => v !== null).length >= 2);
  const rand = mulberry32(3);
  const alphas: number[] = [];
  for (let b = 0; b < 400; b++) {
    const draw = Array.from({ length: pairable.length }, () => pairable[Math.floor(rand() * pairable.length)]!);
    alphas.push(pairwiseAlpha(draw, "ordinal")!);
  }
  alphas.sort((x, y) => x - y);
  // ⌈0.025 · 400⌉ = 10th, ⌈0.975 · 400⌉ = 390th smallest
  assert.ok(Math.abs(r.ci.low! - alphas[9]!) < 1e-9);
  assert.ok(Math.abs(r.ci.high! - alphas[389]!) < 1e-9);
  assert.ok(r.ci.low! < r.alpha! && r.alpha! < r.ci.high!);
});

Deno.test("krippendorffAlpha() edge cases", async (t) => {
  await t.step("perfect agreement: α = 1 for every metric", () => {
    const units = [[1, 1, 1], [2, 2, null], [3, 3, 3], [4, null, 4]];
    for (const metric of ["nominal", "ordinal", "interval", "ratio"] as const) {
      assert.equal(krippendorffAlpha(units, { metric, resamples: 0 }).alpha, 1, metric);
    }
  });
  await t.step("ratio with zeros: δ²(0, 0) = 0, so agreement on 0 is agreement", () => {
    assert.equal(krippendorffAlpha([[0, 0], [1, 1], [2, 2]], { metric: "ratio", resamples: 0 }).alpha, 1);
  });
  await t.step("one value only: D_e = 0, α undefined with its reason", () => {
    const r = krippendorffAlpha([["ok", "ok"], ["ok", "ok", null]], { metric: "nominal" });
    assert.equal(r.alpha, null);
    assert.match(r.undefined_reason!, /every pairable value is "ok"/);
    assert.equal(r.ci.resamples_undefined, 2000);
  });
  await t.step("all missing, or one value per unit: nothing pairable", () => {
    for (const units of [[[null, null], [null, null]], [[1, null], [null, 2]], []]) {
      const r = krippendorffAlpha(units, { metric: "interval" });
      assert.deepEqual([r.alpha, r.units_pairable, r.values_pairable], [null, 0, 0]);
      assert.equal(r.undefined_reason, "no unit has two or more values");
      assert.deepEqual([r.ci.low, r.ci.high], [null, null]);
    }
  });
  await t.step("text labels are nominal values: the same α as their numeric codes", () => {
    const names = ["", "low", "mid", "high", "top", "max"];
    const text = K2011.map((row) => row.map((v) => (v === null ? null : names[v as number]!)));
    const a = krippendorffAlpha(text, { metric: "nominal", resamples: 0 });
    // the same sums in another order (values sorted as text): equal to rounding
    assert.ok(Math.abs(a.alpha! - krippendorffAlpha(K2011, { metric: "nominal", resamples: 0 }).alpha!) < 1e-12);
  });
});

Deno.test("krippendorffAlpha() refuses text for ordinal, interval and ratio, and negatives for ratio", () => {
  for (const metric of ["ordinal", "interval", "ratio"] as const) {
    assert.throws(
      () => krippendorffAlpha([[1, "2"], [2, 2]], { metric }),
      (e: Error) => e instanceof RangeError && e.message.includes(`units[0][1] = "2" is not a number`),
    );
  }
  assert.throws(() => krippendorffAlpha([[1, -2]], { metric: "ratio" }), /units\[0\]\[1\] = -2 is negative/);
  assert.throws(() => krippendorffAlpha([[1, 2]], { metric: "cardinal" } as never), RangeError);
  assert.throws(() => krippendorffAlpha([[1, Number.NaN]], { metric: "interval" }), /units\[0\]\[1\]/);
});
