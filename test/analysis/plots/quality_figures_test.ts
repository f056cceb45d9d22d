/**
 * The quality figures: the judge's confusion matrix against the people (one heatmap per class and pooled, counts in
 * the cells, Se/Sp/κ under each panel) and acceptance by quality source (grouped bars with the estimates' intervals,
 * refused sources absent with their reason). The plotted numbers are checked against hand arithmetic and against an
 * independent computation in the test (a Wilson interval written here; acceptance counted from the requests table).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { classify } from "../../../analysis/goodput/classify.ts";
import { goodput } from "../../../analysis/goodput/goodput.ts";
import { loadSloPolicy, runWindow } from "../../../analysis/goodput/policy.ts";
import { acceptanceBySourceFigure } from "../../../analysis/plots/acceptance_by_source.ts";
import { judgeConfusionFigure } from "../../../analysis/plots/judge_confusion.ts";
import { acceptanceBySource } from "../../../analysis/quality/acceptance_by_source.ts";
import { judgeCalibration } from "../../../analysis/quality/calibration.ts";
import { loadRunQuality } from "../../../analysis/quality/verdicts.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import type { QualityRow } from "../../../schema/quality.ts";
import { exampleVerdict } from "../../../testing/quality_rows.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

const verdict = exampleVerdict;

/** Items of a class: `n` of each (truth, judged) combination. */
function items(cls: string, counts: { tp: number; fn: number; fp: number; tn: number }) {
  const rows: QualityRow[] = [];
  const classOf: [string, string][] = [];
  const add = (n: number, truth: boolean, judged: boolean, tag: string) => {
    for (let i = 0; i < n; i++) {
      const id = `${cls}-${tag}${i}`;
      rows.push(verdict(id, "human:ann", truth), verdict(id, "judge:m", judged));
      classOf.push([id, cls]);
    }
  };
  add(counts.tp, true, true, "tp");
  add(counts.fn, true, false, "fn");
  add(counts.fp, false, true, "fp");
  add(counts.tn, false, false, "tn");
  return { rows, classOf };
}

/** Wilson's score interval at 95 %, written out (z = 1.959964): the centre and half-width of (p̂ + z²/2n ± …)/(1 + z²/n). */
function wilson(s: number, n: number): [number, number] {
  const z = 1.959963984540054, p = s / n;
  const centre = (p + z * z / (2 * n)) / (1 + z * z / n);
  const half = (z * Math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))) / (1 + z * z / n);
  return [centre - half, centre + half];
}

