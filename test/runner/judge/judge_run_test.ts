import assert from "node:assert/strict";
import { join } from "node:path";
import { getEncoding } from "js-tiktoken";
import { parquetReadObjects } from "hyparquet";
import { runJudge } from "../../../runner/judge/judge_run.ts";
import { judgeMessages } from "../../../runner/judge/prompt.ts";
import { readLogCsv } from "../../../runner/sinks/csv_read.ts";
import { readQuality } from "../../../schema/quality_file.ts";
import { RunManifest } from "../../../schema/run_manifest.ts";
import type { Rubric } from "../../../schema/rubric.ts";
import type { Workload } from "../../../schema/workload.ts";
import { DESIGN_V1, judgeOptions, judgeSim, savedOutputRun } from "../../support/judge_fixture.ts";

const enc = getEncoding("o200k_base");

Deno.test("the judge scores each saved output of a case with a rubric once, with its tokens, in a part readQuality reads", async (t) => {
  const dir = Deno.makeTempDirSync({ prefix: "judge_run_" });
  const sim = await judgeSim({ sensitivity: 1, specificity: 1, seed: 3 });
  try {
    const runDir = await savedOutputRun(dir);
    const manifest = RunManifest.parse(JSON.parse(Deno.readTextFileSync(join(runDir, "run.json"))));
    const result = await runJudge(judgeOptions(runDir, sim.url));

    // The eligible items, worked out here from the files: saved, and of a class a rubric of rubrics.json names.
    const requests = await readLogCsv(join(runDir, "requests.csv"), "requests");
    const saved = new Map<string, string>(
      Deno.readTextFileSync(join(runDir, "outputs.jsonl")).trim().split("\n").map((l) => JSON.parse(l))
        .map((o: { request_id: string; text: string }) => [o.request_id, o.text]),
    );
    const rubrics: Rubric[] = JSON.parse(Deno.readTextFileSync(join(DESIGN_V1, "rubrics.json"))).rubrics;
    const rubricOf = new Map(rubrics.flatMap((r) => r.applies_to.classes.map((c) => [c, r] as const)));
    const eligible = requests.filter((r) => saved.has(r.request_id) && rubricOf.has(r.class));
    assert.ok(eligible.length >= 8, `${eligible.length} eligible items`);
    assert.ok(saved.size > eligible.length, "some saved outputs have no rubric (short_qa) and are left out");

    const table = await readQuality(runDir, {
      runId: manifest.run_id,
      requestIds: new Set(requests.map((r) => r.request_id)),
      ...(manifest.workload.rubric_hashes ? { rubricHashes: manifest.workload.rubric_hashes } : {}),
    });
    assert.ok(table, "the quality table exists");
    const rows = table.rows;

    await t.step("one verdict per eligible item, in the run's order, and the part listed", () => {
      assert.equal(result.status, "done");
      assert.deepEqual(rows.map((r) => r.request_id), eligible.map((r) => r.request_id));
      assert.deepEqual(table.manifest.parts.map((p) => [p.file, p.rows, p.sources, p.written_by]), [
        ["judge-sim-judge.csv", eligible.length, ["judge:sim-judge"], "judge"],
      ]);
      const left = [...Deno.readDirSync(join(runDir, "quality"))].map((e) => e.name).sort();
      assert.deepEqual(left, ["judge-sim-judge.csv", "quality.json"], "the journal is removed");
    });

    await t.step("a judge with no error agrees with the run's own check on every answer", () => {
      const byId = new Map(requests.map((r) => [r.request_id, r]));
      for (const row of rows) {
        const r = byId.get(row.request_id)!;
        assert.equal(row.pass, r.quality_ok, row.request_id);
        assert.equal(row.rubric_id, rubricOf.get(r.class)!.rubric_id);
        assert.equal(row.source, "judge:sim-judge");
        assert.equal(row.calls, 1);
      }
      assert.ok(rows.some((r) => r.pass), "some pass");
    });

    await t.step("tokens: the prompt and the reply counted by an independent o200k_base tokenizer", async () => {
      const workload: Workload = JSON.parse(await Deno.readTextFile(join(DESIGN_V1, "workload.json")));
      const cases = new Map(workload.cases.map((c) => [c.case_id, c]));
      const byId = new Map(requests.map((r) => [r.request_id, r]));
      for (const row of rows) {
        const r = byId.get(row.request_id)!;
        const messages = judgeMessages(
          rubricOf.get(r.class)!,
          cases.get(r.case_id)!.messages,
          saved.get(r.request_id)!,
        );
        const prompt = messages.reduce((s, m) => s + enc.encode(m.content).length, 0);
        assert.equal(row.input_tokens, prompt, row.request_id);
        // The simulated judge replies {"scores": …, "rationale": …} in the rubric's criterion order.
        const reply = JSON.stringify({ scores: JSON.parse(row.scores), rationale: row.rationale });
        assert.equal(row.output_tokens, enc.encode(reply).length, row.request_id);
        assert.ok(row.time_spent_ms! > 0);
      }
      const d = table.manifest.parts[0]!.details as Record<string, unknown>;
      const sum = (f: "input_tokens" | "output_tokens") => rows.reduce((s, r) => s + r[f]!, 0);
      assert.equal(d.input_tokens, sum("input_tokens"));
      assert.equal(d.output_tokens, sum("output_tokens"));
      assert.equal(d.calls, rows.length);
      assert.equal(d.failed_calls, 0);
      assert.equal(d.items, eligible.length);
      assert.equal(d.judged, eligible.length);
      assert.deepEqual(d.unjudged, { items: 0, reasons: {}, request_ids: [] });
      assert.equal(d.target, sim.url);
      assert.equal(d.model, "sim-judge");
      assert.equal(d.replies_without_usage, 0);
    });

    await t.step("a second pass is refused unless --replace, which keeps the part's format", async () => {
      await assert.rejects(runJudge(judgeOptions(runDir, sim.url)), /already judged by sim-judge .*--replace/);
      await assert.rejects(
        runJudge(judgeOptions(runDir, sim.url, { replace: true, format: "parquet" })),
        /give --format csv/,
      );
      const again = await runJudge(judgeOptions(runDir, sim.url, { replace: true }));
      assert.equal(again.judged, eligible.length);
      const reread = await readQuality(runDir, {
        runId: manifest.run_id,
        requestIds: new Set(requests.map((r) => r.request_id)),
      });
      assert.equal(reread!.manifest.parts.length, 1);
      assert.deepEqual(
        reread!.rows.map((r) => [r.request_id, r.scores, r.pass]),
        rows.map((r) => [r.request_id, r.scores, r.pass]),
      );
    });
  } finally {
    await sim.stop();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a run logged as Parquet only is judged, and the part written as Parquet with --format parquet", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "judge_parquet_" });
  const sim = await judgeSim({ sensitivity: 0.9, specificity: 0.85, seed: 7 });
  try {
    const runDir = await savedOutputRun(dir, { rps: 12, formats: ["parquet"] });
    assert.throws(() => Deno.statSync(join(runDir, "requests.csv")), Deno.errors.NotFound);
    const manifest = RunManifest.parse(JSON.parse(Deno.readTextFileSync(join(runDir, "run.json"))));
    const result = await runJudge(judgeOptions(runDir, sim.url, { format: "parquet", model: "org/judge-1" }));
    assert.equal(result.part, join(runDir, "quality", "judge-org-judge-1.parquet"));
    // The eligible items, from the Parquet requests table read here with hyparquet and the workload's classes.
    const bytes = Deno.readFileSync(join(runDir, "requests.parquet"));
    const requests = await parquetReadObjects({
      file: bytes.buffer as ArrayBuffer,
      columns: ["request_id", "case_id"],
    });
    const workload: Workload = JSON.parse(await Deno.readTextFile(join(DESIGN_V1, "workload.json")));
    const classOf = new Map(workload.cases.map((c) => [c.case_id, c.class]));
    const saved = new Set(
      Deno.readTextFileSync(join(runDir, "outputs.jsonl")).trim().split("\n").map((l) => JSON.parse(l).request_id),
    );
    const eligible = requests.filter((r) =>
      saved.has(r.request_id) && ["long_summary", "rag_answer"].includes(classOf.get(r.case_id as string)!)
    ).map((r) => r.request_id);
    const table = await readQuality(runDir, {
      runId: manifest.run_id,
      requestIds: new Set(requests.map((r) => r.request_id as string)),
    });
    assert.deepEqual(table!.rows.map((r) => r.request_id), eligible);
    assert.ok(table!.rows.every((r) => r.source === "judge:org/judge-1" && r.calls === 1));
    assert.equal(table!.manifest.parts[0]!.format, "parquet");
  } finally {
    await sim.stop();
    Deno.removeSync(dir, { recursive: true });
  }
});
