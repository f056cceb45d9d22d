import assert from "node:assert/strict";
import { HEADROOM_CHOICES, HEADROOM_NOTE, productionLimit, rateText } from "../../../analysis/knee/limit.ts";
import { InputError } from "../../../schema/errors.ts";

Deno.test("productionLimit() never applies a headroom silently", async (t) => {
  await t.step("no headroom: no limit, the choices and the note that choosing is a business decision", () => {
    const l = productionLimit(10);
    assert.equal(l.headroom, null);
    assert.equal(l.limit_rps, null);
    assert.equal(l.note, HEADROOM_NOTE);
    assert.match(l.note, /business decision/);
    // 10 × (1 − h) for h = 0.1, 0.2, 0.3, 0.5
    assert.deepEqual(l.choices, HEADROOM_CHOICES.map((h, i) => ({ headroom: h, limit_rps: [9, 8, 7, 5][i] })));
  });
  await t.step("a given headroom is applied and said to be the user's", () => {
    const l = productionLimit(10, 0.3);
    assert.equal(l.headroom, 0.3);
    assert.equal(l.limit_rps, 7); // 10 × (1 − 0.3)
    assert.match(l.note, /given by the user/);
  });
  await t.step("a headroom of 0 is a choice too: limit = knee", () => {
    assert.equal(productionLimit(7.5, 0).limit_rps, 7.5);
  });
  await t.step("no knee: no limit and no choices, whatever the headroom", () => {
    const l = productionLimit(null, 0.3, { highestTestedRps: 16 });
    assert.equal(l.limit_rps, null);
    assert.deepEqual(l.choices, []);
    assert.match(l.note, /no knee within the tested range \(highest offered rate 16 req\/s\)/);
  });
});

Deno.test("productionLimit() refuses a headroom outside [0, 1)", () => {
  for (const h of [1, 1.5, -0.1, NaN]) {
    assert.throws(() => productionLimit(10, h), (e) => e instanceof InputError && /--headroom/.test(e.message));
  }
});

Deno.test("productionLimit() keeps the exact limit and rounds it down only in text", async (t) => {
  await t.step("7.5 × (1 − 0.095) = 6.7875: exact in the result, 6.787 (rounded down) in the note", () => {
    const l = productionLimit(7.5, 0.095);
    // The decimal product, not the float one (7.5 * (1 - 0.095) = 6.7875000000000005).
    assert.equal(l.limit_rps, 6.7875);
    assert.equal(JSON.stringify(l.limit_rps), "6.7875");
    assert.match(l.note, /= 7\.5 × \(1 − 0\.095\) = 6\.787 req\/s \(rounded down\);/);
    assert.doesNotMatch(l.note, /6\.788/);
  });
  await t.step("the choices are exact: 9.0523 × (1 − h) for h = 0.1, 0.2, 0.3, 0.5", () => {
    // 9.0523 × 0.9 = 8.14707; × 0.8 = 7.24184; × 0.7 = 6.33661; × 0.5 = 4.52615.
    const l = productionLimit(9.0523);
    assert.deepEqual(l.choices.map((c) => c.limit_rps), [8.14707, 7.24184, 6.33661, 4.52615]);
  });
  await t.step("a knee shown in the note is rounded down too", () => {
    // 9.0523 → 9.052; 9.0523 × 0.8 = 7.24184 → 7.241 (both below the exact values).
    assert.match(
      productionLimit(9.0523, 0.2).note,
      /= 9\.052 \(rounded down\) × \(1 − 0\.2\) = 7\.241 req\/s \(rounded down\)/,
    );
  });
  await t.step("no knee: the highest rate tested is a lower bound, rounded down", () => {
    // 16.00049 → 16.00 shown as 16 (below the exact rate).
    assert.match(productionLimit(null, undefined, { highestTestedRps: 16.00049 }).note, /16 req\/s \(rounded down\)/);
  });
});

Deno.test("rateText() rounds down and says so only when it did", () => {
  assert.equal(rateText(6.7875), "6.787 req/s (rounded down)");
  assert.equal(rateText(7.6), "7.6 req/s");
  assert.equal(rateText(7.66666), "7.666 req/s (rounded down)");
  assert.equal(rateText(7.5, ""), "7.5");
});
