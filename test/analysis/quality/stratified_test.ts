import assert from "node:assert/strict";
import { allocateSample, sampleSizeForWidth, stratifiedProportion } from "../../../analysis/quality/stratified.ts";
import { normalQuantile } from "../../../lib/normal_quantile.ts";
import { mulberry32 } from "../../../lib/prng.ts";

/** Every k-subset of xs. */
function subsets<T>(xs: readonly T[], k: number): T[][] {
  if (k === 0) return [[]];
  if (xs.length < k) return [];
  const [head, ...rest] = xs;
  return [...subsets(rest, k - 1).map((s) => [head!, ...s]), ...subsets(rest, k)];
}

Deno.test("stratifiedProportion() by hand: two strata", () => {
  // W = 100/400 = 0.25 and 300/400 = 0.75; p = 8/10 and 9/10; p̂ = 0.25·0.8 + 0.75·0.9 = 0.875.
  // v = 0.25²·(1 − 10/100)·0.8·0.2/9 + 0.75²·(1 − 10/300)·0.9·0.1/9
  //   = 0.0625·0.9·0.0177778 + 0.5625·0.9666667·0.01 = 0.001 + 0.0054375 = 0.0064375; SE = 0.0802340.
  // 95 %: 0.875 ± 1.959964·0.0802340 = 0.875 ± 0.157256 → [0.717744, 1.032256] → high clipped to 1.
  const r = stratifiedProportion([
    { name: "short", population: 100, sampled: 10, passed: 8 },
    { name: "long", population: 300, sampled: 10, passed: 9 },
  ]);
  assert.ok(Math.abs(r.estimate! - 0.875) < 1e-12);
  assert.ok(Math.abs(r.standard_error! ** 2 - 0.0064375) < 1e-12);
  assert.ok(Math.abs(r.low - 0.717744) < 1e-6, `${r.low}`);
  assert.equal(r.high, 1);
  assert.deepEqual([r.n_sampled, r.population, r.level, r.method], [20, 400, 0.95, "stratified_normal_fpc"]);
  assert.ok(Math.abs(r.strata[0]!.variance - 0.001) < 1e-12);
  assert.deepEqual(r.strata.map((s) => s.weight), [0.25, 0.75]);
  assert.deepEqual(r.notes, []);
});

Deno.test("stratifiedProportion(): over every possible sample of a tiny population, the estimate is unbiased and v(p̂) averages to the true variance", () => {
  // Stratum A: 5 items (3 pass), 3 drawn; stratum B: 4 items (2 pass), 2 drawn; 10 · 6 = 60 equally likely samples.
  const a = [1, 1, 0, 1, 0], b = [1, 0, 0, 1];
  const truth = (3 + 2) / 9;
  const estimates: number[] = [], variances: number[] = [];
  for (const sa of subsets(a, 3)) {
    for (const sb of subsets(b, 2)) {
      const r = stratifiedProportion([
        { name: "A", population: 5, sampled: 3, passed: sa.reduce((x, y) => x + y, 0) },
        { name: "B", population: 4, sampled: 2, passed: sb.reduce((x, y) => x + y, 0) },
      ]);
      estimates.push(r.estimate!);
      variances.push(r.standard_error! ** 2);
    }
  }
  assert.equal(estimates.length, 60);
  const mean = estimates.reduce((x, y) => x + y, 0) / 60;
  const trueVariance = estimates.reduce((s, e) => s + (e - mean) ** 2, 0) / 60;
  const meanV = variances.reduce((x, y) => x + y, 0) / 60;
  assert.ok(Math.abs(mean - truth) < 1e-12);
  assert.ok(Math.abs(meanV - trueVariance) < 1e-12, `${meanV} vs ${trueVariance}`);
});