Deno.test("judgeConfusionFigure() draws one heatmap per class and one pooled, counts in the cells, Se/Sp/κ under each", () => {
  const qa = items("qa", { tp: 3, fn: 1, fp: 2, tn: 2 });
  const sum = items("sum", { tp: 2, fn: 0, fp: 1, tn: 1 });
  const c = judgeCalibration(
    { rows: [...qa.rows, ...sum.rows], class_of: new Map([...qa.classOf, ...sum.classOf]) },
    "m",
    { resamples: 200 },
  );
  const f = judgeConfusionFigure(c, { run_id: "r1" });
  assert.deepEqual(f.data.map((t) => [t.type, t.name]), [
    ["heatmap", "qa"],
    ["heatmap", "sum"],
    ["heatmap", "pooled over every class"],
  ]);
  // Cells: rows people pass / fail, columns judge pass / fail → [[tp, fn], [fp, tn]]; pooled = the sum of the classes.
  assert.deepEqual(f.data.map((t) => t.text), [[[3, 1], [2, 2]], [[2, 0], [1, 1]], [[5, 1], [3, 3]]]);
  // Colour: each cell's share of its row (qa: 3/4, 1/4; 2/4, 2/4).
  assert.deepEqual(f.data[0]!.z, [[0.75, 0.25], [0.5, 0.5]]);
  // Each panel on its own axes, side by side.
  assert.deepEqual(f.data.map((t) => [t.xaxis, t.yaxis]), [["x", "y"], ["x2", "y2"], ["x3", "y3"]]);
  const notes = (f.layout.annotations as { text: string }[]).map((a) => a.text);
  // Pooled: Se = 5/6, Sp = 3/6; p_o = 8/12, judge passes 8/12, people 6/12: p_e = (6/12)(8/12) + (6/12)(4/12) = 1/2,
  // κ = (2/3 − 1/2)/(1/2) = 1/3.
  const [seLo, seHi] = wilson(5, 6), [spLo, spHi] = wilson(3, 6);
  assert.ok(notes[2]!.includes(`Se 0.833 [${seLo.toFixed(3)}, ${seHi.toFixed(3)}]`), notes[2]);
  assert.ok(notes[2]!.includes(`Sp 0.500 [${spLo.toFixed(3)}, ${spHi.toFixed(3)}]`), notes[2]);
  assert.match(notes[2]!, /κ 0\.333 \[/);
  assert.match(notes[2]!, /n 12$/);
  // qa: Se = 3/4, Sp = 2/4.
  const [qLo, qHi] = wilson(3, 4);
  assert.ok(notes[0]!.startsWith(`<b>qa</b><br>Se 0.750 [${qLo.toFixed(3)}, ${qHi.toFixed(3)}]`), notes[0]);
  assert.match(f.title, /Se 0\.833, Sp 0\.500, κ 0\.333 pooled \(n 12\)/);
  assert.match(f.disclosure, /^run r1; truth = the human consensus/);
});

Deno.test("acceptanceBySourceFigure() of the quality sample: one bar per source and class, equal to counts made here", async () => {
  const run = await loadRun(join(ROOT, "data/runs/quality"));
  const policy = await loadSloPolicy(join(ROOT, "data/slo/design-v1.json"));
  const quality = (await loadRunQuality(run))!;
  const rows = acceptanceBySource(run, policy, quality);
  const f = acceptanceBySourceFigure(rows, { level: 0.95, run_id: "quality" });
  const sources = ["inline", "judge:sim-judge", "human", "calibrated-judge:sim-judge"];
  assert.deepEqual(f.data.map((t) => t.name), sources);
  for (const t of f.data) assert.deepEqual(t.x, ["long_summary", "rag_answer"]);
  const y = (source: string, cls: string) =>
    (f.data.find((t) => t.name === source)!.y as number[])[cls === "long_summary" ? 0 : 1]!;

  // inline: goodput()'s own count over offered.
  const g = goodput(run, policy);
  for (const cls of ["long_summary", "rag_answer"]) {
    const row = g.by_class.find((r) => r.class === cls)!;
    assert.equal(y("inline", cls), row.accepted / row.offered, cls);
  }
  // judge: the class's requests passing every gate but quality (classify without quality_ok), whose judge verdict is
  // pass, over offered.
  const noQuality = structuredClone(policy);
  for (const cls of ["long_summary", "rag_answer"]) {
    noQuality.classes[cls]!.gates = noQuality.classes[cls]!.gates.filter((x) => x !== "quality_ok");
  }
  const c = classify(run, noQuality, runWindow(run, noQuality.window));
  const ids = c.getColumn("request_id").toArray() as string[];
  const cls = c.getColumn("class").toArray() as string[];
  const ok = c.getColumn("accepted").toArray() as boolean[];
  const judgedPass = new Set(
    quality.rows.filter((r) => r.source === "judge:sim-judge" && r.pass).map((r) => r.request_id),
  );
  for (const k of ["long_summary", "rag_answer"]) {
    const offered = cls.filter((x) => x === k).length;
    const passed = ids.filter((id, i) => cls[i] === k && ok[i] && judgedPass.has(id)).length;
    assert.equal(y("judge:sim-judge", k), passed / offered, k);
  }
  // The estimates' error bars reach the intervals' ends; the counts have none.
  for (const t of f.data) {
    const e = t.error_y as { array: number[]; arrayminus: number[] };
    ["long_summary", "rag_answer"].forEach((k, i) => {
      const r = rows.find((x) => x.class === k && x.source === t.name)!;
      if (r.acceptance_low === null) assert.deepEqual([e.array[i], e.arrayminus[i]], [0, 0]);
      else {
        assert.ok(Math.abs((t.y as number[])[i]! + e.array[i]! - r.acceptance_high!) < 1e-12);
        assert.ok(Math.abs((t.y as number[])[i]! - e.arrayminus[i]! - r.acceptance_low!) < 1e-12);
      }
    });
  }
  // The policy's (inline) source is outlined, the others not.
  const widths = f.data.map((t) => (t.marker as { line: { width: number[] } }).line.width);
  assert.deepEqual(widths, [[2, 2], [0, 0], [0, 0], [0, 0]]);
});

Deno.test("acceptanceBySourceFigure() shows a refused source as absent, with its reason on hover and in the notes", () => {
  const base = {
    class: "qa",
    policy: false,
    offered: 20,
    accepted: 12,
    accepted_low: null,
    accepted_high: null,
    acceptance_rate: 0.6,
    acceptance_low: null,
    acceptance_high: null,
    quality_unknown: 0,
    refused: null,
  };
  const why = "judge m's Cohen's kappa against the reviewers is 0.41, below the policy's min_judge_kappa 0.6";
  const f = acceptanceBySourceFigure([
    { ...base, source: "inline", policy: true },
    { ...base, source: "judge:m", accepted: 10, acceptance_rate: 0.5, quality_unknown: 2 },
    { ...base, source: "calibrated-judge:m", accepted: null, acceptance_rate: null, refused: why },
  ]);
  const refused = f.data[2]!;
  assert.deepEqual(refused.y, [0]);
  assert.deepEqual((refused.marker as { opacity: number[] }).opacity, [0]);
  assert.deepEqual(refused.text, ["refused"]);
  assert.equal((refused.customdata as string[][])[0]![0], `REFUSED: ${why}`);
  assert.ok(f.notes.includes(`qa, calibrated-judge:m: refused: ${why}`));
  // The judge's hover counts the requests without a verdict; no interval anywhere, so no error bars are shown.
  assert.match((f.data[1]!.customdata as string[][])[0]![0]!, /accepted 10 of 20 offered; 2 without a verdict/);
  assert.ok(f.data.every((t) => (t.error_y as { visible: boolean }).visible === false));
});
