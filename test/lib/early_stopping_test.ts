import assert from "node:assert/strict";
import {
  earlyStopping,
  earlyStoppingMinSamples,
  earlyStoppingTable,
  earlyStoppingTolerance,
  percentileClaim,
  supportRuleText,
} from "../../lib/early_stopping.ts";
import { percentileWithCI } from "../../analysis/latency/percentile.ts";
import { mulberry32 } from "../../lib/prng.ts";

/**
 * The criterion by exact integer arithmetic, independent of the code under test: with p = P/100 and
 * confidence C/100, P[X ≤ k | n, 1 − p] ≤ 1 − c ⟺ Σ_{x ≤ k} C(n, x)·(100 − P)^x·P^(n − x)·100 ≤ (100 − C)·100^n.
 */
function exactSupported(n: number, k: number, P: number, C = 99): boolean {
  const N = BigInt(n), q = BigInt(100 - P), p = BigInt(P);
  let sum = 0n;
  let binom = 1n; // C(n, x)
  for (let x = 0n; x <= BigInt(k); x++) {
    if (x > 0n) binom = (binom * (N - x + 1n)) / x;
    sum += binom * q ** x * p ** (N - x);
  }
  return sum * 100n <= BigInt(100 - C) * 100n ** N;
}

Deno.test("earlyStopping() is LoadGen's test P[X ≤ k | n, 1 − p] ≤ 1 − confidence", async (t) => {
  await t.step("hand-worked: p99 with none above the bound needs 459 samples at 99 %", () => {
    // 0.99^459 = exp(459 · ln 0.99) = exp(−4.61311) = 0.009921 ≤ 0.01 → supported;
    // 0.99^458 = exp(−4.60306) = 0.010021 > 0.01 → not.
    const yes = earlyStopping(0.99, { n: 459, overlatency: 0 });
    const no = earlyStopping(0.99, { n: 458, overlatency: 0 });
    assert.ok(Math.abs(yes.odds - 0.0099210) < 1e-6, String(yes.odds));
    assert.ok(Math.abs(no.odds - 0.0100212) < 1e-6, String(no.odds));
    assert.deepEqual([yes.supported, no.supported], [true, false]);
  });
  await t.step("hand-worked: one sample above the bound at p99 needs 662 (mlperf.conf's MultiStream count)", () => {
    // P[X ≤ 1 | 662, 0.01] = 0.99^662 + 662·0.01·0.99^661 = 0.0012897 + 0.0086243 = 0.0099140 ≤ 0.01;
    // P[X ≤ 1 | 661, 0.01] = 0.99^661 + 661·0.01·0.99^660 = 0.0013028 + 0.0086982 = 0.0100010 > 0.01.
    const yes = earlyStopping(0.99, { n: 662, overlatency: 1 });
    const no = earlyStopping(0.99, { n: 661, overlatency: 1 });
    assert.ok(Math.abs(yes.odds - 0.0099140) < 1e-6, String(yes.odds));
    assert.ok(Math.abs(no.odds - 0.0100010) < 1e-6, String(no.odds));
    assert.deepEqual([yes.supported, no.supported], [true, false]);
  });
  await t.step("hand-worked: p90 with none above needs 44 (0.9^44 = 0.00970; 0.9^43 = 0.01078)", () => {
    assert.equal(earlyStopping(0.9, { n: 44, overlatency: 0 }).supported, true);
    assert.equal(earlyStopping(0.9, { n: 43, overlatency: 0 }).supported, false);
  });
  await t.step("the confidence is an option: p99 at 95 % needs 299 (0.99^299 = 0.0495 ≤ 0.05)", () => {
    assert.equal(earlyStopping(0.99, { n: 299, overlatency: 0 }, { confidence: 0.95 }).supported, true);
    assert.equal(earlyStopping(0.99, { n: 298, overlatency: 0 }, { confidence: 0.95 }).supported, false);
  });
  await t.step("agrees with exact integer arithmetic for every n ≤ 700, k ≤ 3 at p90/p95/p99", () => {
    for (const P of [90, 95, 99]) {
      for (let k = 0; k <= 3; k++) {
        for (let n = k; n <= 700; n++) {
          assert.equal(
            earlyStopping(P / 100, { n, overlatency: k }).supported,
            exactSupported(n, k, P),
            `n=${n} k=${k} p=${P}`,
          );
        }
      }
    }
  });
  await t.step("p = 1 is never supported; bad counts and confidences throw", () => {
    assert.equal(earlyStopping(1, { n: 1_000_000, overlatency: 0 }).supported, false);
    assert.throws(() => earlyStopping(0.99, { n: 10, overlatency: 11 }), RangeError);
    assert.throws(() => earlyStopping(0.99, { n: 1.5, overlatency: 0 }), RangeError);
    assert.throws(() => earlyStopping(0.99, { n: 10, overlatency: 0 }, { confidence: 1 }), RangeError);
    assert.throws(() => earlyStopping(0, { n: 10, overlatency: 0 }), RangeError);
  });
  await t.step("nothing underflows for millions of samples", () => {
    // 0.99^1e6 underflows a double; the log-space sum does not. k = 9900 of 1e6 is 1 % below the expected 10,000
    // (z ≈ −1.0: not supported); k = 9700 is z ≈ −3.0, P ≈ 0.0013 ≤ 0.01 (supported).
    assert.equal(earlyStopping(0.99, { n: 1_000_000, overlatency: 9_900 }).supported, false);
    assert.equal(earlyStopping(0.99, { n: 1_000_000, overlatency: 9_700 }).supported, true);
  });
});

