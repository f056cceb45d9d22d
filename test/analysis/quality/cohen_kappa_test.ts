import assert from "node:assert/strict";
import { cohenKappa } from "../../../analysis/quality/cohen_kappa.ts";
import { mulberry32 } from "../../../lib/prng.ts";

const repeat = (pair: [string, string], times: number) => Array.from({ length: times }, () => pair);

/** Wikipedia, "Cohen's kappa", simple example: 50 grant proposals read by A and B. */
const PROPOSALS = [
  ...repeat(["yes", "yes"], 20),
  ...repeat(["yes", "no"], 5),
  ...repeat(["no", "yes"], 10),
  ...repeat(["no", "no"], 15),
];

/** κ from the k × k contingency table, Fleiss's form (N Σ n_ii − Σ n_i+ n_+i) / (N² − Σ n_i+ n_+i). */
function kappaFromTable(pairs: readonly (readonly [string, string])[]): number {
  const labels = [...new Set(pairs.flat())];
  const table = labels.map(() => labels.map(() => 0));
  for (const [a, b] of pairs) table[labels.indexOf(a)]![labels.indexOf(b)]!++;
  const N = pairs.length;
  let diagonal = 0, chance = 0;
  for (let i = 0; i < labels.length; i++) {
    diagonal += table[i]![i]!;
    const row = table[i]!.reduce((s, x) => s + x, 0);
    const col = table.reduce((s, r) => s + r[i]!, 0);
    chance += row * col;
  }
  return (N * diagonal - chance) / (N * N - chance);
}

function randomPairs(n: number, seed: number): [string, string][] {
  const rand = mulberry32(seed);
  const cats = ["good", "fair", "poor"];
  return Array.from({ length: n }, () => {
    const a = cats[Math.floor(rand() * 3)]!;
    // B agrees with A 60 % of the time, otherwise picks at random.
    const b = rand() < 0.6 ? a : cats[Math.floor(rand() * 3)]!;
    return [a, b];
  });
}

Deno.test("cohenKappa() gives Wikipedia's 50-proposal example: κ = 0.4", () => {
  const r = cohenKappa(PROPOSALS);
  // p_o = (20 + 15)/50 = 0.7. A says yes 25/50 = 0.5, B says yes 30/50 = 0.6:
  // p_e = 0.5·0.6 + 0.5·0.4 = 0.5. κ = (0.7 − 0.5)/(1 − 0.5) = 0.4.
  assert.ok(Math.abs(r.observed_agreement! - 0.7) < 1e-12);
  assert.ok(Math.abs(r.expected_agreement! - 0.5) < 1e-12);
  assert.ok(Math.abs(r.kappa! - 0.4) < 1e-12);
  assert.deepEqual(r.categories, ["no", "yes"]);
  assert.equal(r.n, 50);
  assert.equal(r.undefined_reason, null);
  assert.deepEqual([r.ci.level, r.ci.method, r.ci.resamples, r.ci.seed], [0.95, "bootstrap", 2000, 1]);
});

Deno.test("cohenKappa() agrees with κ from the contingency table (Fleiss's form)", () => {
  for (const [n, seed] of [[30, 3], [200, 4], [1000, 5]] as const) {
    const pairs = randomPairs(n, seed);
    const r = cohenKappa(pairs, { resamples: 0 });
    assert.ok(Math.abs(r.kappa! - kappaFromTable(pairs)) < 1e-12, `n = ${n}`);
  }
});

