import assert from "node:assert/strict";
import { HEADROOM_CHOICES, HEADROOM_NOTE, productionLimit } from "../../analysis/limit.ts";
import { InputError } from "../../schema/errors.ts";

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
