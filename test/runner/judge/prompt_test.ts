import assert from "node:assert/strict";
import { judgeMessages } from "../../../runner/judge/prompt.ts";
import { JudgeDocument, rubricLine } from "../../../schema/judge_call.ts";
import { loadWorkload, promptSha256 } from "../../../schema/workload_file.ts";
import { DESIGN_V1 } from "../../support/judge_fixture.ts";

Deno.test("the judge's prompt carries the whole rubric and the case's original messages with the answer", async () => {
  const loaded = await loadWorkload(DESIGN_V1);
  for (const rubric of loaded.rubrics!.rubrics) {
    const c = loaded.workload.cases.find((c) => loaded.rubrics!.byCaseId.get(c.case_id) === rubric)!;
    const [system, user, ...rest] = judgeMessages(rubric, c.messages, 'An answer with "quotes"\nand a line.');
    assert.equal(rest.length, 0);
    assert.equal(system!.role, "system");
    const text = system!.content;
    assert.ok(text.includes(rubricLine(rubric)), "names the rubric by its sha256");
    assert.ok(text.includes(rubric.instructions));
    for (const k of rubric.criteria) {
      const scale = k.scale.kind === "pass_fail"
        ? "0 (fail) or 1 (pass)"
        : `a whole number from ${k.scale.min} to ${k.scale.max}; ${k.scale.pass_at} or more passes`;
      assert.ok(text.includes(`- ${k.id}: ${k.description} Scale: ${scale}.`), k.id);
    }
    for (const e of [...rubric.examples.pass, ...rubric.examples.fail]) {
      assert.ok(text.includes(`Answer: ${e.answer}`) && text.includes(e.why));
    }
    const form = rubric.criteria.map((k) => `"${k.id}": <integer>`).join(", ");
    assert.ok(text.endsWith(`{"scores": {${form}}, "rationale": "<one or two sentences>"}`));
    assert.equal(user!.role, "user");
    const doc = JudgeDocument.parse(JSON.parse(user!.content));
    assert.equal(doc.answer, 'An answer with "quotes"\nand a line.');
    // The workload's messages, not a run's cache-busted ones: the case's own prompt hash.
    assert.equal(promptSha256(doc.conversation), c.prompt_sha256);
  }
});