Deno.test("earlyStoppingMinSamples() gives the minimum n for k = 0..10 tolerated at p90/p95/p99 (99 %)", async (t) => {
  // k = 0 in closed form: n ≥ ln(0.01)/ln p: p90 43.71 → 44, p95 89.78 → 90, p99 458.21 → 459.
  // k ≥ 1: the rows below are checked at both sides of the threshold by exact integer arithmetic.
  const expected: Record<number, number[]> = {
    90: [44, 64, 81, 97, 113, 127, 142, 156, 170, 183, 197],
    95: [90, 130, 165, 198, 229, 259, 288, 316, 344, 371, 398],
    99: [459, 662, 838, 1001, 1157, 1307, 1453, 1596, 1736, 1874, 2010],
  };
  await t.step("the table", () => {
    const rows = earlyStoppingTable([0.9, 0.95, 0.99], 10);
    for (const P of [90, 95, 99]) {
      assert.deepEqual(rows.filter((r) => r.p === P / 100).map((r) => r.min_n), expected[P], `p${P}`);
    }
    assert.deepEqual(rows.slice(0, 2), [{ p: 0.9, tolerated: 0, min_n: 44 }, { p: 0.9, tolerated: 1, min_n: 64 }]);
  });
  await t.step("each entry is the first n that passes (exact arithmetic at n and n − 1)", () => {
    for (const P of [90, 95, 99]) {
      expected[P]!.forEach((n, k) => {
        assert.equal(earlyStoppingMinSamples(P / 100, k), n);
        assert.ok(exactSupported(n, k, P), `n=${n} k=${k} p${P} passes`);
        assert.ok(!exactSupported(n - 1, k, P), `n=${n - 1} k=${k} p${P} fails`);
      });
    }
  });
  await t.step("docs/percentiles.md prints the same table", () => {
    const doc = Deno.readTextFileSync(new URL("../../docs/percentiles.md", import.meta.url));
    for (const P of [90, 95, 99]) {
      const line = new RegExp(`^\\| p${P}\\s+\\|(.*)\\|$`, "m").exec(doc)?.[1];
      assert.ok(line, `p${P} row`);
      assert.deepEqual(line.split("|").map((c) => Number(c.trim())), expected[P], `p${P}`);
    }
  });
  await t.step("MLPerf's own setting: mlperf.conf's MultiStream min_query_count is the p99 count with k = 1", () => {
    // LoadGen's MultiStream early stopping needs h_min + 1 queries for t = 1 at its 99th percentile; the
    // shipped config (read in place, ../shared/data/reference) sets *.MultiStream.min_query_count = 662.
    const conf = Deno.readTextFileSync(
      new URL("../../../shared/data/reference/mlperf_loadgen_mlperf.conf", import.meta.url),
    );
    const count = Number(/^\*\.MultiStream\.min_query_count = (\d+)/m.exec(conf)?.[1]);
    const pct = Number(/^\*\.MultiStream\.target_latency_percentile = (\d+)/m.exec(conf)?.[1]);
    assert.deepEqual([count, pct], [662, 99]);
    assert.equal(earlyStoppingMinSamples(pct / 100, 1), count);
  });
  await t.step("p = 1 needs infinitely many; the tolerated count must be a count", () => {
    assert.equal(earlyStoppingMinSamples(1, 0), Infinity);
    assert.throws(() => earlyStoppingMinSamples(0.99, -1), RangeError);
  });
});

