import assert from "node:assert/strict";
import { join } from "node:path";
import { InputError } from "../../schema/errors.ts";
import { loadWorkload } from "../../schema/workload_file.ts";
import type { QualityRow } from "../../schema/quality.ts";
import { qualityCsv, readQuality, readQualityManifest, writeQualityPart } from "../../schema/quality_file.ts";
import { rubricSha256 } from "../../schema/rubric.ts";

const workload = await loadWorkload("data/workloads/design-v1");
const rubrics = workload.rubrics!;
const summary = rubrics.rubrics.find((r) => r.rubric_id === "long-summary")!;
const rag = rubrics.rubrics.find((r) => r.rubric_id === "rag-answer")!;

function row(request_id: string, source: string, scores: Record<string, number>, pass: boolean): QualityRow {
  return {
    run_id: "run-q",
    request_id,
    source,
    rubric_id: summary.rubric_id,
    rubric_sha256: summary.sha256,
    scores: JSON.stringify(scores),
    pass,
    rationale: source.startsWith("human") ? '=looks right, "mostly"' : null,
    time_spent_ms: 1500.5,
    judged_epoch_ms: 1_780_000_000_000,
    input_tokens: source.startsWith("judge") ? 812 : null,
    output_tokens: source.startsWith("judge") ? 40 : null,
    calls: source.startsWith("judge") ? 1 : null,
  };
}

async function runDir(): Promise<string> {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(join(dir, "run.json"), JSON.stringify({ run_id: "run-q" }));
  return dir;
}

const ids = new Set(["r1", "r2", "r3"]);
const good = [
  row("r1", "judge:m", { faithful: 1, coverage: 5, concise: 4 }, true),
  row("r2", "judge:m", { faithful: 0, coverage: 5, concise: 4 }, false),
  row("r1", "human:ana", { faithful: 1, coverage: 3, concise: 5 }, false),
];

Deno.test("the design workload's rubrics load, hashed, one per open-ended class", () => {
  assert.deepEqual(rubrics.rubrics.map((r) => r.rubric_id), ["long-summary", "rag-answer"]);
  for (const r of rubrics.rubrics) assert.equal(r.sha256, rubricSha256(r));
  const ragCases = workload.workload.cases.filter((c) => c.class === "rag_answer");
  assert.ok(
    ragCases.length > 0 &&
      ragCases.every((c) => workload.byCaseId.get(c.case_id) && rubrics.byCaseId.get(c.case_id) === rag),
  );
  assert.equal(workload.workload.cases.filter((c) => rubrics.byCaseId.has(c.case_id)).length, 24);
});

Deno.test("a rubric edited without its hash, or claiming a class twice, is refused naming the field", async () => {
  const dir = await Deno.makeTempDir();
  for (const f of ["workload.json", "class_defaults.json"]) {
    await Deno.copyFile(join("data/workloads/design-v1", f), join(dir, f));
  }
  const file = JSON.parse(await Deno.readTextFile("data/workloads/design-v1/rubrics.json"));
  file.rubrics[0].instructions += " Edited.";
  file.rubrics[1].applies_to.classes = ["long_summary", "no_such_class"];
  await Deno.writeTextFile(join(dir, "rubrics.json"), JSON.stringify(file));
  const e = await loadWorkload(dir).then(() => null, (e) => e);
  assert.ok(e instanceof InputError);
  const text = e.problems.join("\n");
  assert.match(text, /rubrics\.0\.sha256: does not match rubric long-summary/);
  assert.match(text, /rubrics\.1\.applies_to\.classes\.0: "long_summary" already has rubric long-summary/);
  assert.match(text, /rubrics\.1\.applies_to\.classes\.1: "no_such_class" is not in the workload/);
});

