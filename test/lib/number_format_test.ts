import assert from "node:assert/strict";
import { fixed, percent, sig } from "../../lib/number_format.ts";

Deno.test("sig() rounds to significant digits and drops trailing zeros", async (t) => {
  await t.step("4 digits by default, any count on request", () => {
    assert.equal(sig(123456), "123500"); // 1.235e5 printed in full
    assert.equal(sig(0.5), "0.5"); // 0.5000 → 0.5
    assert.equal(sig(99.996), "100"); // rounds up to 100.0 → 100
    assert.equal(sig(1234.5678, 6), "1234.57");
    assert.equal(sig(-0.0012345, 3), "-0.00123");
    assert.equal(sig(1.5e21), "1.5e+21"); // JavaScript's own exponent form
  });
  await t.step("null, undefined and non-finite values print as the missing text", () => {
    for (const v of [null, undefined, NaN, Infinity]) assert.equal(sig(v), "-");
    assert.equal(sig(null, 4, "∞"), "∞");
  });
});

Deno.test("fixed() keeps exactly the given decimals", () => {
  assert.equal(fixed(0.125, 2), "0.13"); // 0.125 is exact in binary: rounds half up here
  assert.equal(fixed(3, 1), "3.0");
  assert.equal(fixed(undefined, 1), "-");
  assert.equal(fixed(null, 4, "n/a"), "n/a");
});

Deno.test("percent() is × 100 to 6 significant digits", () => {
  assert.equal(percent(0.95), "95 %");
  assert.equal(percent(0.999), "99.9 %");
  assert.equal(percent(1 / 3), "33.3333 %"); // 33.33333… to 6 digits
});