Deno.test("earlyStoppingTolerance() is the most samples above the bound that n tolerates", () => {
  for (const P of [90, 95, 99]) {
    for (const n of [10, 43, 44, 100, 459, 662, 1000, 2500]) {
      const k = earlyStoppingTolerance(P / 100, n);
      if (k >= 0) assert.ok(exactSupported(n, k, P), `n=${n} k=${k} p${P}`);
      assert.ok(!exactSupported(n, k + 1, P), `n=${n} k=${k + 1} p${P}`);
    }
  }
  // 1000 samples at p99: P[X ≤ 2] = 0.00268 ≤ 0.01 < P[X ≤ 3] = 0.0101 → 2.
  assert.equal(earlyStoppingTolerance(0.99, 1000), 2);
  assert.equal(earlyStoppingTolerance(0.99, 458), -1);
});

Deno.test("percentileClaim() checks 'p-percentile ≤ bound' against samples", async (t) => {
  await t.step("MLPerf llama2-70b server TTFT: p99 ≤ 2000 ms with 2 of 1000 above is supported", () => {
    // 998 samples at 1500 ms, 2 at 2500 ms. P[X ≤ 2 | 1000, 0.01] = 0.00268 ≤ 0.01.
    const ttft = [...Array(998).fill(1500), 2500, 2500];
    const r = percentileClaim(ttft, { p: 0.99, bound: 2000 });
    assert.deepEqual([r.n, r.overlatency, r.supported, r.min_n], [1000, 2, true, 838]);
    assert.ok(Math.abs(r.odds - 0.0026794) < 1e-6, String(r.odds));
    assert.match(r.note, /p99 ≤ 2000 is supported \(MLPerf LoadGen early stopping, 99 % one-sided confidence\)/);
    assert.match(r.note, /2 of 1000 samples above 2000; P\[X ≤ 2 \| n = 1000, 1 − p = 0.01\] = 0.00268 ≤ 0.01/);
  });
  await t.step("with 3 above, 1000 samples are not enough: 1001 are (P[X ≤ 3] = 0.0101 > 0.01)", () => {
    const ttft = [...Array(997).fill(1500), 2500, 2500, 2500];
    const r = percentileClaim(ttft, { p: 0.99, bound: 2000 });
    assert.deepEqual([r.overlatency, r.supported, r.min_n], [3, false, 1001]);
    assert.match(r.note, /is not supported .* needs at least 1001 samples/);
  });
  await t.step("a sample equal to the bound is not above it (LoadGen counts latency > bound)", () => {
    const r = percentileClaim([...Array(458).fill(10), 20], { p: 0.99, bound: 20 });
    assert.deepEqual([r.overlatency, r.supported], [0, true]); // 0.99^459 ≤ 0.01
  });
  await t.step("NaN is refused", () => {
    assert.throws(() => percentileClaim([1, NaN], { p: 0.5, bound: 1 }), RangeError);
  });
});

Deno.test("percentileClaim() supports 'p ≤ V' exactly when V reaches percentileWithCI()'s bound", () => {
  const rand = mulberry32(20261201);
  for (let trial = 0; trial < 200; trial++) {
    const n = 1 + Math.floor(rand() * 1500);
    // Integer latencies so ties occur; a bound drawn over the same range.
    const values = Array.from({ length: n }, () => Math.floor(rand() * 300));
    const p = [0.5, 0.9, 0.95, 0.99][trial % 4]!;
    const c = [0.9, 0.95, 0.99][trial % 3]!;
    const row = percentileWithCI(values, p, { supportConfidence: c });
    for (const v of [row.bound, row.bound === null ? null : row.bound - 1, Math.floor(rand() * 300)]) {
      if (v === null) continue;
      const claim = percentileClaim(values, { p, bound: v }, { confidence: c });
      assert.equal(claim.supported, row.bound !== null && v >= row.bound, `n=${n} p=${p} c=${c} v=${v}`);
    }
  }
});

Deno.test("supportRuleText() names the rule, the confidence and the minimum n of each percentile", () => {
  assert.equal(
    supportRuleText([0.99, 0.95, 0.99]),
    "supported = MLPerf LoadGen's early-stopping rule at 99 % one-sided confidence (n ≥ 90 for p95, 459 for p99)",
  );
  // ln(0.1)/ln(0.99) = 229.1 → 230.
  assert.match(supportRuleText([0.99], { confidence: 0.9 }), /at 90 % one-sided confidence \(n ≥ 230 for p99\)/);
});
