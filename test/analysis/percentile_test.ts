import assert from "node:assert/strict";
import { minSamplesFor, percentile, percentileWithCI } from "../../analysis/percentile.ts";

/** x = 1..n, so a rank and its value coincide. */
function oneToN(n: number): Float64Array {
  return Float64Array.from({ length: n }, (_, i) => i + 1);
}

/** Brute-force binomial CDF table F(0..n), F(k) = Σ_{j ≤ k} C(n, j) pʲ (1 − p)ⁿ⁻ʲ, each C(n, j) by its product. */
function bruteCdf(n: number, p: number): number[] {
  const cdf: number[] = [];
  let sum = 0;
  for (let j = 0; j <= n; j++) {
    let c = 1;
    for (let i = 1; i <= j; i++) c = c * (n - j + i) / i;
    sum += c * p ** j * (1 - p) ** (n - j);
    cdf.push(sum);
  }
  return cdf;
}

/** The interval ranks by their definition, from the brute-force CDF. */
function bruteRanks(n: number, p: number, confidence: number): [number, number] {
  const half = (1 - confidence) / 2;
  const cdf = bruteCdf(n, p);
  let lower = 0;
  for (let l = 1; l <= n; l++) if (cdf[l - 1]! <= half) lower = l;
  let upper = n + 1;
  for (let u = 1; u <= n; u++) {
    if (cdf[u - 1]! >= 1 - half) {
      upper = u;
      break;
    }
  }
  return [lower, upper];
}

