import assert from "node:assert/strict";
import { confusionMatrix, wilsonInterval } from "../../../analysis/quality/binary_rates.ts";
import { cohenKappa } from "../../../analysis/quality/cohen_kappa.ts";
import { normalQuantile } from "../../../lib/normal_quantile.ts";
import { mulberry32 } from "../../../lib/prng.ts";

/**
 * The Wilson interval by its definition: the set of π whose score test accepts, |p̂ − π| ≤ z·√(π(1 − π)/n),
 * its ends found by bisection on each side of p̂.
 */
function scoreTestInterval(s: number, n: number, level: number): [number, number] {
  const p = s / n, z = normalQuantile((1 + level) / 2);
  const accepts = (pi: number) => Math.abs(p - pi) <= z * Math.sqrt(pi * (1 - pi) / n);
  const edge = (inside: number, outside: number) => {
    for (let i = 0; i < 200; i++) {
      const mid = (inside + outside) / 2;
      if (accepts(mid)) inside = mid;
      else outside = mid;
    }
    return inside;
  };
  return [s === 0 ? 0 : edge(p, 0), s === n ? 1 : edge(p, 1)];
}

Deno.test("wilsonInterval() reproduces Newcombe (1998), Table I, method 3, to four decimals", () => {
  const table: [number, number, string, string][] = [
    [81, 263, "0.2553", "0.3662"],
    [15, 148, "0.0624", "0.1605"],
    [0, 20, "0.0000", "0.1611"],
    [1, 29, "0.0061", "0.1718"],
    [29, 29, "0.8830", "1.0000"],
  ];
  for (const [s, n, low, high] of table) {
    const w = wilsonInterval(s, n);
    assert.deepEqual([w.low.toFixed(4), w.high.toFixed(4)], [low, high], `${s}/${n}`);
    assert.deepEqual([w.n, w.successes, w.level, w.method], [n, s, 0.95, "wilson"]);
  }
});

Deno.test("wilsonInterval() of 8/10 by hand", () => {
  // z = 1.959964, z² = 3.841459, z²/n = 0.3841459.
  // centre = (0.8 + 3.841459/20)/1.3841459 = 0.9920729/1.3841459 = 0.7167402
  // half = 1.959964·√(0.8·0.2/10 + 3.841459/400)/1.3841459 = 1.959964·√0.0256036/1.3841459 = 0.2265777
  // → [0.7167402 − 0.2265777, 0.7167402 + 0.2265777] = [0.4901625, 0.9433179]
  const w = wilsonInterval(8, 10);
  assert.equal(w.estimate, 0.8);
  assert.ok(Math.abs(w.low - 0.4901625) < 1e-6, `${w.low}`);
  assert.ok(Math.abs(w.high - 0.9433179) < 1e-6, `${w.high}`);
});

Deno.test("wilsonInterval() is the score test inverted, at several levels", () => {
  const rand = mulberry32(21);
  for (let i = 0; i < 40; i++) {
    const n = 1 + Math.floor(rand() * 500), s = Math.floor(rand() * (n + 1));
    for (const level of [0.8, 0.95, 0.99]) {
      const w = wilsonInterval(s, n, { level });
      const [low, high] = scoreTestInterval(s, n, level);
      assert.ok(Math.abs(w.low - low) < 1e-9 && Math.abs(w.high - high) < 1e-9, `${s}/${n} at ${level}`);
    }
  }
});

Deno.test("wilsonInterval() edge cases", () => {
  assert.deepEqual(wilsonInterval(0, 0), {
    estimate: null,
    low: 0,
    high: 1,
    n: 0,
    successes: 0,
    level: 0.95,
    method: "wilson",
  });
  assert.equal(wilsonInterval(0, 7).low, 0);
  assert.equal(wilsonInterval(7, 7).high, 1);
  assert.throws(() => wilsonInterval(3, 2), /successes must not exceed n/);
  assert.throws(() => wilsonInterval(1.5, 2), RangeError);
  assert.throws(() => wilsonInterval(-1, 2), RangeError);
  assert.throws(() => wilsonInterval(1, 2, { level: 0 }), /level/);
});

const items = (truth: boolean, judged: boolean, times: number) =>
  Array.from({ length: times }, () => ({ truth, judged }));

Deno.test("confusionMatrix() counts, rates and kappa by hand", () => {
  // tp 40, fn 10, tn 45, fp 5 (n = 100)
  const m = confusionMatrix([
    ...items(true, true, 40),
    ...items(true, false, 10),
    ...items(false, false, 45),
    ...items(false, true, 5),
  ]);
  assert.deepEqual([m.tp, m.fn, m.tn, m.fp, m.n], [40, 10, 45, 5, 100]);
  // sensitivity 40/50 = 0.8, specificity 45/50 = 0.9, accuracy 85/100
  assert.deepEqual([m.sensitivity.estimate, m.specificity.estimate, m.accuracy.estimate], [0.8, 0.9, 0.85]);
  assert.deepEqual(m.sensitivity, wilsonInterval(40, 50));
  assert.deepEqual(m.specificity, wilsonInterval(45, 50));
  // truth passes 50/100, judge passes 45/100: p_e = 0.5·0.45 + 0.5·0.55 = 0.5; κ = (0.85 − 0.5)/0.5 = 0.7
  assert.ok(Math.abs(m.kappa.kappa! - 0.7) < 1e-12);
  assert.deepEqual(m.kappa.categories, ["fail", "pass"]);
});

Deno.test("confusionMatrix()'s kappa is cohenKappa() on the pass/fail labels, interval included", () => {
  const rand = mulberry32(8);
  const pairs = Array.from({ length: 120 }, () => {
    const truth = rand() < 0.4;
    return { truth, judged: rand() < 0.85 ? truth : !truth };
  });
  const label = (b: boolean) => (b ? "pass" : "fail");
  const m = confusionMatrix(pairs, { seed: 4, resamples: 300, level: 0.9 });
  assert.deepEqual(
    m.kappa,
    cohenKappa(pairs.map((p) => [label(p.truth), label(p.judged)] as const), { seed: 4, resamples: 300, level: 0.9 }),
  );
  assert.equal(m.sensitivity.level, 0.9);
});

Deno.test("confusionMatrix() edge cases", async (t) => {
  await t.step("no items: every rate null, kappa undefined", () => {
    const m = confusionMatrix([]);
    assert.deepEqual([m.n, m.sensitivity.estimate, m.specificity.estimate, m.accuracy.estimate], [0, null, null, null]);
    assert.equal(m.kappa.kappa, null);
  });
  await t.step("no truly failing item: specificity is unknown, not 0", () => {
    const m = confusionMatrix([...items(true, true, 3), ...items(true, false, 1)]);
    assert.deepEqual([m.specificity.estimate, m.specificity.low, m.specificity.high], [null, 0, 1]);
  });
  await t.step("a perfect judge: both rates 1, κ = 1", () => {
    const m = confusionMatrix([...items(true, true, 5), ...items(false, false, 5)]);
    assert.deepEqual([m.sensitivity.estimate, m.specificity.estimate, m.kappa.kappa], [1, 1, 1]);
  });
  await t.step("refuses a row without a boolean", () => {
    assert.throws(() => confusionMatrix([{ truth: true, judged: "yes" as unknown as boolean }]), /pairs\[0\]\.judged/);
  });
});