Deno.test("stratifiedProportion() edge cases", async (t) => {
  await t.step("one item sampled of several: the variance term is the bound W²·¼, said in notes", () => {
    const r = stratifiedProportion([
      { name: "big", population: 90, sampled: 30, passed: 27 },
      { name: "tiny", population: 10, sampled: 1, passed: 1 },
    ]);
    const tiny = r.strata[1]!;
    assert.equal(tiny.variance_estimable, false);
    assert.ok(Math.abs(tiny.variance - 0.1 ** 2 * 0.25) < 1e-15);
    assert.equal(r.notes.length, 1);
    assert.match(r.notes[0]!, /"tiny": one item sampled/);
  });
  await t.step("a stratum sampled in full adds no variance", () => {
    const r = stratifiedProportion([{ name: "all", population: 4, sampled: 4, passed: 3 }]);
    assert.deepEqual([r.estimate, r.standard_error, r.low, r.high], [0.75, 0, 0.75, 0.75]);
    const one = stratifiedProportion([{ name: "one", population: 1, sampled: 1, passed: 0 }]);
    assert.deepEqual([one.estimate, one.strata[0]!.variance_estimable], [0, true]);
  });
  await t.step("an empty stratum (population 0) weighs nothing", () => {
    const r = stratifiedProportion([
      { name: "none", population: 0, sampled: 0, passed: 0 },
      { name: "some", population: 50, sampled: 10, passed: 5 },
    ]);
    assert.equal(r.estimate, 0.5);
    assert.equal(r.strata[0]!.estimate, null);
  });
  await t.step("no population at all: no estimate, interval [0, 1]", () => {
    const r = stratifiedProportion([]);
    assert.deepEqual([r.estimate, r.low, r.high, r.standard_error], [null, 0, 1, null]);
  });
  await t.step("a low estimate's interval is clipped at 0", () => {
    const r = stratifiedProportion([{ name: "rare", population: 1000, sampled: 20, passed: 1 }]);
    assert.equal(r.low, 0);
  });
  await t.step("a stratum with items and no sample is refused by name", () => {
    assert.throws(
      () =>
        stratifiedProportion([
          { name: "seen", population: 10, sampled: 5, passed: 5 },
          { name: "skipped", population: 10, sampled: 0, passed: 0 },
        ]),
      (e: Error) => e instanceof RangeError && /"skipped" has items but none sampled/.test(e.message),
    );
  });
  await t.step("impossible counts are refused, each named", () => {
    assert.throws(
      () =>
        stratifiedProportion([
          { name: "a", population: 5, sampled: 6, passed: 1 },
          { name: "b", population: 5, sampled: 2, passed: 3 },
        ]),
      (e: Error) => /\[0\]\.sampled/.test(e.message) && /\[1\]\.passed/.test(e.message),
    );
  });
});

/** The smallest n whose FPC normal half-width z·√((1 − n/N)·S²/n), S² = N·p(1 − p)/(N − 1), is at most h. */
function searchSampleSize(N: number, h: number, level: number, p: number): number {
  const z = normalQuantile((1 + level) / 2), S2 = N * p * (1 - p) / (N - 1);
  for (let n = 1; n <= N; n++) if (z * Math.sqrt((1 - n / N) * S2 / n) <= h + 1e-12) return n;
  return N;
}

Deno.test("sampleSizeForWidth() reproduces Krejcie & Morgan's (1970) table (±5 %, 95 %, p = 0.5)", () => {
  // The table rounds s = X²NP(1 − P)/(d²(N − 1) + X²P(1 − P)) to the nearest item; n_exact is that s.
  const table: [number, number][] = [
    [10, 10],
    [15, 14],
    [20, 19],
    [100, 80],
    [220, 140],
    [500, 217],
    [1000, 278],
    [1200, 291],
    [1300, 297],
    [10_000, 370],
  ];
  for (const [N, s] of table) {
    const r = sampleSizeForWidth(N, { half_width: 0.05 });
    assert.equal(Math.round(r.n_exact), s, `N = ${N}`);
    assert.equal(r.n, Math.min(N, Math.ceil(r.n_exact - 1e-9)));
  }
  // n₀ = 1.959964²·0.25/0.0025 = 384.146
  assert.ok(Math.abs(sampleSizeForWidth(1000, { half_width: 0.05 }).n_infinite - 384.1459) < 1e-4);
});

Deno.test("sampleSizeForWidth() is the smallest n that meets the width, found by search", () => {
  for (const N of [5, 30, 120, 400, 2500]) {
    for (const [h, level, p] of [[0.05, 0.95, 0.5], [0.1, 0.9, 0.2], [0.03, 0.99, 0.5], [0.08, 0.95, 0.9]] as const) {
      const r = sampleSizeForWidth(N, { half_width: h, level, p });
      assert.equal(r.n, searchSampleSize(N, h, level, p), `N ${N}, h ${h}, level ${level}, p ${p}`);
      assert.deepEqual([r.population, r.half_width, r.level, r.p], [N, h, level, p]);
    }
  }
  assert.equal(sampleSizeForWidth(0, { half_width: 0.05 }).n, 0);
  assert.throws(() => sampleSizeForWidth(100, { half_width: 0 }), /half_width/);
});

