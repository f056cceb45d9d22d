/**
 * A model judge against the people: its confusion matrix per class and pooled, as heatmaps of counts, with
 * sensitivity, specificity and kappa and their intervals under each.
 *
 * @module
 */
import type { CalibrationCell, JudgeCalibration } from "../quality/calibration.ts";
import { type Figure, makeFigure, type Trace } from "./figure.ts";

const f3 = (x: number | null) => (x === null ? "-" : x.toFixed(3));
const interval = (low: number | null, high: number | null) => (low === null ? "" : ` [${f3(low)}, ${f3(high)}]`);

/** The lines under a panel: Se, Sp and kappa with their intervals, n. */
function calibrationLines(cell: CalibrationCell): string[] {
  const rate = (r: CalibrationCell["sensitivity"]) =>
    (r.estimate === null ? "- (no item)" : f3(r.estimate)) +
    (r.estimate === null ? "" : interval(r.low, r.high));
  return [
    `Se ${rate(cell.sensitivity)}`,
    `Sp ${rate(cell.specificity)}`,
    `κ ${
      cell.kappa.kappa === null ? "undefined" : f3(cell.kappa.kappa) + interval(cell.kappa.ci.low, cell.kappa.ci.high)
    }`,
    `n ${cell.n}`,
  ];
}

/**
 * The judge's confusion matrix against the human consensus (`judgeCalibration`), one heatmap per class with
 * calibration items and one pooled over every class: rows what people said (pass, fail), columns the judge's verdict,
 * each cell its count (true positives top left, true negatives bottom right; pass is the positive), coloured by its
 * share of its row. Under each panel: sensitivity tp/(tp + fn) and specificity tn/(tn + fp) with their Wilson intervals,
 * Cohen's kappa with its bootstrap interval, and n. One heatmap trace per panel; the pooled figures in the title.
 *
 * @example One class and the pool: two panels
 * ```ts
 * import assert from "node:assert/strict";
 * import { judgeCalibration } from "../quality/calibration.ts";
 * import { judgeConfusionFigure } from "./judge_confusion.ts";
 * const v = (request_id: string, source: string, pass: boolean) => ({
 *   run_id: "r", request_id, source, rubric_id: "x", rubric_sha256: "0".repeat(64), scores: "{}", pass,
 *   rationale: null, time_spent_ms: null, judged_epoch_ms: 0, input_tokens: null, output_tokens: null, calls: null,
 * });
 * const rows = [v("a", "human:ann", true), v("a", "judge:m", true), v("b", "human:ann", false), v("b", "judge:m", true)];
 * const c = judgeCalibration({ rows, class_of: new Map([["a", "qa"], ["b", "qa"]]) }, "m", { resamples: 10 });
 * const fig = judgeConfusionFigure(c);
 * assert.equal(fig.data.length, 2);
 * // people pass: judge pass 1 (tp), judge fail 0 (fn); people fail: judge pass 1 (fp), judge fail 0 (tn)
 * assert.deepEqual(fig.data[0]!.text, [[1, 0], [1, 0]]);
 * ```
 */
export function judgeConfusionFigure(calibration: JudgeCalibration, options: { run_id?: string } = {}): Figure {
  const cells = [...calibration.by_class, calibration.pooled];
  const k = cells.length;
  const gap = 0.06;
  const width = (1 - gap * (k - 1)) / k;
  const judged = ["judge: pass", "judge: fail"];
  const people = ["people: pass", "people: fail"];
  const data: Trace[] = [];
  const layout: Record<string, unknown> = {};
  const annotations: Record<string, unknown>[] = [];
  cells.forEach((cell, i) => {
    const ax = i === 0 ? "" : String(i + 1);
    const counts = [[cell.tp, cell.fn], [cell.fp, cell.tn]];
    const share = counts.map(([a, b]) => [a! + b! ? a! / (a! + b!) : 0, a! + b! ? b! / (a! + b!) : 0]);
    const name = cell.class ?? "pooled over every class";
    const what = [["true positive", "false negative (missed pass)"], [
      "false positive (passed a fail)",
      "true negative",
    ]];
    data.push({
      type: "heatmap",
      name,
      x: judged,
      y: people,
      z: share,
      zmin: 0,
      zmax: 1,
      text: counts,
      texttemplate: "%{text}",
      textfont: { size: 16 },
      colorscale: [[0, "#f7fbff"], [1, "#2171b5"]],
      showscale: false,
      xaxis: `x${ax}`,
      yaxis: `y${ax}`,
      customdata: counts.map((row, r) => row.map((n, c) => [n, what[r]![c]!, (share[r]![c]! * 100).toFixed(1)])),
      hovertemplate: `${name}: %{y}, %{x}: %{customdata[0]} (%{customdata[1]}; %{customdata[2]} % of the row)` +
        "<extra></extra>",
    });
    const x0 = i * (width + gap);
    layout[`xaxis${ax}`] = {
      domain: [x0, x0 + width],
      anchor: `y${ax}`,
      side: "top",
      type: "category",
      fixedrange: true,
    };
    layout[`yaxis${ax}`] = {
      anchor: `x${ax}`,
      type: "category",
      autorange: "reversed",
      showticklabels: i === 0,
      ticks: "",
      fixedrange: true,
    };
    annotations.push({
      xref: "paper",
      yref: "paper",
      x: x0 + width / 2,
      y: -0.04,
      xanchor: "center",
      yanchor: "top",
      align: "center",
      showarrow: false,
      text: [`<b>${name}</b>`, ...calibrationLines(cell)].join("<br>"),
    });
  });
  const p = calibration.pooled;
  const unresolved = Object.values(calibration.unresolved).reduce((a, b) => a + b, 0);
  return makeFigure({
    id: `judge-confusion-${calibration.judge}`.replace(/[^A-Za-z0-9_.-]/g, "-"),
    title: `Judge ${calibration.judge} against the people: Se ${f3(p.sensitivity.estimate)}, Sp ${
      f3(p.specificity.estimate)
    }, κ ${f3(p.kappa.kappa)} pooled (n ${p.n})`,
    disclosure: [
      ...(options.run_id ? [`run ${options.run_id}`] : []),
      "truth = the human consensus (adjudicated, else the raters' common verdict); pass = positive",
      `n = ${p.n} items with a settled consensus and a verdict of judge ${calibration.judge}`,
      `${unresolved} left out (raters disagree, not adjudicated)`,
      `${calibration.level * 100} % intervals`,
    ].join("; "),
    notes: [
      "sensitivity = tp / (tp + fn): the share of answers people passed that the judge passed; specificity = tn / " +
      "(tn + fp): the share people failed that the judge failed; Wilson intervals",
      "kappa: Cohen's kappa of the judge against the consensus, seeded percentile bootstrap over items",
      "every item of the run with both a settled consensus and the judge's verdict, whatever its latency or other " +
      "gates (the judge's error is a property of the judge on answers); colour: the cell's share of its row",
    ],
    data,
    layout: {
      ...layout,
      annotations,
      height: 460,
      margin: { b: 110, l: 100 },
    },
  });
}
