import assert from "node:assert/strict";
import { MAX_RATIONALE_CHARS, readJudgeReply } from "../../../runner/judge/reply.ts";

const rubric = {
  criteria: [
    { id: "faithful", description: "d", scale: { kind: "pass_fail" as const } },
    { id: "coverage", description: "d", scale: { kind: "points" as const, min: 1, max: 5, pass_at: 4 } },
  ],
};
const reply = (v: unknown) => readJudgeReply(JSON.stringify(v), rubric);

Deno.test("readJudgeReply takes only one JSON object of the contract, every criterion scored on its scale", async (t) => {
  await t.step("a verdict: the rubric's, scores in criterion order, extra keys ignored", () => {
    assert.deepEqual(reply({ rationale: "r", scores: { coverage: 3, faithful: 1 }, confidence: 0.9 }), {
      ok: true,
      scores: { faithful: 1, coverage: 3 },
      pass: false,
      rationale: "r",
    });
  });
  await t.step("not one JSON object", () => {
    for (const text of ['Sure! {"scores": {}}', "[1, 2]", "", "null"]) {
      const r = readJudgeReply(text, rubric);
      assert.equal(r.ok === false && r.kind, "reply_not_json", text);
    }
  });
  await t.step("off the contract, each problem named", () => {
    const cases: [unknown, RegExp][] = [
      [{ scores: { faithful: 1 }, rationale: "r" }, /no score for criterion "coverage"/],
      [{ scores: { faithful: 1, coverage: 6 }, rationale: "r" }, /"coverage": 6 is off its scale/],
      [{ scores: { faithful: 1, coverage: 4, tone: 1 }, rationale: "r" }, /"tone" is not a criterion/],
      [{ scores: { faithful: 1, coverage: "4" }, rationale: "r" }, /scores\.coverage/],
      [{ scores: { faithful: 1, coverage: 4.5 }, rationale: "r" }, /scores\.coverage/],
      [{ scores: { faithful: 1, coverage: 4 } }, /rationale/],
      [{ scores: [1, 4], rationale: "r" }, /scores/],
    ];
    for (const [v, problem] of cases) {
      const r = reply(v);
      assert.ok(!r.ok && r.kind === "reply_off_contract", JSON.stringify(v));
      assert.match(r.problem, problem);
    }
  });
  await t.step("a long rationale is cut to the cap, marked", () => {
    const r = reply({ scores: { faithful: 1, coverage: 5 }, rationale: "x".repeat(MAX_RATIONALE_CHARS + 10) });
    assert.ok(r.ok);
    assert.equal(r.rationale.length, MAX_RATIONALE_CHARS);
    assert.ok(r.rationale.endsWith("…"));
  });
});