Deno.test("verdicts written as CSV and as Parquet read back the same, listed and hashed", async (t) => {
  for (const file of ["a.csv", "a.parquet"]) {
    await t.step(file, async () => {
      const dir = await runDir();
      const m = await writeQualityPart(dir, good, { file, written_by: "test", details: { n: 3 }, rubrics: [summary] });
      assert.equal(m.parts.length, 1);
      assert.deepEqual(m.parts[0]!.sources, ["human:ana", "judge:m"]);
      const read = await readQuality(dir, { runId: "run-q", requestIds: ids });
      assert.deepEqual(read!.rows, good);
      assert.equal(read!.rubrics.get(summary.sha256)?.rubric_id, "long-summary");
    });
  }
  await t.step("a CSV string cell that starts like a formula is escaped on disk", () => {
    assert.match(qualityCsv(good), /"'=looks right, ""mostly"""/);
  });
  await t.step("a run without a quality table reads as null", async () => {
    assert.equal(await readQuality(await runDir(), { runId: "run-q", requestIds: ids }), null);
  });
  await t.step("a second part is added, a part of the same name replaced", async () => {
    const dir = await runDir();
    await writeQualityPart(dir, good.slice(0, 1), { file: "a.csv", written_by: "t", details: {}, rubrics: [summary] });
    await writeQualityPart(dir, good.slice(0, 2), { file: "a.csv", written_by: "t", details: {}, rubrics: [summary] });
    await writeQualityPart(dir, good.slice(2), { file: "b.csv", written_by: "t", details: {}, rubrics: [summary] });
    const m = await readQualityManifest(dir);
    assert.deepEqual(m!.parts.map((p) => [p.file, p.rows]), [["a.csv", 2], ["b.csv", 1]]);
    assert.equal((await readQuality(dir, { runId: "run-q", requestIds: ids }))!.rows.length, 3);
  });
});

Deno.test("the reader refuses what a verdict can get wrong, every problem at once", async (t) => {
  const bad = [
    row("r9", "judge:m", { faithful: 1, coverage: 5, concise: 4 }, true), // unknown request
    row("r1", "judge:m", { faithful: 1, coverage: 5, concise: 4 }, true),
    row("r1", "judge:m", { faithful: 1, coverage: 4, concise: 4 }, true), // duplicate
    row("r2", "human:bo", { faithful: 1, coverage: 6, concise: 4 }, true), // off scale
    row("r3", "human:bo", { faithful: 1, coverage: 2, concise: 4 }, true), // pass disagrees with the rubric
    row("r2", "judge:m", { faithful: 1, coverage: 5 }, true), // a criterion missing
  ];
  const dir = await runDir();
  await writeQualityPart(dir, bad, { file: "bad.csv", written_by: "t", details: {}, rubrics: [summary] });
  const e = await readQuality(dir, { runId: "run-q", requestIds: ids }).then(() => null, (e) => e);
  assert.ok(e instanceof InputError);
  const text = e.problems.join("\n");
  await t.step("unknown request", () => assert.match(text, /row 1: request_id "r9" is not a request of this run/));
  await t.step("duplicate", () => assert.match(text, /row 3: a second verdict of judge:m on request r1/));
  await t.step("off its scale", () => assert.match(text, /row 4: scores: criterion "coverage": 6 is off its scale/));
  await t.step("pass contradicts the scores", () => assert.match(text, /row 5: pass is true but the rubric's verdict/));
  await t.step("a criterion unscored", () => assert.match(text, /row 6: scores: no score for criterion "concise"/));
  assert.equal(e.problems.length, 5);

  await t.step("a part edited after it was listed", async () => {
    const d = await runDir();
    await writeQualityPart(d, good, { file: "a.csv", written_by: "t", details: {}, rubrics: [summary] });
    await Deno.writeTextFile(
      join(d, "quality", "a.csv"),
      (await Deno.readTextFile(join(d, "quality", "a.csv"))) + "\n",
    );
    await Deno.writeTextFile(join(d, "quality", "stray.csv"), "x\n");
    const e = await readQuality(d, { runId: "run-q", requestIds: ids }).then(() => null, (e) => e);
    assert.ok(e instanceof InputError);
    assert.match(e.problems.join("\n"), /a\.csv: sha256 [0-9a-f]{64} is not the [0-9a-f]{64} listed/);
    assert.match(e.problems.join("\n"), /stray\.csv: not listed in quality\.json/);
  });
  await t.step("a rubric other than the one the run froze", async () => {
    const d = await runDir();
    await writeQualityPart(d, good, { file: "a.csv", written_by: "t", details: {}, rubrics: [summary] });
    const e = await readQuality(d, { runId: "run-q", requestIds: ids, rubricHashes: { "long-summary": rag.sha256 } })
      .then(() => null, (e) => e);
    assert.ok(e instanceof InputError);
    assert.match(e.problems.join("\n"), /rubric long-summary [0-9a-f]{12} is not the one the run froze/);
  });
});