Deno.test("cohenKappa()'s interval is the percentile bootstrap over pairs, redrawn the same way independently", () => {
  const pairs = randomPairs(60, 11);
  const r = cohenKappa(pairs, { resamples: 500, seed: 9, level: 0.9 });
  // Independently: 500 draws of 60 pairs from mulberry32(9), κ of each by the table, nearest-rank 5 % and 95 %.
  const rand = mulberry32(9);
  const ks: number[] = [];
  for (let b = 0; b < 500; b++) {
    const draw = Array.from({ length: 60 }, () => pairs[Math.floor(rand() * 60)]!);
    ks.push(kappaFromTable(draw));
  }
  ks.sort((x, y) => x - y);
  // ⌈0.05 · 500⌉ = 25th and ⌈0.95 · 500⌉ = 475th smallest
  assert.ok(Math.abs(r.ci.low! - ks[24]!) < 1e-12);
  assert.ok(Math.abs(r.ci.high! - ks[474]!) < 1e-12);
  assert.equal(r.ci.resamples_undefined, 0);
  assert.ok(r.ci.low! < r.kappa! && r.kappa! < r.ci.high!);
});

Deno.test("cohenKappa()'s interval is reproducible from its seed and moves with it", () => {
  const a = cohenKappa(PROPOSALS, { seed: 5 }), b = cohenKappa(PROPOSALS, { seed: 5 });
  const c = cohenKappa(PROPOSALS, { seed: 6 });
  assert.deepEqual(a.ci, b.ci);
  assert.notDeepEqual([a.ci.low, a.ci.high], [c.ci.low, c.ci.high]);
});

Deno.test("cohenKappa() edge cases", async (t) => {
  await t.step("perfect agreement on two categories: κ = 1, and the interval's top is 1", () => {
    const r = cohenKappa([...repeat(["a", "a"], 10), ...repeat(["b", "b"], 10)]);
    assert.equal(r.kappa, 1);
    assert.equal(r.ci.high, 1);
  });
  await t.step("total disagreement, balanced: p_o = 0, p_e = 0.5, κ = −1", () => {
    const r = cohenKappa([...repeat(["a", "b"], 5), ...repeat(["b", "a"], 5)], { resamples: 0 });
    assert.equal(r.kappa, -1);
    assert.deepEqual([r.ci.low, r.ci.high], [null, null]);
  });
  await t.step("one category only: p_e = 1, κ undefined with its reason", () => {
    const r = cohenKappa(repeat(["pass", "pass"], 8));
    assert.equal(r.kappa, null);
    assert.equal(r.expected_agreement, 1);
    assert.match(r.undefined_reason!, /only "pass".*expected agreement is 1/);
    // every resample has one category too
    assert.deepEqual([r.ci.low, r.ci.high, r.ci.resamples_undefined], [null, null, 2000]);
  });
  await t.step("no pairs: nothing is defined", () => {
    const r = cohenKappa([]);
    assert.deepEqual([r.kappa, r.observed_agreement, r.expected_agreement, r.n], [null, null, null, 0]);
    assert.equal(r.undefined_reason, "no pairs");
    assert.deepEqual([r.ci.low, r.ci.high], [null, null]);
  });
  await t.step("resamples with one category left are counted and left out", () => {
    // 9 agreeing "a" pairs and 1 agreeing "b": about 0.9^10 ≈ 35 % of resamples hold no "b".
    const r = cohenKappa([...repeat(["a", "a"], 9), ["b", "b"]], { resamples: 1000 });
    assert.ok(r.ci.resamples_undefined > 250 && r.ci.resamples_undefined < 450, `${r.ci.resamples_undefined}`);
    assert.equal(r.ci.low, 1);
  });
});

Deno.test("cohenKappa() refuses bad input with every problem named", () => {
  assert.throws(
    () => cohenKappa([["a", 1 as unknown as string], ["b"] as unknown as [string, string]]),
    (e: Error) => e instanceof RangeError && /pairs\[0\]\[1\]/.test(e.message) && /pairs\[1\]/.test(e.message),
  );
  assert.throws(() => cohenKappa(PROPOSALS, { level: 1 }), /level/);
  assert.throws(() => cohenKappa(PROPOSALS, { resamples: 1.5 }), RangeError);
  assert.throws(() => cohenKappa(PROPOSALS, { seeds: 1 } as never), /seeds/);
});