/** Hamilton by its optimality: among integer vectors of ⌊q⌋ or ⌈q⌉ summing to the total, the one nearest q (Σ squares). */
function nearestRounding(quotas: number[], total: number): number[] {
  let best: number[] = [], bestCost = Infinity;
  const k = quotas.length;
  for (let mask = 0; mask < 1 << k; mask++) {
    const v = quotas.map((q, i) => Math.floor(q) + ((mask >> i) & 1));
    if (v.reduce((a, b) => a + b, 0) !== total) continue;
    const cost = v.reduce((s, x, i) => s + (x - quotas[i]!) ** 2, 0);
    if (cost < bestCost - 1e-12) [best, bestCost] = [v, cost];
  }
  return best;
}

Deno.test("allocateSample() reproduces the largest-remainder (Hare quota) example: 10 seats, 100 000 votes", () => {
  // Wikipedia, "Largest remainder method": votes 47 000, 16 000, 15 800, 12 000, 6 100, 3 100 → 5, 2, 1, 1, 1, 0.
  const votes = [47_000, 16_000, 15_800, 12_000, 6_100, 3_100];
  const a = allocateSample(votes.map((population, i) => ({ name: `party ${i}`, population })), 10, {
    min_per_stratum: 0,
  });
  assert.deepEqual(a.strata.map((s) => s.sampled), [5, 2, 1, 1, 1, 0]);
  assert.deepEqual([a.total, a.population, a.method], [10, 100_000, "proportional_largest_remainder"]);
});

Deno.test("allocateSample() without a minimum is the rounding nearest the proportional shares", () => {
  const rand = mulberry32(17);
  for (let trial = 0; trial < 30; trial++) {
    const pops = Array.from({ length: 2 + Math.floor(rand() * 5) }, () => 1 + Math.floor(rand() * 500));
    const N = pops.reduce((x, y) => x + y, 0), total = Math.floor(rand() * Math.min(N, 60));
    const a = allocateSample(pops.map((population, i) => ({ name: `s${i}`, population })), total, {
      min_per_stratum: 0,
    });
    const expected = nearestRounding(pops.map((p) => total * p / N), total);
    assert.deepEqual(a.strata.map((s) => s.sampled), expected, `${pops} / ${total}`);
  }
});

Deno.test("allocateSample() gives every stratum its minimum and shares the rest in proportion", async (t) => {
  await t.step("small strata raised to 2, the rest to the big one", () => {
    // quotas 20·1000/1015 = 19.70, 0.197, 0.099 → the two small ones raised to 2; 16 left for the big one
    const a = allocateSample([{ name: "big", population: 1000 }, { name: "b", population: 10 }, {
      name: "c",
      population: 5,
    }], 20);
    assert.deepEqual(a.strata.map((s) => s.sampled), [16, 2, 2]);
    assert.deepEqual(a.strata.map((s) => s.raised_to_minimum), [false, true, true]);
  });
  await t.step("a stratum smaller than the minimum gets all its items, never more", () => {
    const a = allocateSample([{ name: "one", population: 1 }, { name: "many", population: 99 }], 10);
    assert.deepEqual(a.strata.map((s) => s.sampled), [1, 9]);
  });
  await t.step("random cases: the sum is the total, each between its minimum and its population", () => {
    const rand = mulberry32(5);
    for (let trial = 0; trial < 50; trial++) {
      const pops = Array.from({ length: 1 + Math.floor(rand() * 8) }, () => Math.floor(rand() * 200));
      const N = pops.reduce((x, y) => x + y, 0), min = Math.floor(rand() * 4);
      const floors = pops.reduce((s, p) => s + Math.min(min, p), 0);
      const total = floors + Math.floor(rand() * (N - floors + 1));
      const a = allocateSample(pops.map((population, i) => ({ name: `s${i}`, population })), total, {
        min_per_stratum: min,
      });
      assert.equal(a.strata.reduce((s, x) => s + x.sampled, 0), total);
      a.strata.forEach((s) => assert.ok(s.sampled >= Math.min(min, s.population) && s.sampled <= s.population));
    }
  });
  await t.step("refuses a total above the population or below the minimums", () => {
    assert.throws(() => allocateSample([{ name: "a", population: 3 }], 4), /exceeds the population 3/);
    assert.throws(
      () => allocateSample([{ name: "a", population: 30 }, { name: "b", population: 30 }], 3),
      /cannot give each stratum its minimum \(4 needed\)/,
    );
  });
});
