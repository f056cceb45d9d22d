import assert from "node:assert/strict";
import { formatAgreement, reviewAgreement } from "../../../../analysis/quality/review/agreement.ts";
import type { ValidRating } from "../../../../analysis/quality/review/validate_ratings.ts";
import { mulberry32 } from "../../../../lib/prng.ts";

const RUBRIC = {
  rubric_id: "r",
  sha256: "a".repeat(64),
  criteria: [
    { id: "ok", description: "d", scale: { kind: "pass_fail" } },
    { id: "depth", description: "d", scale: { kind: "points", min: 1, max: 5, pass_at: 3 } },
  ],
} as const;

function rating(rater: string, item: string, ok: number, depth: number): ValidRating {
  return {
    rater,
    item,
    rubric: RUBRIC,
    scores: { ok, depth },
    pass: ok === 1 && depth >= 3,
  } as unknown as ValidRating;
}

/** Krippendorff's alpha by its pairwise definition: D_o over pairs within units, D_e over all pairs of values. */
function alphaByPairs(units: (number | null)[][], delta: (a: number, b: number) => number): number {
  const pairable = units.map((u) => u.filter((v): v is number => v !== null)).filter((u) => u.length >= 2);
  const all = pairable.flat();
  const n = all.length;
  let dO = 0;
  for (const u of pairable) {
    for (let i = 0; i < u.length; i++) {
      for (let j = 0; j < u.length; j++) if (i !== j) dO += delta(u[i]!, u[j]!) / (u.length - 1);
    }
  }
  let dE = 0;
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (i !== j) dE += delta(all[i]!, all[j]!);
  return 1 - (dO / n) / (dE / (n * (n - 1)));
}

/** The ordinal δ² from the pairable values' margins (Krippendorff 2011). */
function ordinalDelta(units: (number | null)[][]): (a: number, b: number) => number {
  const all = units.map((u) => u.filter((v): v is number => v !== null)).filter((u) => u.length >= 2).flat();
  const count = (v: number) => all.filter((x) => x === v).length;
  return (a, b) => {
    const [lo, hi] = a < b ? [a, b] : [b, a];
    let s = 0;
    for (let g = lo; g <= hi; g++) s += count(g);
    return (s - (count(lo) + count(hi)) / 2) ** 2;
  };
}

Deno.test("reviewAgreement: three raters with gaps — alpha on the verdict and each criterion by hand, no kappa", () => {
  // Items x, y, z; cy skips y. Verdicts: x P P P; y F F -; z P F F.
  const a = reviewAgreement([
    rating("ana", "x", 1, 4),
    rating("bo", "x", 1, 5),
    rating("cy", "x", 1, 4),
    rating("ana", "y", 0, 4),
    rating("bo", "y", 1, 2),
    rating("ana", "z", 1, 3),
    rating("bo", "z", 0, 3),
    rating("cy", "z", 1, 2),
    rating("ana", "w", 1, 5), // rated by one rater only: not compared
  ], { raters: ["ana", "bo", "cy"], resamples: 0 });
  assert.equal(a.items, 3);
  assert.equal(a.pass.kappa, null, "kappa needs exactly two raters");
  // Coincidences of the verdict (each ordered pair in a unit of m values weighs 1/(m − 1)): x (P P P): o_PP += 6/2 = 3;
  // y (F F): o_FF += 2; z (P F F): o_PF += 2/2, o_FP += 2/2, o_FF += 2/2. n = 8 values, n_P = 4, n_F = 4.
  // D_o = (1 + 1)/8; D_e = 2·4·4/(8·7) = 32/56; α = 1 − (2/8)/(32/56) = 1 − 14/32 = 0.5625.
  assert.ok(Math.abs(a.pass.alpha.alpha! - 0.5625) < 1e-12, String(a.pass.alpha.alpha));
  const units = { ok: [[1, 1, 1], [0, 1, null], [1, 0, 1]], depth: [[4, 5, 4], [4, 2, null], [3, 3, 2]] };
  const nominal = (x: number, y: number) => (x === y ? 0 : 1);
  const ok = a.criteria.find((c) => c.criterion === "ok")!;
  assert.deepEqual(Object.keys(ok.alpha), ["nominal"]);
  assert.ok(Math.abs(ok.alpha.nominal!.alpha! - alphaByPairs(units.ok, nominal)) < 1e-12);
  const depth = a.criteria.find((c) => c.criterion === "depth")!;
  assert.deepEqual(Object.keys(depth.alpha), ["ordinal", "interval"]);
  assert.ok(Math.abs(depth.alpha.interval!.alpha! - alphaByPairs(units.depth, (x, y) => (x - y) ** 2)) < 1e-12);
  assert.ok(Math.abs(depth.alpha.ordinal!.alpha! - alphaByPairs(units.depth, ordinalDelta(units.depth))) < 1e-12);
});

Deno.test("reviewAgreement: two raters on 60 random items agree with an independent kappa and alpha", () => {
  const rand = mulberry32(17);
  const ratings: ValidRating[] = [];
  const pairs: [number, number][] = [];
  for (let i = 0; i < 60; i++) {
    const truth = rand() < 0.6 ? 1 : 0;
    const ana = rand() < 0.85 ? truth : 1 - truth, bo = rand() < 0.8 ? truth : 1 - truth;
    const da = 1 + Math.floor(rand() * 5), db = Math.min(5, Math.max(1, da + Math.floor(rand() * 3) - 1));
    ratings.push(rating("ana", `i${i}`, ana, da), rating("bo", `i${i}`, bo, db));
    pairs.push([ana === 1 && da >= 3 ? 1 : 0, bo === 1 && db >= 3 ? 1 : 0]);
  }
  const a = reviewAgreement(ratings, { raters: ["ana", "bo"], resamples: 500, seed: 3 });
  const n = pairs.length;
  const po = pairs.filter(([x, y]) => x === y).length / n;
  const pa = pairs.filter(([x]) => x === 1).length / n, pb = pairs.filter(([, y]) => y === 1).length / n;
  const pe = pa * pb + (1 - pa) * (1 - pb);
  assert.ok(Math.abs(a.pass.kappa!.kappa! - (po - pe) / (1 - pe)) < 1e-12);
  assert.ok(Math.abs(a.pass.alpha.alpha! - alphaByPairs(pairs, (x, y) => (x === y ? 0 : 1))) < 1e-12);
  const k = a.pass.kappa!;
  assert.ok(k.ci.low! < k.kappa! && k.kappa! < k.ci.high!, "the interval holds the estimate");
  const text = formatAgreement(a).join("\n");
  assert.match(
    text,
    /^agreement on 60 items rated by two or more of ana, bo \(95 % percentile bootstrap over items, 500 resamples, seed 3\):/,
  );
  assert.match(text, /verdict \(pass\/fail\): Cohen's kappa [0-9.]+ \[[0-9.-]+, [0-9.-]+\] on 60 pairs/);
  assert.match(text, /r\/depth \(points, 60 items\): alpha ordinal [0-9.-]+ .*; alpha interval/);
});

Deno.test("reviewAgreement: no item rated twice says so", () => {
  const a = reviewAgreement([rating("ana", "x", 1, 3), rating("bo", "y", 1, 3)], {
    raters: ["ana", "bo"],
    resamples: 0,
  });
  assert.equal(a.items, 0);
  assert.deepEqual(formatAgreement(a), ["agreement: no item was rated by two or more raters (raters ana, bo)"]);
});
