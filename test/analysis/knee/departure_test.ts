import assert from "node:assert/strict";
import { type Blocks, quantileBlocks, ratioBlocks } from "../../../analysis/knee/block_bootstrap.ts";
import { departure, fisherOneSided } from "../../../analysis/knee/departure.ts";
import type { Level } from "../../../analysis/knee/repeats.ts";
import type { LevelPoint, SignalSample } from "../../../analysis/knee/levels.ts";
import { SIGNALS } from "../../../analysis/knee/signals.ts";
import { KNEE_PERCENTILES, percentileNeed, percentileSupported } from "../../../lib/percentile_support.ts";

/** C(a, k) / C(b, k) = ∏_{i<k} (a − i) / (b − i): the chance that all k failures fall in the group of a out of b. */
function allFailuresIn(a: number, b: number, k: number): number {
  let p = 1;
  for (let i = 0; i < k; i++) p *= (a - i) / (b - i);
  return p;
}

Deno.test("fisherOneSided() is the hypergeometric tail", async (t) => {
  await t.step("baseline 40/40, level 144/160 accepted: all 16 failures in the level", () => {
    // P(X ≤ 144) with K = 184 successes of N = 200, 160 drawn = C(160, 16) / C(200, 16)
    const want = allFailuresIn(160, 200, 16);
    assert.ok(Math.abs(fisherOneSided(40, 40, 144, 160, "lower") - want) < 1e-12);
    assert.ok(want < 0.05 && want > 0.02); // ≈ 0.024
  });
  await t.step("the same table on the failure side gives the same p", () => {
    assert.ok(Math.abs(fisherOneSided(0, 40, 16, 160, "higher") - allFailuresIn(160, 200, 16)) < 1e-12);
  });
  await t.step("equal shares: far from significant", () => assert.ok(fisherOneSided(5, 50, 5, 50, "lower") > 0.5));
});

/** Rows in blocks: block b holds the values of `perBlock[b]`, in second b of one stage. */
function rows(perBlock: number[][]): { part: number[]; second: number[]; values: number[] } {
  const out = { part: [] as number[], second: [] as number[], values: [] as number[] };
  perBlock.forEach((vs, b) =>
    vs.forEach((v) => {
      out.part.push(0);
      out.second.push(b);
      out.values.push(v);
    })
  );
  return out;
}
const times = <T>(n: number, v: T): T[] => Array.from({ length: n }, () => v);

/** p95 blocks of the given values per block. */
const p95Blocks = (perBlock: number[][]): Blocks => {
  const r = rows(perBlock);
  return quantileBlocks(r, r.values, 0.95);
};
/** Rate blocks: block b has hits[b] of dens[b]. */
const rateBlocks = (hits: number[], dens: number[]): Blocks =>
  ratioBlocks({ part: hits.map(() => 0), second: hits.map((_, i) => i) }, { num: hits, den: dens });

/** A level whose pooled point and repeats carry only the signal `x` (and its blocks). */
function level(pooled: SignalSample, blocks?: Blocks, repeats: SignalSample[] = []): Level {
  const point = (s: SignalSample): LevelPoint => ({
    parts: [],
    planned_rps: 8,
    seconds: 10,
    offered: 80,
    offered_rps: 8,
    accepted: 0,
    accepted_goodput: 0,
    cached_input: { cached: 0, input: 0, share: null },
    signals: { x: s },
    blocks: blocks ? { x: blocks } : {},
  });
  return { planned_rps: 8, pooled: point(pooled), repeats: (repeats.length ? repeats : [pooled]).map(point) };
}

/** A p95 sample of n values (supported by the knee's rule, lib/percentile_support.ts, when n ≥ 90). */
const pct = (value: number, lower: number | null, upper: number | null, n = 100): SignalSample => ({
  test: "percentile",
  p: 0.95,
  value,
  n,
  lower,
  upper,
  supported: percentileSupported(0.95, n),
});

/** P(X ≤ k) for X ~ binomial(n, p), summed term by term. */
function binomialCdf(k: number, n: number, p: number): number {
  let term = (1 - p) ** n, sum = term;
  for (let i = 1; i <= k; i++) {
    term *= ((n - i + 1) / i) * (p / (1 - p));
    sum += term;
  }
  return sum;
}

