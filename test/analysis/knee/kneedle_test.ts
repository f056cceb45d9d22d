import assert from "node:assert/strict";
import { kneedle } from "../../../analysis/knee/kneedle.ts";

interface Case {
  name: string;
  x: number[];
  y: number[];
  params: { S?: number; curve?: "concave" | "convex"; direction?: "increasing" | "decreasing"; online?: boolean };
  expected_knee_from_kneed_tests: number | null;
  kneed_0_8_6_observed: {
    knee: number | null;
    knee_y: number | null;
    norm_knee: number | null;
    norm_knee_y: number | null;
    all_knees: number[];
  };
}

// Third-party vectors (kneed 0.8.6 tests and the Kneedle paper's figure 2), read in place: see ../shared/data/README.md.
const VECTORS = new URL("../../../../shared/data/reference/kneed_test_vectors.json", import.meta.url);
const cases = (JSON.parse(Deno.readTextFileSync(VECTORS)) as { cases: Case[] }).cases;

const close = (a: number | null, b: number | null, tol = 1e-9) =>
  a === b || (a !== null && b !== null && Math.abs(a - b) <= tol * Math.max(1, Math.abs(b)));

Deno.test("kneedle() finds the knees of the published example curves", async (t) => {
  assert.equal(cases.length, 15);
  for (const c of cases) {
    await t.step(c.name, () => {
      const r = kneedle(c.x, c.y, c.params);
      const o = c.kneed_0_8_6_observed;
      assert.ok(close(r.knee, o.knee), `knee ${r.knee} vs ${o.knee}`);
      assert.ok(close(r.knee_y, o.knee_y), `knee_y ${r.knee_y} vs ${o.knee_y}`);
      assert.ok(close(r.norm_knee, o.norm_knee), `norm_knee ${r.norm_knee} vs ${o.norm_knee}`);
      assert.ok(close(r.norm_knee_y, o.norm_knee_y), `norm_knee_y ${r.norm_knee_y} vs ${o.norm_knee_y}`);
      if (c.expected_knee_from_kneed_tests !== null) {
        // kneed's own test tolerance (figure 2: isclose(knee, 0.22, rel_tol = 0.05)).
        const want = c.expected_knee_from_kneed_tests;
        assert.ok(Math.abs(r.knee! - want) <= 0.05 * Math.abs(want), `knee ${r.knee} vs test's ${want}`);
      } else if (o.knee === null) {
        assert.equal(r.knee, null);
        assert.ok(r.note, "a missing knee carries its reason");
      }
      if (c.name === "logistic_online") {
        // Online mode on this curve: the returned knee (73) matches, and every knee kneed lists is found. This
        // implementation also lists 88: after the local maximum at scan index 10 the difference curve reaches a local
        // minimum, the threshold resets to 0 and the next value (−0.0346) is below it, which by the paper's rule
        // declares the candidate at index 10 (x = 88); kneed 0.8.6 reports only [73, 98] for it.
        assert.deepEqual(r.all_knees.filter((k) => o.all_knees.includes(k)), o.all_knees);
        assert.deepEqual(r.all_knees, [73, 88, 98]);
      } else {
        assert.deepEqual(r.all_knees.map((k) => +k.toPrecision(12)), o.all_knees.map((k) => +k.toPrecision(12)));
      }
      // None of the published knees is a curve's first point: leaving it out changes none of them.
      assert.equal(kneedle(c.x, c.y, { ...c.params, interior: true }).knee, r.knee);
    });
  }
});

Deno.test("kneedle() on the paper's figure 2 curve shows its evidence", () => {
  // y = −1/(x + 0.1) + 5 on 10 points of [0, 1]: the knee is the third point, x = 2/9 ≈ 0.22.
  const x = Array.from({ length: 10 }, (_, i) => i / 9);
  const y = x.map((v) => -1 / (v + 0.1) + 5);
  const r = kneedle(x, y);
  assert.equal(r.knee_index, 2);
  // Difference curve: y_n − x_n; one local maximum, at the knee, with threshold y_d − S·(1/9).
  assert.equal(r.y_difference.length, 10);
  assert.equal(r.maxima.length, 1);
  assert.equal(r.maxima[0]!.index, 2);
  assert.ok(Math.abs(r.maxima[0]!.threshold - (r.y_difference[2]! - 1 / 9)) < 1e-12);
  // A larger S waits for a clearer knee: with S = 10 the curve never falls far enough.
  assert.equal(kneedle(x, y, { S: 10 }).knee, null);
});

