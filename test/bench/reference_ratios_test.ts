/**
 * The figures bench/reference_bench.ts prints: nearest-rank send-lag quantiles, the median and range over rounds of
 * the ratios runner / reference, and whether a sender kept pace. Hand-computed cases, then each against an
 * independent computation written here.
 */
import assert from "node:assert/strict";
import { keptPace, median, rateRatios, type StepFigures } from "../../bench/_reference_ratios.ts";
import { lagStats, nearestRank } from "../../bench/_runner_step.ts";

/** A small seeded generator (xorshift32), so the random cases are the same every run. */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13, s >>>= 0, s ^= s >>> 17, s ^= s << 5, s >>>= 0;
    return s / 2 ** 32;
  };
}

Deno.test("nearestRank() takes the element at rank ⌈p·n⌉ of the sorted values", async (t) => {
  await t.step("by hand", () => {
    const xs = [1, 2, 3, 4, 5];
    assert.equal(nearestRank(xs, 0.5), 3); // ⌈0.5 × 5⌉ = ⌈2.5⌉ = 3rd
    assert.equal(nearestRank(xs, 0.99), 5); // ⌈4.95⌉ = 5th
    assert.equal(nearestRank(xs, 0.2), 1); // ⌈1.0⌉ = 1st: an exact rank is not rounded up
    assert.deepEqual(lagStats([0.4, null, 0.1, 0.3, 0.2]), { n: 4, p50_ms: 0.2, p99_ms: 0.4, max_ms: 0.4 }); // ⌈2⌉, ⌈3.96⌉
  });
  await t.step("against the definition: the least value with at least p·n values at or below it", () => {
    const next = rng(7);
    for (let trial = 0; trial < 200; trial++) {
      const n = 1 + Math.floor(next() * 60);
      const xs = Array.from({ length: n }, () => Math.floor(next() * 20)); // ties on purpose
      const sorted = [...xs].sort((a, b) => a - b);
      for (const p of [0.01, 0.25, 0.5, 0.9, 0.99, 1]) {
        const least = Math.min(...xs.filter((x) => xs.filter((y) => y <= x).length >= p * n));
        assert.equal(nearestRank(sorted, p), least, `n=${n} p=${p}`);
      }
    }
  });
});

Deno.test("median() is the middle value, or the mean of the two middle ones", async (t) => {
  await t.step("by hand", () => {
    assert.equal(median([7, 1, 3]), 3);
    assert.equal(median([10, 2, 4, 8]), 6); // (4 + 8) / 2
    assert.ok(Number.isNaN(median([])));
  });
  await t.step("against peeling the smallest and largest off until one or two are left", () => {
    const next = rng(11);
    for (let trial = 0; trial < 200; trial++) {
      const xs = Array.from({ length: 1 + Math.floor(next() * 9) }, () => Math.round(next() * 100) / 10);
      const left = [...xs];
      while (left.length > 2) {
        left.splice(left.indexOf(Math.min(...left)), 1);
        left.splice(left.indexOf(Math.max(...left)), 1);
      }
      const expected = left.length === 1 ? left[0]! : (left[0]! + left[1]!) / 2;
      assert.ok(Math.abs(median(xs) - expected) < 1e-12, JSON.stringify(xs));
    }
  });
});

const step = (o: Partial<StepFigures> & Pick<StepFigures, "rate" | "round">): StepFigures => ({
  requests: 3000,
  ok: 3000,
  not_sent: 0,
  cpu_ms: 300,
  p99_ms: 1,
  max_ms: 2,
  completed_rps: o.rate,
  ...o,
});