Deno.test("departure() needs the tolerance and the block-bootstrap test to call a signal degraded", async (t) => {
  const tol = { rel: 0.25, abs: 100 };
  // Baseline: 10 one-second blocks of 20 latencies of 400 ms: p95 = 400 in every resample.
  const baseBlocks = p95Blocks(times(10, times(20, 400)));
  const base = pct(400, 400, 400, 200);
  await t.step("threshold = baseline · (1 + rel) + abs", () => {
    const d = departure("x", base, level(pct(550, 500, 600)), "higher", tol, 0.05, baseBlocks);
    assert.equal(d.threshold, 600); // 400 · 1.25 + 100
    assert.equal(d.verdict, "ok");
  });
  await t.step("beyond the threshold and worse in every resample: degraded, p = 0", () => {
    // Every block 700 ms: each resample's p95 is 700, 700 − 400 > 0 in all 1000 resamples.
    const d = departure(
      "x",
      base,
      level(pct(700, 700, 700, 200), p95Blocks(times(10, times(20, 700)))),
      "higher",
      tol,
      0.05,
      baseBlocks,
    );
    assert.equal(d.verdict, "degraded");
    assert.equal(d.guard.name, "block_bootstrap_and_independent");
    assert.equal(d.guard.p_value, 0); // by blocks and by single requests alike
    assert.match(
      d.guard.detail,
      /10 blocks vs baseline 10 of 1 s, 1000 resamples, seeds 1\/2\): 95 % CI \[700, 700\] vs baseline \[400, 400\]/,
    );
  });
  await t.step("one bad second of ten: beyond the threshold, but the blocks do not confirm it", () => {
    // Level: 10 blocks of 20; one holds 20 × 900 ms, nine 20 × 400 ms. p95 of 200 values = rank 190: 900 (20 high).
    // A resample's p95 is 900 when it holds ≥ 11 high values, i.e. the bad block at least once; else 400, not worse.
    // p = P(bad block never drawn in 10 draws) = 0.9^10 = 0.3487 (1000 resamples: SE 0.015).
    const blocks = p95Blocks([times(20, 900), ...times(9, times(20, 400))]);
    const d = departure("x", base, level(pct(900, 400, 900, 200), blocks), "higher", tol, 0.05, baseBlocks);
    assert.ok(Math.abs(d.guard.block_p_value! - 0.9 ** 10) < 0.061, `p = ${d.guard.block_p_value}`); // 4 SE
    // Under independence (each request its own block) the same 200 values would be confirmed: a resample holds
    // Bin(200, 0.1) high values, and p95 = 400 needs ≤ 10 of them: p = P(Bin(200, 0.1) ≤ 10) ≈ 0.011 < 0.05.
    const want = binomialCdf(10, 200, 0.1);
    assert.ok(want > 0.005 && want < 0.02, `${want}`);
    assert.ok(Math.abs(d.guard.independent_p_value! - want) < 0.013, `p = ${d.guard.independent_p_value}, ${want}`);
    // The guard needs both: p = max ≈ 0.349.
    assert.equal(d.guard.p_value, d.guard.block_p_value);
    assert.equal(d.verdict, "undecidable");
    assert.match(
      d.why,
      /above 600 but block bootstrap .* under independence \(bootstrap over requests\) p = .*: not both < α/,
    );
  });
  await t.step("lower is worse: the level must fall below the baseline, by blocks and by Fisher's test", () => {
    const b = rateBlocks(times(5, 10), times(5, 10)); // 50 of 50
    const l = rateBlocks(times(5, 2), times(5, 10)); // 10 of 50: every resample 0.2 − 1 < 0
    const prop = (num: number, den: number): SignalSample => ({ test: "proportion", value: num / den, num, den });
    const d = departure("x", prop(50, 50), level(prop(10, 50), l), "lower", { rel: 0.5, abs: 0 }, 0.05, b);
    assert.equal(d.threshold, 0.5); // 1 · (1 − 0.5)
    assert.equal(d.verdict, "degraded");
    assert.equal(d.guard.block_p_value, 0);
    // Fisher: all 40 failures in the level: C(50, 40) / C(100, 40), far below α; the guard's p is the larger.
    assert.equal(d.guard.independent_p_value, fisherOneSided(50, 50, 10, 50, "lower"));
    assert.equal(d.guard.p_value, d.guard.independent_p_value);
    assert.match(
      d.guard.detail,
      /10\/50 vs baseline 50\/50: block bootstrap .* under independence \(Fisher exact\) p = .*: both < α = 0.05/,
    );
  });
  await t.step("fewer than 5 blocks on a side: not tested, undecidable", () => {
    const d = departure(
      "x",
      base,
      level(pct(700, 700, 700, 100), p95Blocks(times(4, times(25, 700)))),
      "higher",
      tol,
      0.05,
      baseBlocks,
    );
    assert.equal(d.guard.significant, null);
    assert.equal(d.verdict, "undecidable");
    assert.match(d.why, /4 blocks vs baseline 10: the block bootstrap needs at least 5 on each side/);
  });
  await t.step("a percentile the baseline's n does not support is not tested", () => {
    const thin = pct(400, 380, null, 40);
    const d = departure(
      "x",
      thin,
      level(pct(700, 700, 700, 200), p95Blocks(times(10, times(20, 700)))),
      "higher",
      tol,
      0.05,
      baseBlocks,
    );
    assert.equal(d.verdict, "undecidable");
    assert.match(
      d.why,
      /n = 200 vs baseline n = 40: the baseline's n does not support this percentile, not tested \(p95 needs n ≥ 90 on each side \(MLPerf LoadGen's early-stopping rule at 99 % one-sided confidence\) and ≥ 5 one-second blocks\)/,
    );
  });
  await t.step("repeats on both sides of the threshold: undecidable, whatever the pooled value", () => {
    const d = departure(
      "x",
      base,
      level(pct(700, 650, 760), p95Blocks(times(10, times(20, 700))), [pct(500, 450, 550), pct(900, 850, 950)]),
      "higher",
      tol,
      0.05,
      baseBlocks,
    );
    assert.deepEqual(d.spread, { values: [500, 900], min: 500, max: 900 });
    assert.equal(d.verdict, "undecidable");
  });
  await t.step("a signal without a test is judged on tolerance alone", () => {
    const none = (v: number): SignalSample => ({ test: "none", value: v, n: 10 });
    const d = departure("x", none(0), level(none(5)), "higher", { rel: 0.5, abs: 1 }, 0.05);
    assert.equal(d.verdict, "degraded");
    assert.match(d.why, /tolerance only/);
  });
  await t.step("no value: no data", () => {
    const d = departure("x", base, level({ test: "none", value: null, n: 0 }), "higher", tol, 0.05, baseBlocks);
    assert.equal(d.verdict, "no data");
  });
});

