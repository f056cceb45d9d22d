import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { writeQualityPart } from "../../../schema/quality_file.ts";
import { loadWorkload } from "../../../schema/workload_file.ts";
import { runCli } from "../../support/run_cli.ts";
import { LEDGER_POLICY, overheadsA, sheetA, writeLedgerRun } from "../cost/ledger_fixture.ts";
import { verdict, writeJudgePart, writeReviewParts } from "../cost/ledger_quality_fixture.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const CLI = join(ROOT, "analysis/cli/ledger.ts");

Deno.test("ledger CLI reads the run's quality table: the judge and the recorded minutes charged, a bad table exits 2", async (t) => {
  const tmp = Deno.makeTempDirSync();
  const file = (name: string, v: unknown) => {
    Deno.writeTextFileSync(join(tmp, name), JSON.stringify(v));
    return join(tmp, name);
  };
  const slo = file("slo.json", LEDGER_POLICY);
  const prices = file("prices.json", sheetA());
  const judgePrice = { m: { input_per_mtok: 2, output_per_mtok: 10, source: "test judge quote" } };
  const overheads = file("overheads.json", overheadsA({ evaluation: { judge_models: judgePrice } }));
  const dir = writeLedgerRun();
  await writeJudgePart(dir);
  await writeReviewParts(dir);

  await t.step("--json: judge 0.01125 and recorded review 0.15 in the total (ledger_quality_test.ts)", async () => {
    const r = await runCli(CLI, [dir, "--prices", prices, "--overheads", overheads, "--slo", slo, "--json"]);
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    // 0.3489 − 0.18 (expected review) + 0.15 (recorded) + 0.01125 (judge) = 0.33015.
    assert.ok(Math.abs(j.overall.total - 0.33015) < 1e-12, String(j.overall.total));
    assert.ok(Math.abs(j.overall.cost.judge - 0.01125) < 1e-12);
    assert.equal(j.pricing.evaluation.human_review.basis, "recorded");
  });

  await t.step("text: the basis of each and a NOT PRICED judge said in one line", async () => {
    const bare = file("bare.json", overheadsA());
    const r = await runCli(CLI, [dir, "--prices", prices, "--overheads", bare, "--slo", slo]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /human review: recorded minutes, 15 min of 6 verdicts/);
    assert.match(r.stdout, /WARNING: judge m: NOT PRICED: 3750 input and 375 output tokens are listed at 0/);
  });

  await t.step("a verdict on a request the run does not have: exit 2 naming the file and the request", async () => {
    const summary = (await loadWorkload("data/workloads/design-v1")).rubrics!.rubrics[0]!;
    const runId = JSON.parse(Deno.readTextFileSync(join(dir, "run.json"))).run_id;
    await writeQualityPart(dir, [verdict(runId, "nope", "human:cy")], {
      file: "stray.csv",
      written_by: "test",
      details: {},
      rubrics: [summary],
    });
    const r = await runCli(CLI, [dir, "--prices", prices, "--slo", slo]);
    assert.equal(r.code, 2, r.stdout);
    assert.match(r.stderr, /stray\.csv: row 1: request_id "nope" is not a request of this run/);
    assert.doesNotMatch(r.stderr, /^\s+at /m, "no stack trace");
  });
});
