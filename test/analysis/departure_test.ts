import assert from "node:assert/strict";
import { departure, fisherOneSided } from "../../analysis/departure.ts";
import type { Level } from "../../analysis/repeats.ts";
import type { LevelPoint, SignalSample } from "../../analysis/levels.ts";

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

/** A level whose pooled point and repeats carry only the signal `x`. */
function level(pooled: SignalSample, repeats: SignalSample[] = []): Level {
  const point = (s: SignalSample): LevelPoint => ({
    parts: [],
    planned_rps: 8,
    seconds: 10,
    offered: 80,
    offered_rps: 8,
    accepted: 0,
    accepted_goodput: 0,
    signals: { x: s },
  });
  return { planned_rps: 8, pooled: point(pooled), repeats: (repeats.length ? repeats : [pooled]).map(point) };
}

const pct = (value: number, lower: number | null, upper: number | null, n = 100): SignalSample => ({
  test: "percentile",
  value,
  n,
  lower,
  upper,
  supported: upper !== null,
});

Deno.test("departure() needs the tolerance and the guard to call a signal degraded", async (t) => {
  const tol = { rel: 0.25, abs: 100 };
  const base = pct(400, 380, 420);
  await t.step("threshold = baseline · (1 + rel) + abs", () => {
    const d = departure("x", base, level(pct(550, 500, 600)), "higher", tol, 0.05);
    assert.equal(d.threshold, 600); // 400 · 1.25 + 100
    assert.equal(d.verdict, "ok");
  });
  await t.step("beyond the threshold with disjoint intervals: degraded", () => {
    const d = departure("x", base, level(pct(700, 650, 760)), "higher", tol, 0.05);
    assert.equal(d.verdict, "degraded");
    assert.equal(d.guard.name, "ci_non_overlap");
  });
  await t.step("beyond the threshold but the intervals overlap: undecidable", () => {
    const d = departure("x", base, level(pct(700, 410, 900)), "higher", tol, 0.05);
    assert.equal(d.verdict, "undecidable");
    assert.match(d.why, /overlap/);
  });
  await t.step("lower is worse: the level's upper bound must fall below the baseline's lower bound", () => {
    const d = departure("x", pct(100, 90, 110), level(pct(20, 10, 30)), "lower", { rel: 0.5, abs: 0 }, 0.05);
    assert.equal(d.threshold, 50); // 100 · (1 − 0.5)
    assert.equal(d.verdict, "degraded");
  });
  await t.step("repeats on both sides of the threshold: undecidable, whatever the pooled value", () => {
    const d = departure(
      "x",
      base,
      level(pct(700, 650, 760), [pct(500, 450, 550), pct(900, 850, 950)]),
      "higher",
      tol,
      0.05,
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
    const d = departure("x", base, level({ test: "none", value: null, n: 0 }), "higher", tol, 0.05);
    assert.equal(d.verdict, "no data");
  });
});
