/**
 * The report's section "Quality by rubric" on the committed quality sample (data/runs/quality): its place, its tables
 * against counts made here from the quality table by plain loops, its two figures; the absent line without a table;
 * the report command reading the table and refusing a bad one with exit 2.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadSloPolicy } from "../../../analysis/goodput/policy.ts";
import { loadRunQuality } from "../../../analysis/quality/verdicts.ts";
import { buildReport } from "../../../analysis/report/report.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { copyRun } from "../../support/judge_fixture.ts";
import { writeQualityPart } from "../../../schema/quality_file.ts";
import { runCli } from "../../support/run_cli.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const RUN = join(ROOT, "data/runs/quality");
const CLI = join(ROOT, "analysis/cli/report.ts");

/** The cells of the HTML table that follows `after` in `html`, row by row. */
function tableAfter(html: string, after: string): string[][] {
  const at = html.indexOf(after);
  assert.ok(at >= 0, `${after} in the page`);
  const t = html.slice(html.indexOf("<tbody>", at), html.indexOf("</tbody>", at));
  return [...t.matchAll(/<tr>(.*?)<\/tr>/g)].map((m) => [...m[1]!.matchAll(/<td>(.*?)<\/td>/g)].map((c) => c[1]!));
}

Deno.test("buildReport() with a quality table: the section Quality by rubric, its tables as counted here", async (t) => {
  const run = await loadRun(RUN);
  const policy = await loadSloPolicy(join(ROOT, "data/slo/design-v1.json"));
  const quality = (await loadRunQuality(run))!;
  const report = buildReport(run, policy, { quality });

  await t.step("after the figures block, before the caveats; its two figures last in the report's list", () => {
    const h = report.html;
    const section = h.indexOf('<h2 id="quality">Quality by rubric</h2>');
    assert.ok(section > h.indexOf('<h2 id="figures">Figures</h2>'));
    assert.ok(section > h.indexOf('id="figure-alternatives"'));
    assert.ok(section < h.indexOf('<h2 id="absent">'));
    assert.deepEqual(report.figures.slice(-2).map((f) => f.id), [
      "judge-confusion-sim-judge",
      "acceptance-by-quality-source",
    ]);
    assert.ok(!report.absent.some((a) => a.id === "quality"));
    // Each figure once in the page.
    for (const f of report.figures) assert.equal(h.split(`<div class="gp-plot" id="${f.id}"`).length, 2, f.id);
  });

  // The truth people gave each item, by a plain loop: the adjudication, else the raters' common verdict.
  const human = new Map<string, boolean[]>(), adjudicated = new Map<string, boolean>();
  for (const r of quality.rows) {
    if (r.source.startsWith("human:")) human.set(r.request_id, [...human.get(r.request_id) ?? [], r.pass]);
    if (r.source.startsWith("adjudicated:")) adjudicated.set(r.request_id, r.pass);
  }
  const consensus = new Map<string, boolean>();
  for (const [id, vs] of human) {
    if (adjudicated.has(id)) consensus.set(id, adjudicated.get(id)!);
    else if (vs.every((x) => x === vs[0])) consensus.set(id, vs[0]!);
  }

  await t.step("the judge's confusion counts per class and pooled", () => {
    const rows = tableAfter(report.html, 'id="figure-judge-confusion-sim-judge"');
    const count = (cls: string | null) => {
      const c = { tp: 0, fp: 0, tn: 0, fn: 0 };
      for (const r of quality.rows) {
        if (r.source !== "judge:sim-judge" || !consensus.has(r.request_id)) continue;
        if (cls !== null && quality.class_of.get(r.request_id) !== cls) continue;
        const truth = consensus.get(r.request_id)!;
        c[truth ? (r.pass ? "tp" : "fn") : (r.pass ? "fp" : "tn")]++;
      }
      return c;
    };
    assert.deepEqual(rows.map((r) => r[0]), ["long_summary", "rag_answer", "pooled"]);
    for (const r of rows) {
      const c = count(r[0] === "pooled" ? null : r[0]!);
      assert.deepEqual(r.slice(1, 5).map(Number), [c.tp, c.fp, c.tn, c.fn], r[0]);
      // Sensitivity tp / (tp + fn), to three decimals.
      assert.ok(r[5]!.startsWith((c.tp / (c.tp + c.fn)).toFixed(3)), `${r[0]}: ${r[5]}`);
      assert.equal(Number(r[8]), c.tp + c.fp + c.tn + c.fn);
    }
  });

  await t.step("the disagreement record: every item whose raters' verdicts differ, and how it stands", () => {
    const rows = tableAfter(report.html, '<h3 id="quality-disagreements">');
    const differ = [...human].filter(([, vs]) => new Set(vs).size > 1).map(([id]) => id).sort();
    const listed = rows.filter((r) => r[2]!.startsWith("pass")).map((r) => r[1]!).sort();
    assert.deepEqual(listed, differ);
    for (const r of rows) {
      assert.equal(r[5], `adjudicated by cy: ${adjudicated.get(r[1]!) ? "pass" : "fail"}`, r[1]);
    }
  });

  await t.step("agreement: items rated twice per class and the verdicts that differ", () => {
    const rows = tableAfter(report.html, '<h3 id="quality-agreement">');
    assert.deepEqual(rows.map((r) => r[0]), ["long_summary", "rag_answer", "all open-ended classes"]);
    for (const r of rows) {
      const ids = [...human].filter(([id, vs]) =>
        vs.length >= 2 && (r[0] === "all open-ended classes" || quality.class_of.get(id) === r[0])
      );
      assert.equal(Number(r[3]), ids.length, r[0]);
      assert.equal(Number(r[5]), ids.filter(([, vs]) => new Set(vs).size > 1).length, r[0]);
      assert.match(r[2]!, /^-?\d\.\d{3} \[-?\d\.\d{3}, -?\d\.\d{3}\]$/);
    }
  });

  await t.step("acceptance by source: the policy's inline source marked, four sources per class", () => {
    const rows = tableAfter(report.html, 'id="figure-acceptance-by-quality-source"');
    assert.deepEqual(
      rows.filter((r) => r[0] === "long_summary").map((r) => [r[1], r[2]]),
      [["inline", "policy"], ["judge:sim-judge", ""], ["human", ""], ["calibrated-judge:sim-judge", ""]],
    );
    // Offered: the class's requests in the run (its one stage is the window).
    const inline = rows.find((r) => r[0] === "rag_answer" && r[1] === "inline")!;
    const classes = run.requests.getColumn("class").toArray() as string[];
    assert.equal(Number(inline[3]), classes.filter((c) => c === "rag_answer").length);
  });
});