Deno.test("rateRatios() pairs the senders by rate and round: ratios per round, their median and range", async (t) => {
  const runner = [
    step({ rate: 500, round: 1, cpu_ms: 300, p99_ms: 2, max_ms: 8 }),
    step({ rate: 500, round: 2, cpu_ms: 330, p99_ms: 1.5, max_ms: 6, completed_rps: 480 }),
    step({ rate: 500, round: 3, cpu_ms: 360, p99_ms: 3, max_ms: 9 }),
    step({ rate: 50, round: 1, requests: 300, cpu_ms: 450, p99_ms: 1 }),
    step({ rate: 50, round: 2, requests: 300, cpu_ms: 600, p99_ms: 1 }),
  ];
  const reference = [
    step({ rate: 500, round: 1, cpu_ms: 100, p99_ms: 1, max_ms: 4 }),
    step({ rate: 500, round: 2, cpu_ms: 110, p99_ms: 1.5, max_ms: 2 }),
    step({ rate: 500, round: 3, cpu_ms: 90, p99_ms: 1.2, max_ms: 3 }),
    step({ rate: 50, round: 1, requests: 300, cpu_ms: 150, p99_ms: 2 }), // round 2 missing: left out
  ];
  const [at50, at500] = rateRatios(runner, reference);
  await t.step("by hand", () => {
    // CPU per request: 300/3000 ÷ 100/3000 = 3, 330 ÷ 110 = 3, 360 ÷ 90 = 4 → median 3, range 3–4.
    assert.deepEqual(at500!.cpu_per_request, { rounds: [3, 3, 4], median: 3, min: 3, max: 4 });
    // p99: 2 ÷ 1 = 2, 1.5 ÷ 1.5 = 1, 3 ÷ 1.2 = 2.5 → median 2, range 1–2.5.
    assert.deepEqual(at500!.p99_lag.rounds.map((x) => +x.toFixed(12)), [2, 1, 2.5]);
    assert.equal(at500!.p99_lag.median, 2);
    // max: 8 ÷ 4 = 2, 6 ÷ 2 = 3, 9 ÷ 3 = 3 → median 3.
    assert.deepEqual(at500!.max_lag, { rounds: [2, 3, 3], median: 3, min: 2, max: 3 });
    // Round 2 of the runner answered 480 req/s of 500: below 98 % (490).
    assert.equal(at500!.runner_kept_pace, false);
    assert.equal(at500!.reference_kept_pace, true);
    // At 50 req/s only round 1 is paired: 450 ÷ 150 = 3.
    assert.deepEqual(at50!.cpu_per_request.rounds, [3]);
    assert.equal(at50!.p99_lag.median, 0.5);
  });
  await t.step("against the ratios computed round by round here", () => {
    for (const r of [at50!, at500!]) {
      const rounds = runner.filter((s) => s.rate === r.rate).map((s) => s.round)
        .filter((k) => reference.some((s) => s.rate === r.rate && s.round === k));
      const pick = (xs: StepFigures[], k: number) => xs.find((s) => s.rate === r.rate && s.round === k)!;
      const cpu = rounds.map((k) =>
        (pick(runner, k).cpu_ms / pick(runner, k).requests) / (pick(reference, k).cpu_ms / pick(reference, k).requests)
      );
      assert.deepEqual(r.cpu_per_request.rounds, cpu);
      assert.equal(r.cpu_per_request.min, cpu.reduce((a, b) => a < b ? a : b));
      assert.equal(r.cpu_per_request.max, cpu.reduce((a, b) => a > b ? a : b));
      assert.deepEqual(r.max_lag.rounds, rounds.map((k) => pick(runner, k).max_ms / pick(reference, k).max_ms));
    }
  });
});

Deno.test("keptPace() asks for every request answered and completions at 98 % of the rate", () => {
  const s = step({ rate: 500, round: 1 });
  assert.equal(keptPace({ ...s, completed_rps: 490 }), true); // 0.98 × 500 = 490: enough
  assert.equal(keptPace({ ...s, completed_rps: 489.9 }), false);
  assert.equal(keptPace({ ...s, ok: 2999 }), false);
  assert.equal(keptPace({ ...s, not_sent: 1, ok: 2999 }), false);
});
