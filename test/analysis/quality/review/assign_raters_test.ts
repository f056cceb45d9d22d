import assert from "node:assert/strict";
import { assignRaters } from "../../../../analysis/quality/review/assign_raters.ts";

/** 40 items: 30 in stratum a, 10 in b. */
const items = Array.from(
  { length: 40 },
  (_, i) => ({ id: `i-${String(i).padStart(8, "0")}`, stratum: i < 30 ? "a" : "b" }),
);

Deno.test("assignRaters: the stated share goes to every rater, spread over the strata; the rest to one rater each", () => {
  const a = assignRaters(items, ["ana", "bo"], { double_share: 0.25, seed: 4 });
  // m = round(0.25 · 40) = 10, split 30:10 → 7.5, 2.5 → 8, 2 (largest remainder, ties to the earlier stratum).
  assert.equal(a.double_rated.length, 10);
  assert.equal(a.double_rated.filter((id) => Number(id.slice(2)) < 30).length, 8);
  // The 30 others dealt in turn: 15 each, so 25 per rater.
  assert.deepEqual([a.by_rater.ana!.length, a.by_rater.bo!.length], [25, 25]);
  for (const it of items) {
    const raters = a.raters_of.get(it.id)!;
    if (a.double_rated.includes(it.id)) assert.deepEqual(raters, ["ana", "bo"]);
    else assert.equal(raters.length, 1);
    for (const r of raters) assert.ok(a.by_rater[r]!.includes(it.id));
  }
  const ana = new Set(a.by_rater.ana), bo = new Set(a.by_rater.bo);
  assert.deepEqual([...ana].filter((id) => bo.has(id)).sort(), a.double_rated);
});

Deno.test("assignRaters: three raters, loads within one; each rater's order is their own; same seed, same lists", () => {
  const a = assignRaters(items, ["ana", "bo", "cy"], { double_share: 0.1, seed: 9 });
  const loads = ["ana", "bo", "cy"].map((r) => a.by_rater[r]!.length);
  // 4 rated by all three, 36 dealt 12 each.
  assert.deepEqual(loads, [16, 16, 16]);
  const shared = a.double_rated;
  const orderOf = (r: string) => a.by_rater[r]!.filter((id) => shared.includes(id));
  assert.ok(
    JSON.stringify(orderOf("ana")) !== JSON.stringify(orderOf("bo")) ||
      JSON.stringify(orderOf("bo")) !== JSON.stringify(orderOf("cy")),
    "the shared items come in different orders",
  );
  assert.notDeepEqual(a.by_rater.ana, [...a.by_rater.ana!].sort(), "not in id order");
  assert.deepEqual(assignRaters(items, ["ana", "bo", "cy"], { double_share: 0.1, seed: 9 }).by_rater, a.by_rater);
  assert.notDeepEqual(assignRaters(items, ["ana", "bo", "cy"], { double_share: 0.1, seed: 10 }).by_rater, a.by_rater);
});

Deno.test("assignRaters: one rater rates everything once; a share rounding to 0 still gives one shared item", () => {
  const one = assignRaters(items, ["ana"], { double_share: 0.5, seed: 1 });
  assert.deepEqual(one.double_rated, []);
  assert.equal(one.by_rater.ana!.length, 40);
  assert.equal(assignRaters(items.slice(0, 3), ["ana", "bo"], { double_share: 0.1, seed: 1 }).double_rated.length, 1);
  assert.throws(() => assignRaters(items, ["ana", "ana"], { double_share: 0, seed: 1 }), RangeError);
});