Deno.test("the report command reads the run's quality table: the section, or one absent line, or exit 2", async (t) => {
  const dir = Deno.makeTempDirSync({ prefix: "report-quality-" });
  await t.step("with the table: the section's figures are listed", async () => {
    const r = await runCli(CLI, [RUN, "--out", join(dir, "q.html")]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /judge-confusion-sim-judge: 3 traces/);
    assert.match(r.stdout, /acceptance-by-quality-source: 4 traces/);
    assert.doesNotMatch(r.stdout, /absent: section "Quality by rubric"/);
  });
  await t.step("without one: a line in the absent list", async () => {
    const copy = copyRun(RUN, join(dir, "bare"));
    Deno.removeSync(join(copy, "quality"), { recursive: true });
    const r = await runCli(CLI, [copy, "--out", join(dir, "bare.html")]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /absent: section "Quality by rubric" .*: the run has no quality table/);
  });
  await t.step("an edited part: exit 2, naming the file", async () => {
    const copy = copyRun(RUN, join(dir, "edited"));
    const part = join(copy, "quality/judge-sim-judge.csv");
    Deno.writeTextFileSync(part, Deno.readTextFileSync(part).replace(",true,", ",false,"));
    const r = await runCli(CLI, [copy, "--out", join(dir, "edited.html")]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /judge-sim-judge\.csv/);
    assert.doesNotMatch(r.stderr, /^\s+at /m);
  });
  Deno.removeSync(dir, { recursive: true });
});

Deno.test("a quality table of judge verdicts only: one line each for agreement and calibration, no empty figure", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gp-report-judge-only-" });
  try {
    const copy = copyRun(RUN, join(dir, "judge-only"));
    const full = (await loadRunQuality(await loadRun(RUN)))!;
    await Deno.remove(join(copy, "quality"), { recursive: true });
    const judged = full.rows.filter((r) => r.source.startsWith("judge:"));
    assert.ok(judged.length > 0);
    await writeQualityPart(copy, judged, {
      file: "judge-sim-judge.csv",
      written_by: "judge",
      details: {},
      rubrics: full.table.manifest.rubrics,
    });
    const run = await loadRun(copy);
    const policy = await loadSloPolicy(join(ROOT, "data/slo/design-v1.json"));
    const report = buildReport(run, policy, { quality: (await loadRunQuality(run))! });
    const h = report.html;
    assert.match(h, /No item was rated by two or more raters \(raters: none\)/);
    assert.match(h, /Judge sim-judge: no item has both its verdict and a settled human verdict/);
    assert.ok(!h.includes('id="quality-disagreements"'), "no disagreement record without double-rated items");
    assert.deepEqual(report.figures.slice(-1).map((f) => f.id), ["acceptance-by-quality-source"]);
    assert.ok(!report.figures.some((f) => f.id.startsWith("judge-confusion")));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
