import assert from "node:assert/strict";
import { PlanSpec } from "../../schema/plan.ts";
import { RunName, runNameProblem } from "../../schema/run_name.ts";

Deno.test("RunName accepts one safe folder name and refuses anything that could leave --out or break a line", async (t) => {
  await t.step("accepted", () => {
    for (const ok of ["a", "demo-staged", "route-self_hosted", "x.1", "-dash", "_under", "A".repeat(128)]) {
      assert.equal(runNameProblem(ok), null, ok);
    }
  });
  await t.step("refused", () => {
    const bad = [
      "", // empty
      ".", // the folder itself
      "..", // its parent
      ".hidden", // starts with a dot
      "../../x", // climbs out
      "a/b", // separator
      "a\\b", // Windows separator
      "/abs", // absolute
      "a b", // space
      "a\nb", // newline (header injection through the idempotency key)
      "a\rb", // carriage return
      "a\u0000b", // NUL
      "a\tb", // tab
      "é", // outside the ASCII set
      "C:x", // drive letter
      "A".repeat(129), // too long
    ];
    for (const v of bad) assert.ok(!RunName.safeParse(v).success, JSON.stringify(v));
  });
  await t.step("the problem shows control characters escaped", () => {
    assert.match(runNameProblem("a\nb")!, /^"a\\nb": expected 1–128 characters/);
  });
  await t.step("a plan's name is a RunName", () => {
    const arrivals = { process: "constant", rate_rps: 1, duration_s: 1 } as const;
    assert.ok(PlanSpec.safeParse({ name: "ok-plan", arrivals }).success);
    const r = PlanSpec.safeParse({ name: "../../x", arrivals });
    assert.ok(!r.success);
    assert.deepEqual(r.error.issues.map((i) => i.path), [["name"]]);
  });
});