Deno.test("kneedle() with yRange and interior, for a curve that rises, then collapses", async (t) => {
  // Goodput equal to the offered rate up to 2.5 req/s, then a collapse: the bend is at 2.5.
  const x = [1, 1.25, 1.5, 1.75, 2, 2.25, 2.5, 2.75, 3];
  const y = [1, 1.25, 1.5, 1.75, 2, 2.25, 2.5, 0.5, 0.2];
  await t.step("scaled by the whole curve, the knee is the lowest point", () => {
    // y_n = y / 2.5 = 0.4 + 0.1·i and x_n = 0.125·i up to the peak, so y_d = 0.4 − 0.025·i falls from the first point
    // on: its only maximum is the first point, threshold 0.4 − 1/8, crossed at the seventh point (0.25).
    const r = kneedle(x, y);
    assert.deepEqual(r.y_range, { min: 0.2, max: 2.5 });
    assert.deepEqual(r.maxima.map((m) => m.index), [0]);
    assert.equal(r.knee, 1);
  });
  await t.step("scaled by the rise, the first point left out, the knee is the peak", () => {
    const r = kneedle(x, y, { yRange: { min: 1, max: 2.5 }, interior: true });
    // y_n = (y − 1) / 1.5, x_n = (x − 1) / 2: y_d = i/6 − i/8 = i/24 up to the peak, then (0.5 − 1)/1.5 − 7/8.
    const want = [0, 1 / 24, 2 / 24, 3 / 24, 4 / 24, 5 / 24, 6 / 24, -1 / 3 - 7 / 8, -0.8 / 1.5 - 1];
    r.y_difference.forEach((v, i) => assert.ok(Math.abs(v - want[i]!) < 1e-12, `${i}: ${v} vs ${want[i]}`));
    assert.deepEqual(r.maxima.map((m) => m.index), [6]);
    assert.equal(r.knee, 2.5);
    assert.equal(r.knee_y, 2.5);
  });
  await t.step("interior alone: a slow start is not a knee", () => {
    // A slow start, then a steep rise that bends at 5: y_d ≈ 0, −0.14, −0.29, 0.05, 0.29, 0.15, 0. The first point
    // is a local maximum (threshold 0 − 1/6), and the difference falls below it at the third: the knee would be 1.
    // Without it, the maximum at 5 (threshold 0.29 − 1/6) is crossed at 7: the knee is 5.
    const xs = [1, 2, 3, 4, 5, 6, 7], ys = [1, 1.1, 1.15, 3, 4.5, 4.6, 4.65];
    assert.equal(kneedle(xs, ys).knee, 1);
    assert.equal(kneedle(xs, ys, { interior: true }).knee, 5);
  });
  await t.step("yRange must be a range", () => {
    assert.throws(() => kneedle(x, y, { yRange: { min: 2, max: 2 } }), /yRange/);
    assert.throws(() => kneedle(x, y, { yRange: { min: 0, max: Infinity } }), /yRange/);
  });
});

Deno.test("kneedle() refuses bad input and says why it finds no knee", async (t) => {
  await t.step("lengths differ", () => assert.throws(() => kneedle([1, 2, 3], [1, 2]), RangeError));
  await t.step("x not increasing", () => assert.throws(() => kneedle([1, 3, 2], [1, 2, 3]), /strictly increasing/));
  await t.step("not finite", () => assert.throws(() => kneedle([1, 2, 3], [1, NaN, 3]), /finite/));
  await t.step("two points", () => assert.match(kneedle([1, 2], [1, 2]).note!, /at least 3/));
  await t.step("flat curve", () => assert.match(kneedle([1, 2, 3], [5, 5, 5]).note!, /flat/));
  await t.step("a straight line has no knee", () => {
    const r = kneedle([2, 4, 8, 16], [2, 4, 8, 16]);
    assert.equal(r.knee, null);
    assert.deepEqual(r.y_difference, [0, 0, 0, 0]);
  });
});