Deno.test("percentile() is the nearest rank x(ceil(p·n))", async (t) => {
  const x = new Float64Array([10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
  await t.step("p50 of 10 is rank 5", () => assert.equal(percentile(x, 0.5), 50));
  await t.step("p95 of 10 is rank ceil(9.5) = 10", () => assert.equal(percentile(x, 0.95), 100));
  await t.step("p11 of 10 is rank ceil(1.1) = 2", () => assert.equal(percentile(x, 0.11), 20));
  await t.step("p29 of 100 is rank 29 despite 0.29·100 = 28.999…", () => {
    assert.equal(percentile(oneToN(100), 0.29), 29);
  });
  await t.step("empty gives NaN, p outside (0, 1] throws", () => {
    assert.ok(Number.isNaN(percentile(new Float64Array(0), 0.5)));
    assert.throws(() => percentile(x, 0), RangeError);
    assert.throws(() => percentile(x, 1.5), RangeError);
  });
});

Deno.test("percentileWithCI() gives the order-statistic interval from the binomial CDF", async (t) => {
  await t.step("n = 20, p = 0.5, 95 %: ranks 6 and 15", () => {
    // Binomial(20, 0.5): F(5) = 21700/2^20 = 0.0207 ≤ 0.025 < F(6) = 0.0577 → l = 6;
    // F(13) = 0.9423 < 0.975 ≤ F(14) = 0.9793 → u = 15. Coverage F(14) − F(5) = 0.9586.
    const values = [...oneToN(20)].reverse().map((v) => v * 2); // unsorted input, x(k) = 2k
    const r = percentileWithCI(values, 0.5);
    assert.equal(r.n, 20);
    assert.equal(r.value, 20); // rank 10 → 2·10
    assert.equal(r.lower_rank, 6);
    assert.equal(r.upper_rank, 15);
    assert.equal(r.lower, 12);
    assert.equal(r.upper, 30);
    assert.equal(r.supported, true);
    assert.equal(r.note, null);
  });
  await t.step("n = 10, p = 0.9, 90 %: ranks 7 and 11 (unbounded)", () => {
    // Binomial(10, 0.9): F(6) = 0.0128 ≤ 0.05 < F(7) = 0.0702 → l = 7;
    // F(9) = 1 − 0.9^10 = 0.6513 < 0.95 → no u ≤ 10.
    const r = percentileWithCI(oneToN(10), 0.9, { confidence: 0.9, sorted: true });
    assert.deepEqual([r.lower_rank, r.upper_rank, r.lower, r.upper, r.supported], [7, 11, 7, null, false]);
  });
  await t.step("agrees with a brute-force CDF for every n ≤ 60 and several p", () => {
    for (const confidence of [0.9, 0.95, 0.99]) {
      for (const p of [0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99]) {
        for (let n = 1; n <= 60; n++) {
          const r = percentileWithCI(oneToN(n), p, { confidence, sorted: true });
          assert.deepEqual([r.lower_rank, r.upper_rank], bruteRanks(n, p, confidence), `n=${n} p=${p} c=${confidence}`);
        }
      }
    }
  });
  await t.step("agrees with the normal approximation for n = 1,000,000", () => {
    // Ranks ≈ n·p ± z·√(n·p·(1 − p)) (+1 for the ≤ → rank shift), z = 1.96: for p = 0.99, σ = 99.5
    // → l ≈ 989805, u ≈ 990196; the continuity and skew corrections are a few ranks at most.
    const n = 1_000_000;
    const x = oneToN(n);
    for (const p of [0.5, 0.95, 0.99]) {
      const r = percentileWithCI(x, p, { sorted: true });
      const sd = Math.sqrt(n * p * (1 - p));
      assert.ok(Math.abs(r.lower_rank - (n * p - 1.959964 * sd)) <= 3, `lower p=${p}: ${r.lower_rank}`);
      assert.ok(Math.abs(r.upper_rank - (n * p + 1.959964 * sd)) <= 3, `upper p=${p}: ${r.upper_rank}`);
      assert.equal(r.supported, true);
    }
  });
  await t.step("empty input has no value and is not supported; NaN is rejected", () => {
    const r = percentileWithCI([], 0.5);
    assert.deepEqual([r.value, r.n, r.supported], [null, 0, false]);
    assert.throws(() => percentileWithCI([1, NaN], 0.5), RangeError);
  });
});

Deno.test("percentileWithCI() flags a p99 that n cannot support", async (t) => {
  await t.step("p99 from 60 samples is the maximum and unsupported", () => {
    // ceil(0.99·60) = 60 → the maximum; F(59) = 1 − 0.99^60 = 0.453 < 0.975 → u = 61 > n.
    const r = percentileWithCI(oneToN(60), 0.99);
    assert.equal(r.value, 60);
    assert.equal(r.upper_rank, 61);
    assert.equal(r.upper, null);
    assert.equal(r.supported, false);
    assert.match(r.note ?? "", /p99 from 60 samples is the sample maximum/);
    assert.match(r.note ?? "", /at least 368 samples/);
  });
  await t.step("p99 from 300 samples is still unsupported (1 − 0.99^299 = 0.9505 < 0.975)", () => {
    const r = percentileWithCI(oneToN(300), 0.99);
    assert.equal(r.value, 297); // ceil(297) = 297
    assert.equal(r.supported, false);
    assert.match(r.note ?? "", /rank 297 of 300/);
  });
  await t.step("p99 from 1000 samples is supported", () => {
    // Binomial(1000, 0.99): mean 990, sd 3.15; F(995) ≈ 0.986 ≥ 0.975 → u ≈ 996 ≤ 1000.
    const r = percentileWithCI(oneToN(1000), 0.99);
    assert.equal(r.supported, true);
    assert.equal(r.value, 990);
    assert.ok(r.upper_rank > 990 && r.upper_rank <= 1000);
    assert.deepEqual([r.upper_rank], bruteRanks(1000, 0.99, 0.95).slice(1));
  });
});

Deno.test("minSamplesFor() is the first n at which the upper bound exists", async (t) => {
  await t.step("hand-computed values", () => {
    // n ≥ ln(α/2)/ln p: p99 95 % → ln 0.025/ln 0.99 = 367.04 → 368; p99 99 % → ln 0.005/ln 0.99 = 527.2 → 528;
    // p50 95 % → ln 0.025/ln 0.5 = 5.32 → 6; p90 95 % → 35.01 → 36.
    assert.equal(minSamplesFor(0.99, 0.95), 368);
    assert.equal(minSamplesFor(0.99, 0.99), 528);
    assert.equal(minSamplesFor(0.5, 0.95), 6);
    assert.equal(minSamplesFor(0.9, 0.95), 36);
    assert.equal(minSamplesFor(1, 0.95), Infinity);
  });
  await t.step("matches percentileWithCI's flag on both sides of the threshold", () => {
    for (const [p, c] of [[0.99, 0.95], [0.95, 0.9], [0.5, 0.99], [0.999, 0.95]] as const) {
      const need = minSamplesFor(p, c);
      assert.equal(percentileWithCI(oneToN(need), p, { confidence: c, sorted: true }).supported, true);
      assert.equal(percentileWithCI(oneToN(need - 1), p, { confidence: c, sorted: true }).supported, false);
    }
  });
});
