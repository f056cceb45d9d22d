import assert from "node:assert/strict";
import { sloSweep, sweepLimits } from "../../../analysis/latency/sweep.ts";
import { seededUniform } from "../../../testing/seeded.ts";

Deno.test("sloSweep() counts latencies at or below each limit", async (t) => {
  await t.step("hand-computed case", () => {
    // 6 offered in 3 s; eligible e2e = 120, 80, 300, 80 (two requests failed a gate: null, NaN).
    // limit 50 → 0; 80 → 2 (both 80s, inclusive); 100 → 2; 120 → 3; 1000 → 4.
    const c = sloSweep([120, null, 80, 300, NaN, 80], [50, 80, 100, 120, 1000], {
      denominator: 6,
      measurement_seconds: 3,
    });
    assert.deepEqual([...c.accepted], [0, 2, 2, 3, 4]);
    assert.deepEqual([...c.accepted_goodput], [0, 2 / 3, 2 / 3, 1, 4 / 3]);
    assert.deepEqual([...c.acceptance_rate], [0, 2 / 6, 2 / 6, 3 / 6, 4 / 6]);
    assert.equal(c.eligible, 4);
    assert.equal(c.denominator, 6);
    assert.match(c.rule, /inclusive/);
  });
  await t.step("limits need not be sorted and the input is not mutated", () => {
    const input = new Float64Array([3, 1, 2]);
    const c = sloSweep(input, [2, 0, 3], { denominator: 3, measurement_seconds: 1 });
    assert.deepEqual([...c.accepted], [2, 0, 3]);
    assert.deepEqual([...input], [3, 1, 2]);
  });
  await t.step("a zero denominator gives NaN rates, bad options throw", () => {
    assert.ok(Number.isNaN(sloSweep([], [1], { denominator: 0, measurement_seconds: 1 }).acceptance_rate[0]));
    assert.throws(() => sloSweep([1, 2], [1], { denominator: 1, measurement_seconds: 1 }), RangeError);
    assert.throws(() => sloSweep([1], [1], { denominator: 1, measurement_seconds: 0 }), RangeError);
    assert.throws(() => sloSweep([1], [NaN], { denominator: 1, measurement_seconds: 1 }), RangeError);
  });
});

Deno.test("sloSweep() agrees with a naive filter per limit on random data", () => {
  for (const seed of [1, 2, 3, 42, 2026]) {
    const r = seededUniform(seed);
    const n = 500 + Math.floor(r() * 1500);
    // Log-normal-ish latencies, rounded to whole ms so ties and limits equal to a value occur; ~10 % ineligible.
    const lat = Array.from({ length: n }, () => r() < 0.1 ? null : Math.round(Math.exp(5 + 1.5 * r() * r() * 3)));
    const denominator = n + Math.floor(r() * 100); // plus requests never sent
    const limits = Array.from({ length: 300 }, () => Math.round(r() * 5000));
    const c = sloSweep(lat, limits, { denominator, measurement_seconds: 60 });
    limits.forEach((limit, i) => {
      const naive = lat.filter((v) => v !== null && v <= limit).length;
      assert.equal(c.accepted[i], naive, `seed ${seed} limit ${limit}`);
      assert.equal(c.accepted_goodput[i], naive / 60);
      assert.equal(c.acceptance_rate[i], naive / denominator);
    });
  }
});

Deno.test("sloSweep() curves are non-decreasing in the limit and end at the eligible count", () => {
  const r = seededUniform(7);
  const lat = Array.from({ length: 2000 }, () => r() * 1000);
  const limits = sweepLimits(1, 2000, { points: 1000, scale: "log" });
  const c = sloSweep(lat, limits, { denominator: 2500, measurement_seconds: 10 });
  for (let i = 1; i < limits.length; i++) {
    assert.ok(c.accepted[i]! >= c.accepted[i - 1]!, `accepted drops at ${limits[i]}`);
    assert.ok(c.acceptance_rate[i]! >= c.acceptance_rate[i - 1]!);
  }
  assert.equal(c.accepted[limits.length - 1], 2000); // every latency < 1000 ≤ 2000
  assert.equal(c.acceptance_rate[limits.length - 1], 0.8); // 2000 / 2500
});

Deno.test("sweepLimits() spaces limits evenly, both ends included", async (t) => {
  await t.step("linear", () => {
    // 0, 250, 500, 750, 1000: step (1000 − 0)/(5 − 1) = 250
    assert.deepEqual([...sweepLimits(0, 1000, { points: 5 })], [0, 250, 500, 750, 1000]);
  });
  await t.step("log: equal ratios", () => {
    // 1 · 10000^(i/4) = 1, 10, 100, 1000, 10000
    assert.deepEqual([...sweepLimits(1, 10000, { points: 5, scale: "log" })], [1, 10, 100, 1000, 10000]);
  });
  await t.step("default is 1000 points", () => assert.equal(sweepLimits(0, 1).length, 1000));
  await t.step("bad ranges throw", () => {
    assert.throws(() => sweepLimits(5, 5), RangeError);
    assert.throws(() => sweepLimits(0, 10, { scale: "log" }), RangeError);
    assert.throws(() => sweepLimits(0, 10, { points: 1 }), RangeError);
  });
});

Deno.test("sloSweep() equals a direct count at every limit, whatever the order of limits and latencies", () => {
  const r = seededUniform(7);
  for (let round = 0; round < 20; round++) {
    // Latencies and limits on a 10 ms grid so that ties (latency = limit, equal limits) happen often.
    const latencies = Array.from({ length: 1 + Math.floor(r() * 400) }, () => {
      const u = r();
      return u < 0.05 ? null : u < 0.08 ? NaN : Math.round(r() * 100) * 10;
    });
    const limits = Array.from({ length: 1 + Math.floor(r() * 60) }, () => Math.round(r() * 110 - 5) * 10);
    const c = sloSweep(latencies, limits, { denominator: latencies.length, measurement_seconds: 4 });
    const valid = latencies.filter((v): v is number => v !== null && !Number.isNaN(v));
    assert.equal(c.eligible, valid.length);
    assert.deepEqual([...c.limit_ms], limits);
    assert.deepEqual([...c.accepted], limits.map((l) => valid.filter((v) => v <= l).length));
    assert.deepEqual([...c.accepted_goodput], [...c.accepted].map((a) => a / 4));
  }
});
