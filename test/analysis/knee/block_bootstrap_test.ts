import assert from "node:assert/strict";
import {
  BLOCK_RESAMPLES,
  blockBootstrapTest,
  blocksBeyond,
  blockStatistic,
  percentileInterval,
  quantileBlocks,
  ratioBlocks,
  resampleBlocks,
} from "../../../analysis/knee/block_bootstrap.ts";
import { percentile } from "../../../analysis/latency/percentile.ts";
import { mulberry32 } from "../../../lib/prng.ts";

/** Rate blocks in seconds 0, 1, …: block b has hits[b] of dens[b]. */
const rates = (hits: number[], dens: number[]) =>
  ratioBlocks({ part: hits.map(() => 0), second: hits.map((_, i) => i) }, { num: hits, den: dens });
const times = <T>(n: number, v: T): T[] => Array.from({ length: n }, () => v);
/** Monte Carlo slack: 4 standard errors of a share p estimated from the resamples. */
const slack = (p: number) => 4 * Math.sqrt((p * (1 - p)) / BLOCK_RESAMPLES);

Deno.test("ratioBlocks() and quantileBlocks() group rows by part and second", async (t) => {
  await t.step("sums per (part, second), rows not kept left out", () => {
    const b = ratioBlocks(
      { part: [0, 0, 1, 0, 1], second: [0, 0, 0, 1, 0] },
      { num: [1, 0, 1, 1, 5], den: [1, 1, 1, 1, 1], keep: [true, true, true, true, false] },
    );
    assert.deepEqual(b.at, [{ part: 0, second: 0 }, { part: 1, second: 0 }, { part: 0, second: 1 }]);
    assert.deepEqual([...b.num], [1, 1, 1]);
    assert.deepEqual([...b.den], [2, 1, 1]);
    assert.equal(blockStatistic(b), 0.75); // 3 / 4
  });
  await t.step("null and NaN values make no block", () => {
    const b = quantileBlocks({ part: [0, 0, 0, 0], second: [0, 1, 1, 2] }, [5, null, 7, NaN], 0.5);
    assert.deepEqual(b.at, [{ part: 0, second: 0 }, { part: 0, second: 1 }]);
    assert.deepEqual(b.values.map((v) => [...v]), [[5], [7]]);
  });
  await t.step("the quantile of all blocks is the nearest-rank percentile of every value", () => {
    const rand = mulberry32(5);
    for (let trial = 0; trial < 200; trial++) {
      const n = 1 + Math.floor(rand() * 60);
      const values = Array.from({ length: n }, () => Math.floor(rand() * 20)); // ties on purpose
      const second = values.map(() => Math.floor(rand() * 7));
      const p = [0.5, 0.9, 0.95, 0.99, 1][trial % 5]!;
      const b = quantileBlocks({ part: values.map(() => 0), second }, values, p);
      assert.equal(blockStatistic(b), percentile(Float64Array.from(values).sort(), p), `${values} p${p}`);
    }
  });
});

Deno.test("blockBootstrapTest() resamples seconds, not requests", async (t) => {
  await t.step("two rejected in one second of twenty: p = P(that second never drawn) = (19/20)^20", () => {
    // Level: 20 blocks of 4 requests, block 0 has 2 rejected; baseline: 20 blocks of 2, none rejected.
    // A resample is worse than the baseline's 0 exactly when block 0 is drawn: p = (19/20)^20 = 0.3585.
    const level = rates([2, ...times(19, 0)], times(20, 4));
    const base = rates(times(20, 0), times(20, 2));
    const r = blockBootstrapTest(base, level, "higher")!;
    const want = (19 / 20) ** 20;
    assert.ok(Math.abs(r.p_value - want) < slack(want), `p = ${r.p_value}, exact ${want}`);
    assert.deepEqual(r.blocks, { level: 20, baseline: 20 });
    assert.deepEqual(r.baseline_ci, [0, 0]);
  });
  await t.step(
    "a 2 s stall: 8 rejected in 2 of 20 seconds is not significant, though 8 independent requests would be",
    () => {
      // Blocks: p = P(neither bad second drawn in 20 draws) = (18/20)^20 = 0.1216 ≥ 0.05.
      const stalled = rates([4, 4, ...times(18, 0)], times(20, 4));
      const base = rates(times(20, 0), times(20, 4));
      const blocks = blockBootstrapTest(base, stalled, "higher")!;
      assert.ok(Math.abs(blocks.p_value - 0.9 ** 20) < slack(0.9 ** 20), `p = ${blocks.p_value}`);
      // Each request its own block (80 of them, 8 rejected): p = (72/80)^80 = 0.9^80 ≈ 0.0002, significant.
      const single = (hit: number[]) =>
        ratioBlocks({ part: hit.map(() => 0), second: hit.map((_, i) => i) }, { num: hit, den: hit.map(() => 1) });
      const each = blockBootstrapTest(single(times(80, 0)), single([...times(8, 1), ...times(72, 0)]), "higher")!;
      assert.ok(each.p_value < 0.01, `p = ${each.p_value}`);
    },
  );
  await t.step("lower is worse: ties count as not worse", () => {
    const same = rates(times(6, 3), times(6, 4));
    assert.equal(blockBootstrapTest(same, same, "lower")!.p_value, 1); // every difference is 0
    const worse = rates(times(6, 1), times(6, 4));
    assert.equal(blockBootstrapTest(same, worse, "lower")!.p_value, 0); // 0.25 − 0.75 < 0 always
  });
  await t.step("fewer than 5 blocks on a side: no test", () => {
    assert.equal(blockBootstrapTest(rates(times(4, 0), times(4, 1)), rates(times(9, 1), times(9, 1)), "higher"), null);
  });
  await t.step("a ratio whose resample has no denominator is +∞ (worse) and bounds no interval", () => {
    // Tokens per accepted: 5 blocks of 100 tokens, only block 0 has an accepted task.
    const b = rates([100, 100, 100, 100, 100], [1, 0, 0, 0, 0]);
    const stats = resampleBlocks(b, 1);
    // P(block 0 never drawn) = (4/5)^5 = 0.328: that share of resamples is +∞.
    const inf = stats.filter((v) => v === Infinity).length / BLOCK_RESAMPLES;
    assert.ok(Math.abs(inf - 0.8 ** 5) < slack(0.8 ** 5), `${inf}`);
    assert.equal(percentileInterval(stats)[1], null);
  });
});

Deno.test("blocksBeyond() names the seconds whose own value is out of line", () => {
  const b = rates([0, 3, 4, 0, 1], times(5, 4));
  // Rates 0, 0.75, 1, 0, 0.25: above 0.5 are seconds 1 and 2.
  assert.deepEqual(blocksBeyond(b, 0.5, "higher"), [{ part: 0, second: 1 }, { part: 0, second: 2 }]);
  assert.deepEqual(blocksBeyond(b, 0.1, "lower").map((a) => a.second), [0, 3]);
});
