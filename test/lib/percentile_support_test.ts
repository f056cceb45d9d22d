import assert from "node:assert/strict";
import {
  ceilCount,
  floorCount,
  KNEE_PERCENTILES,
  MIN_BLOCKS,
  percentileNeed,
  percentileNeedText,
  percentileSupported,
  percentileTestable,
  secondsForSamples,
} from "../../lib/percentile_support.ts";

Deno.test("percentileNeed() is the smallest n with pⁿ ≤ 1 − confidence", async (t) => {
  await t.step("p95 needs 90 at 99 %: 0.95^90 = 0.00989 ≤ 0.01 < 0.95^89 = 0.01041", () => {
    assert.ok(0.95 ** 90 <= 0.01 && 0.95 ** 89 > 0.01);
    assert.equal(percentileNeed(0.95), 90);
  });
  await t.step("p99 needs 459 at 99 %: 0.99^459 = 0.00992 ≤ 0.01 < 0.99^458 = 0.01002", () => {
    assert.ok(0.99 ** 459 <= 0.01 && 0.99 ** 458 > 0.01);
    assert.equal(percentileNeed(0.99), 459);
  });
  await t.step("p50 needs 7: 0.5^7 = 0.0078 ≤ 0.01 < 0.5^6 = 0.0156", () => assert.equal(percentileNeed(0.5), 7));
  await t.step("p99 at 95 % one-sided needs 299: 0.99^299 = 0.0495 ≤ 0.05 < 0.99^298 = 0.0500", () => {
    assert.ok(0.99 ** 299 <= 0.05 && 0.99 ** 298 > 0.05);
    assert.equal(percentileNeed(0.99, { confidence: 0.95 }), 299);
  });
  await t.step("the maximum (p = 1) is never supported", () => assert.equal(percentileNeed(1), Infinity));
});

Deno.test("percentileSupported() and percentileTestable() turn at the need, on each side", async (t) => {
  await t.step("a p95 is supported from 90 samples, not at 89", () => {
    assert.equal(percentileSupported(0.95, 89), false);
    assert.equal(percentileSupported(0.95, 90), true);
  });
  await t.step("both sides at 90: testable", () => {
    assert.deepEqual(percentileTestable(0.95, { baseline: 90, level: 90 }), { testable: true, need: 90, short: null });
  });
  await t.step("each side one short, then both", () => {
    assert.equal(percentileTestable(0.95, { baseline: 89, level: 500 }).short, "baseline");
    assert.equal(percentileTestable(0.95, { baseline: 500, level: 89 }).short, "level");
    assert.equal(percentileTestable(0.99, { baseline: 458, level: 458 }).short, "both");
    assert.equal(percentileTestable(0.99, { baseline: 459, level: 459 }).testable, true);
  });
});

Deno.test("secondsForSamples() is ⌈need / rate⌉, never under the block bootstrap's 5 one-second blocks", () => {
  assert.equal(MIN_BLOCKS, 5);
  // ⌈90 / 3⌉ = 30; ⌈459 / 3⌉ = ⌈153⌉ = 153; ⌈459 / 6⌉ = ⌈76.5⌉ = 77; ⌈90 / 50⌉ = 2 → 5 (blocks)
  assert.deepEqual(
    [secondsForSamples(90, 3), secondsForSamples(459, 3), secondsForSamples(459, 6), secondsForSamples(90, 50)],
    [30, 153, 77, 5],
  );
  // 459 at 100 req/s: ⌈4.59⌉ = 5 s, the blocks' minimum too
  assert.equal(secondsForSamples(459, 100), 5);
  assert.equal(secondsForSamples(90, 0), Infinity);
});

Deno.test("floorCount() and ceilCount() settle float noise at whole numbers only", () => {
  // 0.29 · 100 = 28.999999999999996 and 0.07 · 100 = 7.000000000000001 in floating point
  assert.ok(0.29 * 100 < 29 && 0.07 * 100 > 7);
  assert.equal(floorCount(0.29 * 100), 29);
  assert.equal(floorCount(89.5), 89);
  assert.equal(ceilCount(0.07 * 100), 7);
  assert.equal(ceilCount(300.5), 301);
});

Deno.test("percentileNeedText() names the n of each percentile the knee judges, and the blocks", () => {
  assert.deepEqual(KNEE_PERCENTILES, [0.95, 0.99]);
  assert.equal(
    percentileNeedText(KNEE_PERCENTILES),
    "p95 needs n ≥ 90 and p99 n ≥ 459 on each side (MLPerf LoadGen's early-stopping rule at 99 % one-sided " +
      "confidence) and ≥ 5 one-second blocks",
  );
});
