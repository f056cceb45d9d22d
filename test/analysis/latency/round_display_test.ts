import assert from "node:assert/strict";
import { roundDown, roundUp } from "../../../analysis/latency/round_display.ts";

Deno.test("roundDown() shows a capacity at 4 significant digits, never above the exact value", async (t) => {
  await t.step("hand-computed cases", () => {
    // 6.7875 (7.5 × (1 − 0.095)): to nearest would be 6.788 (up); down is 6.787.
    assert.equal(roundDown(6.7875), 6.787);
    // 9.05678 → 9.056 (nearest 9.057); 12.345 → 12.34 (nearest 12.35); 0.99996 → 0.9999 (nearest 1.000).
    assert.equal(roundDown(9.05678), 9.056);
    assert.equal(roundDown(12.345), 12.34);
    assert.equal(roundDown(0.99996), 0.9999);
    // 123456.7 → 123400; 3 significant digits: 6.7875 → 6.78.
    assert.equal(roundDown(123456.7), 123400);
    assert.equal(roundDown(6.7875, 3), 6.78);
  });
  await t.step("values that have 4 digits stay as they are, float noise included", () => {
    for (const x of [7.5, 6, 4, 0.3, 7.2]) assert.equal(roundDown(x), x);
    // 3 × (1 − 0.3) = 2.0999999999999996 in floats: noise around 2.1, not a value to round down to 2.099.
    assert.equal(roundDown(3 * (1 - 0.3)), 2.1);
    assert.equal(roundDown(0.1 + 0.2), 0.3);
  });
  await t.step("never above x, and within one unit of the 4th digit below it", () => {
    let seed = 12345;
    for (let i = 0; i < 10_000; i++) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      const x = (seed / 2 ** 31) * 10 ** ((i % 9) - 4);
      const d = roundDown(x);
      assert.ok(d <= x * (1 + 1e-12), `${d} > ${x}`);
      const unit = 10 ** (Math.floor(Math.log10(x)) - 3);
      assert.ok(x - d < unit * (1 + 1e-9), `${x} − ${d} ≥ ${unit}`);
      assert.equal(Number(d.toPrecision(4)), d, `${d} has more than 4 significant digits`);
    }
  });
  await t.step("0, negatives and bad digits", () => {
    assert.equal(roundDown(0), 0);
    assert.equal(roundDown(-6.7875), -6.788); // down is toward −∞
    assert.throws(() => roundDown(1, 0), RangeError);
  });
});

Deno.test("roundUp() shows an upper bound at 4 significant digits, never below the exact value", () => {
  // 1234.01 → 1235 (nearest 1234); 6.7875 → 6.788; 0.99996 → 1; 2.1 stays.
  assert.equal(roundUp(1234.01), 1235);
  assert.equal(roundUp(6.7875), 6.788);
  assert.equal(roundUp(0.99996), 1);
  assert.equal(roundUp(3 * (1 - 0.3)), 2.1);
  assert.equal(roundUp(-6.7875), -6.787);
});
