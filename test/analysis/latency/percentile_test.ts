import assert from "node:assert/strict";
import { earlyStoppingMinSamples, earlyStoppingTolerance } from "../../../analysis/latency/early_stopping.ts";
import { percentile, percentileWithCI, selectPercentile } from "../../../analysis/latency/percentile.ts";

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

Deno.test("percentileWithCI() flags a p99 that n cannot support (MLPerf LoadGen early stopping, 99 % one-sided)", async (t) => {
  await t.step("p99 from 60 samples is the maximum and unsupported", () => {
    // ceil(0.99·60) = 60 → the maximum; F(59) = 1 − 0.99^60 = 0.453 < 0.975 → u = 61 > n.
    const r = percentileWithCI(oneToN(60), 0.99);
    assert.equal(r.value, 60);
    assert.equal(r.upper_rank, 61);
    assert.equal(r.upper, null);
    assert.deepEqual([r.supported, r.bound, r.bound_rank, r.support_confidence], [false, null, 61, 0.99]);
    assert.match(r.note ?? "", /p99 from 60 samples is the sample maximum/);
    assert.match(r.note ?? "", /early-stopping rule at 99 % one-sided confidence needs at least 459 samples/);
  });
  await t.step("p99 from 400 samples has a 95 % CI but is unsupported at 99 %", () => {
    // Two-sided 95 %: F(399) = 1 − 0.99^400 = 0.982 ≥ 0.975 → upper rank 400 exists.
    // One-sided 99 %: 0.99^400 = 0.0180 > 0.01 → no bound (459 samples are needed).
    const r = percentileWithCI(oneToN(400), 0.99);
    assert.equal(r.value, 396); // ceil(0.99 · 400) = 396
    assert.deepEqual([r.upper_rank, r.upper], [400, 400]);
    assert.equal(r.supported, false);
    assert.match(r.note ?? "", /rank 396 of 400/);
  });
  await t.step(
    "p99 from 458 samples is unsupported, from 459 supported (0.99^458 = 0.01002, 0.99^459 = 0.00992)",
    () => {
      assert.equal(percentileWithCI(oneToN(458), 0.99).supported, false);
      const r = percentileWithCI(oneToN(459), 0.99);
      // The bound is the maximum: 0 samples above it tolerated.
      assert.deepEqual([r.supported, r.bound_rank, r.bound, r.note], [true, 459, 459, null]);
    },
  );
  await t.step("p99 from 1000 samples is supported with 2 samples above its bound", () => {
    // P[X ≤ 2 | 1000, 0.01] = 0.99^1000 + 1000·0.01·0.99^999 + C(1000,2)·0.01²·0.99^998
    //   = 4.32e-5 + 4.36e-4 + 2.20e-3 = 0.00268 ≤ 0.01; P[X ≤ 3] = 0.00268 + 7.39e-3 = 0.0101 > 0.01.
    const r = percentileWithCI(oneToN(1000), 0.99);
    assert.equal(r.supported, true);
    assert.equal(r.value, 990);
    assert.deepEqual([r.bound_rank, r.bound], [998, 998]);
    assert.ok(r.upper_rank > 990 && r.upper_rank <= r.bound_rank);
    assert.deepEqual([r.upper_rank], bruteRanks(1000, 0.99, 0.95).slice(1));
  });
  await t.step("the support confidence is an option, separate from the interval's", () => {
    // One-sided 95 %: 0.99^299 = 0.0495 ≤ 0.05 → 299 samples suffice; 0.99^298 = 0.0500 > 0.05.
    assert.equal(percentileWithCI(oneToN(299), 0.99, { supportConfidence: 0.95 }).supported, true);
    assert.equal(percentileWithCI(oneToN(298), 0.99, { supportConfidence: 0.95 }).supported, false);
    const r = percentileWithCI(oneToN(299), 0.99, { supportConfidence: 0.95 });
    assert.deepEqual([r.confidence, r.support_confidence, r.upper], [0.95, 0.95, null]); // CI still open above
    assert.throws(() => percentileWithCI(oneToN(10), 0.5, { supportConfidence: 1 }), RangeError);
  });
});

Deno.test("percentileWithCI()'s bound is LoadGen's early-stopping bound and sits above the CI's upper end", () => {
  // bound rank = n − (the most samples above it that n tolerates), computed independently by earlyStoppingTolerance
  // (a log-space binomial sum from 0 overlatency upwards).
  for (const c of [0.9, 0.95, 0.99]) {
    for (const p of [0.5, 0.9, 0.95, 0.99]) {
      for (const n of [1, 5, 7, 20, 44, 45, 89, 90, 300, 458, 459, 661, 662, 2000]) {
        const r = percentileWithCI(oneToN(n), p, { supportConfidence: c, sorted: true });
        const k = earlyStoppingTolerance(p, n, { confidence: c });
        assert.equal(r.supported, k >= 0, `supported n=${n} p=${p} c=${c}`);
        assert.equal(r.supported, n >= earlyStoppingMinSamples(p, 0, { confidence: c }), `min n n=${n} p=${p}`);
        assert.equal(r.bound_rank, k >= 0 ? n - k : n + 1, `bound rank n=${n} p=${p} c=${c}`);
        // With the default 95 % interval (upper end at one-sided 97.5 %) and c ≥ 0.975: upper ≤ bound.
        if (c >= 0.975) assert.ok(r.upper_rank <= r.bound_rank, `n=${n} p=${p}`);
      }
    }
  }
});

Deno.test("selectPercentile() finds the nearest-rank percentile of unsorted values, ties and edges included", () => {
  // A seeded mix with many ties (values 0–19) and every size from 1 to 60, against the sort-based percentile.
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let n = 1; n <= 60; n++) {
    const xs = Float64Array.from({ length: n }, () => Math.floor(next() * 20));
    const sorted = xs.slice().sort();
    for (const p of [0.01, 0.29, 0.5, 0.95, 0.99, 1]) {
      assert.equal(selectPercentile(xs.slice(), p), percentile(sorted, p), `n ${n}, p ${p}`);
    }
  }
  assert.ok(Number.isNaN(selectPercentile(new Float64Array(0), 0.5)));
  assert.throws(() => selectPercentile(new Float64Array([1]), 0), RangeError);
});
