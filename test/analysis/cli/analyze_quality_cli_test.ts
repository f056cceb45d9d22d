import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli } from "../../support/run_cli.ts";
import { policyWith, writeQualityRun } from "../quality/_quality_fixture.ts";

const CLI = new URL("../../../analysis/cli/analyze.ts", import.meta.url).pathname;
const analyze = (...args: string[]) => runCli(CLI, args, ["--allow-read", "--allow-ffi", "--allow-env", "--allow-sys"]);

Deno.test("analyze reads the run's quality table and the policy's quality source", async (t) => {
  const tmp = Deno.makeTempDirSync();
  const run = await writeQualityRun(join(tmp, "run"));
  const slo = (name: string, policy: unknown) => {
    const file = join(tmp, `${name}.json`);
    Deno.writeTextFileSync(file, JSON.stringify(policy));
    return file;
  };

  await t.step("human: the headline and the class carry the estimate; the table by source follows", async () => {
    const r = await analyze(run, "--slo", slo("human", policyWith("human")));
    assert.equal(r.code, 0, r.stderr);
    // Overall: qa's 3 + summ's ≈12 = ≈15 over 20 s: 0.75/s.
    assert.match(r.stdout, /^accepted goodput 0\.75 \[[\d.]+, [\d.]+\] tasks\/s = ≈15 accepted/m);
    assert.match(
      r.stdout,
      /^NOTE\s+QUALITY ESTIMATED: class summ: accepted ≈12\.0 \[7\.6, 16\.4\] at 95 %, from 10 reviewed of 20/m,
    );
    assert.match(r.stdout, /^NOTE\s+DISAGREEMENTS UNRESOLVED: class summ: 1 reviewed requests/m);
    assert.match(r.stdout, /^summ\s+21\s+21\s+21\s+≈12\.0 \[7\.6, 16\.4\]/m);
    assert.match(r.stdout, /summ: quality human: accepted ≈12\.0 \[7\.6, 16\.4\] of 20 passing every other gate/);
    assert.match(r.stdout, /^acceptance by quality source/m);
    assert.match(r.stdout, /^summ\s+judge:m\s+21\s+13\s+0\.6190/m);
    assert.match(r.stdout, /^summ\s+judge:lenient\s+-\s+-\s+-\s+-\s+REFUSED: judge lenient's Cohen's kappa/m);
  });

  await t.step("judge quick: quality unknown is a warning; --json carries the quality disclosure", async () => {
    const r = await analyze(run, "--slo", slo("quick", policyWith("judge", "quick")), "--json");
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.equal(j.quality.classes[0].quality_unknown, 1);
    assert.equal(j.by_class.find((c: { class: string }) => c.class === "summ").accepted, 12);
    assert.ok(j.caveats.some((c: { line: string }) => /^QUALITY UNKNOWN: class summ: 1 of 20/.test(c.line)));
    assert.equal(j.acceptance_by_quality_source.length, 8);
  });

  await t.step("a judge below the kappa minimum: exit 2 naming class, judge, kappa and minimum", async () => {
    const r = await analyze(run, "--slo", slo("lenient", policyWith("calibrated-judge", "lenient")));
    assert.equal(r.code, 2);
    assert.match(
      r.stderr,
      /class summ: quality source calibrated-judge refused: judge lenient's Cohen's kappa .* is 0\.298 .*min_judge_kappa 0\.6/,
    );
  });

  await t.step("an edited part file: exit 2 naming it", async () => {
    Deno.writeTextFileSync(join(run, "quality", "judge-m.csv"), "\n", { append: true });
    const r = await analyze(run, "--slo", slo("inline", policyWith("inline")));
    assert.equal(r.code, 2);
    assert.match(r.stderr, /judge-m\.csv: sha256 [0-9a-f]+ is not the [0-9a-f]+ listed in quality\.json/);
  });
});
