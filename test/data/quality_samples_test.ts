/**
 * The committed sample run with a quality table (`npx deno task samples-quality`, data/runs/quality): the run loads
 * strictly, its quality table passes every check of the reader, the review packet draws again to the key's hashes,
 * the ratings files pass the import's checks and give the disagreement record on disk, and the simulated raters and
 * adjudicator did what data/runs/README.md says — the case's own check on the answer, one rater reversing a fixed share.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadRun } from "../../analysis/run/load_run.ts";
import { loadRunQuality } from "../../analysis/quality/verdicts.ts";
import { disagreementRecord } from "../../analysis/quality/review/disagreements.ts";
import { readReviewKey } from "../../analysis/quality/review/read_key.ts";
import { sampleReview } from "../../analysis/quality/review/sample_review.ts";
import { validateRatings } from "../../analysis/quality/review/validate_ratings.ts";
import { sha256Hex } from "../../schema/quality_file.ts";
import type { RunManifest } from "../../schema/run_manifest.ts";
import { loadWorkload } from "../../schema/workload_file.ts";
import { answerPasses } from "../../sim/answer_check.ts";
import { QUALITY_SAMPLE } from "../../scripts/samples_quality.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const RUN = join(ROOT, "data/runs/quality");
const REVIEW = join(RUN, "review");
const OPEN_ENDED = ["long_summary", "rag_answer"];

Deno.test("the quality sample run: the run, its quality table, the review and the simulated raters are what the README says", async (t) => {
  const run = await loadRun(RUN, { verify: "strict" });
  const m = run.manifest as RunManifest;
  const ids = run.requests.getColumn("request_id").toArray() as string[];
  const classes = run.requests.getColumn("class").toArray() as string[];
  const caseIds = run.requests.getColumn("case_id").toArray() as string[];
  const classOf = new Map(ids.map((id, i) => [id, classes[i]!]));
  const caseOf = new Map(ids.map((id, i) => [id, caseIds[i]!]));
  const outputs = new Map(
    Deno.readTextFileSync(join(RUN, "outputs.jsonl")).trim().split("\n").map((l) => {
      const o = JSON.parse(l) as { request_id: string; text: string };
      return [o.request_id, o.text] as const;
    }),
  );
  const { byCaseId } = await loadWorkload(join(ROOT, m.workload.path));
  const truth = (id: string) => answerPasses(byCaseId.get(caseOf.get(id)!)!.quality_check, outputs.get(id)!);

  await t.step("the run: complete, its answers saved, CSV logs, plan and profile as named", () => {
    assert.equal(m.run_id, "quality");
    assert.equal(m.result.status, "complete");
    assert.equal(m.plan.path, QUALITY_SAMPLE.plan);
    assert.equal(m.runner.save_outputs, true);
    assert.ok(Deno.statSync(join(RUN, "requests.csv")).isFile);
    assert.ok(ids.length >= 150 && ids.length <= 250, `${ids.length} requests`);
    // The open-ended answers fail their check often enough that both verdicts occur in the sample.
    const open = [...outputs.keys()].filter((id) => OPEN_ENDED.includes(classOf.get(id)!));
    const failing = open.filter((id) => truth(id) === false).length;
    assert.ok(failing >= 10 && failing <= open.length - 10, `${failing} of ${open.length} open-ended answers fail`);
  });

  const quality = await loadRunQuality(run);
  await t.step("the quality table passes the reader's checks: one judge, two raters, one adjudicator", () => {
    assert.ok(quality);
    assert.deepEqual([quality.judges, quality.raters, quality.adjudicators], [["sim-judge"], ["ana", "bo"], ["cy"]]);
    assert.deepEqual(quality.classes, OPEN_ENDED);
    // Every saved open-ended answer has the judge's verdict, and nothing else does.
    const judged = quality.rows.filter((r) => r.source === "judge:sim-judge").map((r) => r.request_id).sort();
    const expected = [...outputs.keys()].filter((id) => OPEN_ENDED.includes(classOf.get(id)!)).sort();
    assert.deepEqual(judged, expected);
    // Parts are CSV (small, readable in a diff).
    assert.ok(quality.table.manifest.parts.every((p) => p.file.endsWith(".csv")));
  });

  const key = await readReviewKey(join(REVIEW, "packet.key.json"));
  await t.step("the review key points at this run as it is, and the packet draws again to its hashes", async () => {
    assert.equal(key.runs.length, 1);
    assert.equal(key.runs[0]!.dir, "..");
    assert.equal(key.runs[0]!.run_json_sha256, sha256Hex(Deno.readFileSync(join(RUN, "run.json"))));
    assert.equal(key.items.length, QUALITY_SAMPLE.review.total);
    assert.deepEqual(key.raters, [...QUALITY_SAMPLE.review.raters]);
    assert.equal(key.design.double_rated.length, QUALITY_SAMPLE.review.total * QUALITY_SAMPLE.review.double_share);
    const tmp = Deno.makeTempDirSync({ prefix: "quality-sample-" });
    try {
      const d = key.design;
      const again = await sampleReview([RUN], {
        out: join(tmp, "packet.html"),
        strata: d.strata_keys,
        sizing: { mode: "total", total: d.sizing.total!, min_per_stratum: d.sizing.min_per_stratum! },
        seed: d.seed,
        raters: key.raters,
        double_share: d.double_share,
      });
      assert.equal(again.fullKey.packet_sha256, key.packet_sha256);
      assert.equal(again.fullKey.html_sha256, key.html_sha256);
    } finally {
      Deno.removeSync(tmp, { recursive: true });
    }
  });

  const files = [...Deno.readDirSync(REVIEW)].map((e) => e.name).filter((n) => n.startsWith("ratings-")).sort();
  const checked = validateRatings(
    key,
    files.map((file) => ({ file, bytes: Deno.readFileSync(join(REVIEW, file)) })),
  );
  await t.step("the ratings files pass the import's checks and give the disagreement record on disk", () => {
    assert.deepEqual(files, key.raters.map((r) => `ratings-${key.packet_id}-${r}.json`));
    assert.deepEqual(checked.problems, []);
    const onDisk = JSON.parse(Deno.readTextFileSync(join(REVIEW, "packet.disagreements.json")));
    assert.deepEqual(onDisk, JSON.parse(JSON.stringify(disagreementRecord(key, checked.ratings))));
  });

  await t.step("the simulated raters: the case's check on the answer, bo reversing a fixed share of his items", () => {
    const requestOf = new Map(key.items.map((i) => [i.item, i.request_id]));
    const reversed = (rater: string) =>
      checked.ratings.filter((r) => r.rater === rater && r.pass !== truth(requestOf.get(r.item)!)).length;
    assert.equal(reversed("ana"), 0);
    const n = key.assignments.bo!.length;
    // round(0.1 × n): with 30 items (10 own + 20 double-rated), 3.
    assert.equal(reversed("bo"), Math.round(QUALITY_SAMPLE.raters.misread_share * n));
    // Every reversed rating says so in its notes (the table's rationale), none other does.
    for (const r of checked.ratings) {
      assert.equal(/reversed/.test(r.notes), r.pass !== truth(requestOf.get(r.item)!), r.item);
    }
  });

  await t.step("the simulated adjudicator settled every disagreement by the case's check", () => {
    const adj = JSON.parse(Deno.readTextFileSync(join(REVIEW, "packet.adjudication.json")));
    const record = JSON.parse(Deno.readTextFileSync(join(REVIEW, "packet.disagreements.json")));
    assert.deepEqual(
      adj.entries.map((e: { item: string }) => e.item).sort(),
      record.items.map((d: { item: string }) => d.item).sort(),
    );
    const rows = quality!.rows.filter((r) => r.source === "adjudicated:cy");
    assert.equal(rows.length, adj.entries.length);
    for (const r of rows) assert.equal(r.pass, truth(r.request_id), r.request_id);
  });

  await t.step("the README says the raters are simulated by the script", () => {
    const readme = Deno.readTextFileSync(join(ROOT, "data/runs/README.md"));
    assert.match(readme, /the raters are simulated by the script, not people/);
  });
});
