import assert from "node:assert/strict";
import { humanConsensus } from "../../../analysis/quality/consensus.ts";
import { exampleVerdict } from "../../../testing/quality_rows.ts";

const v = exampleVerdict;

Deno.test("humanConsensus: adjudication wins, agreement stands, a split without adjudication is unresolved", () => {
  const c = humanConsensus([
    // q1: both pass, the judge and the inline check fail it: people agree (neither is part of the consensus).
    v("q1", "human:ana", true),
    v("q1", "human:bo", true),
    v("q1", "judge:m", false),
    v("q1", "inline", false),
    // q2: split, no adjudication.
    v("q2", "human:ana", true),
    v("q2", "human:bo", false),
    // q3: split, settled as pass against two of three raters.
    v("q3", "human:ana", false),
    v("q3", "human:bo", false),
    v("q3", "human:cy", true),
    v("q3", "adjudicated:dee", true),
    // q4: one rater alone is their own consensus.
    v("q4", "human:bo", false),
    // q5: two adjudications that differ settle nothing.
    v("q5", "human:ana", true),
    v("q5", "adjudicated:dee", true),
    v("q5", "adjudicated:eli", false),
    // q6: only a judge: no human consensus at all.
    v("q6", "judge:m", true),
  ]);
  const got = (id: string) => [c.get(id)!.status, c.get(id)!.pass];
  assert.deepEqual(got("q1"), ["agreed", true]);
  assert.deepEqual(got("q2"), ["disagreed", null]);
  assert.deepEqual(got("q3"), ["adjudicated", true]);
  assert.equal(c.get("q3")!.adjudicator, "dee");
  assert.deepEqual(c.get("q3")!.raters, ["ana", "bo", "cy"]);
  assert.deepEqual(got("q4"), ["agreed", false]);
  assert.deepEqual(got("q5"), ["disagreed", null]);
  assert.equal(c.has("q6"), false);
  assert.equal(c.size, 5);
});

Deno.test("humanConsensus: two adjudications that agree settle the item together; no rows, no items", () => {
  const c = humanConsensus([v("q", "adjudicated:b", false), v("q", "adjudicated:a", false)]);
  assert.deepEqual(c.get("q"), { pass: false, status: "adjudicated", raters: [], adjudicator: "a,b" });
  assert.equal(humanConsensus([]).size, 0);
});