Deno.test("the knee's undecidable verdict turns where the plan-length rule does: n = 89 vs 90 for a p95", async (t) => {
  // Both sides far apart: baseline 10 blocks × 20 latencies of 400 ms, level every latency 2000 ms. Beyond the
  // threshold 400 · 1.25 + 100 = 600 by any count, and worse in every resample: only the n can stop the test.
  const tol = { rel: 0.25, abs: 100 };
  const baseBlocks = p95Blocks(times(10, times(20, 400)));
  const base = pct(400, 400, 400, 200);
  /** A level of n latencies of 2000 ms over 10 one-second blocks (9 blocks of ⌊n / 10⌋, the rest in the last). */
  const levelOf = (n: number) => {
    const each = Math.floor(n / 10);
    const blocks = [...times(9, times(each, 2000)), times(n - 9 * each, 2000)];
    return level(pct(2000, 2000, 2000, n), p95Blocks(blocks));
  };
  assert.equal(percentileNeed(0.95), 90);
  await t.step("n = 90 at the level (the need): tested, degraded", () => {
    const d = departure("x", base, levelOf(90), "higher", tol, 0.05, baseBlocks);
    assert.equal(d.guard.name, "block_bootstrap_and_independent");
    assert.equal(d.guard.p_value, 0);
    assert.equal(d.verdict, "degraded");
  });
  await t.step("n = 89 at the level (one short): not tested, undecidable, naming the need", () => {
    const d = departure("x", base, levelOf(89), "higher", tol, 0.05, baseBlocks);
    assert.equal(d.guard.significant, null);
    assert.equal(d.verdict, "undecidable");
    assert.match(d.why, /above 600 but n = 89 vs baseline n = 200: the level's n does not support this percentile/);
    assert.match(d.why, /p95 needs n ≥ 90 on each side/);
  });
  await t.step("n = 89 at the baseline: undecidable whatever the level's n", () => {
    const thin = p95Blocks([...times(9, times(9, 400)), times(8, 400)]); // 9 · 9 + 8 = 89 latencies
    const d = departure("x", pct(400, 400, 400, 89), levelOf(200), "higher", tol, 0.05, thin);
    assert.equal(d.verdict, "undecidable");
    assert.match(d.why, /the baseline's n does not support this percentile/);
  });
});

Deno.test("every percentile of the shared rule is a signal the knee knows", () => {
  for (const p of KNEE_PERCENTILES) {
    const label = `p${p * 100}`;
    assert.ok(SIGNALS[`e2e_${label}_ms`] && SIGNALS[`ttft_${label}_ms`], label);
  }
});
