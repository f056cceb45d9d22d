import assert from "node:assert/strict";
import { mulberry32 } from "../../../lib/prng.ts";
import { poissonArrivals } from "../../../examples/chat/drive.ts";

Deno.test("poissonArrivals() draws exponential gaps −ln(1 − u) / rate from the seed, inside the duration", async (t) => {
  await t.step("the first arrivals are the seed's draws turned into gaps", () => {
    const u = mulberry32(5);
    const [u1, u2] = [u(), u()];
    // At 4/s: gap = −ln(1 − u) / 4 s, i.e. −250 · ln(1 − u) ms; the second arrival adds the second gap.
    const first = -250 * Math.log(1 - u1);
    const second = first - 250 * Math.log(1 - u2);
    const got = poissonArrivals(4, 100, 5);
    assert.ok(Math.abs(got[0]! - first) < 1e-9 && Math.abs(got[1]! - second) < 1e-9, `${got.slice(0, 2)}`);
  });
  await t.step(
    "the count over a long window is rate × duration within 4 standard deviations (√(rate × duration))",
    () => {
      // 2/s over 2000 s: 4000 expected, sd √4000 ≈ 63.2: within 4000 ± 253.
      const n = poissonArrivals(2, 2000, 11).length;
      assert.ok(Math.abs(n - 4000) < 253, `${n}`);
    },
  );
  await t.step("every arrival is inside [0, duration) and in order; the same seed gives the same times", () => {
    const a = poissonArrivals(3, 10, 9);
    assert.ok(a.every((x, i) => x >= 0 && x < 10_000 && (i === 0 || x >= a[i - 1]!)));
    assert.deepEqual(poissonArrivals(3, 10, 9), a);
  });
});
