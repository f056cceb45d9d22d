/**
 * Each open-ended class's acceptance read with every quality source the run's table holds, side by side.
 *
 * @module
 */
import type { SourceAcceptanceRow } from "../quality/acceptance_by_source.ts";
import { type Figure, makeFigure, type Trace } from "./figure.ts";

/** Options of {@linkcode acceptanceBySourceFigure}. */
export interface AcceptanceBySourceOptions {
  /** Two-sided level of the estimates' intervals (the policy's `quality.level`). @default {0.95} */
  level?: number;
  /** The run, for the disclosure. */
  run_id?: string;
}

/** A source's colour by its kind: inline grey, the judge orange, people green, the calibrated judge blue. */
const KIND_COLOUR: Record<string, string> = {
  inline: "#7f7f7f",
  judge: "#ff7f0e",
  human: "#2ca02c",
  "calibrated-judge": "#1f77b4",
};

const f4 = (x: number | null) => (x === null ? "-" : x.toFixed(4));

/**
 * Grouped bars: one group per class, one bar per quality source (`inline`, `judge:<model>`, `human`,
 * `calibrated-judge:<model>`), its height the class's acceptance (accepted / offered) read with that source, error bars
 * the interval of an estimate (human, calibrated-judge; a count has none). The policy's own source is outlined. A source
 * that cannot be used has no bar: its place says "refused" and the hover gives the reason (also in the notes). One trace
 * per source, in the order the rows give them.
 *
 * @example A refused source has no height and says why on hover
 * ```ts
 * import assert from "node:assert/strict";
 * import { acceptanceBySourceFigure } from "./acceptance_by_source.ts";
 * const row = { class: "qa", policy: false, offered: 10, accepted: 6, accepted_low: null, accepted_high: null,
 *   acceptance_rate: 0.6, acceptance_low: null, acceptance_high: null, quality_unknown: 0, refused: null };
 * const f = acceptanceBySourceFigure([
 *   { ...row, source: "inline", policy: true },
 *   { ...row, source: "human", accepted: 5.5, accepted_low: 4, accepted_high: 7, acceptance_rate: 0.55,
 *     acceptance_low: 0.4, acceptance_high: 0.7 },
 *   { ...row, source: "calibrated-judge:m", accepted: null, acceptance_rate: null, refused: "kappa 0.4 < 0.6" },
 * ]);
 * assert.deepEqual(f.data.map((t) => [t.name, t.y]), [["inline", [0.6]], ["human", [0.55]], ["calibrated-judge:m", [0]]]);
 * // Error bars: 0.7 − 0.55 above, 0.55 − 0.4 below.
 * const e = f.data[1]!.error_y as { array: number[]; arrayminus: number[] };
 * assert.ok(Math.abs(e.array[0]! - 0.15) < 1e-12 && Math.abs(e.arrayminus[0]! - 0.15) < 1e-12);
 * assert.deepEqual(f.data[2]!.text, ["refused"]);
 * ```
 */
export function acceptanceBySourceFigure(
  rows: readonly SourceAcceptanceRow[],
  options: AcceptanceBySourceOptions = {},
): Figure {
  const level = options.level ?? 0.95;
  const classes = [...new Set(rows.map((r) => r.class))];
  const sources = [...new Set(rows.map((r) => r.source))];
  const data: Trace[] = sources.map((source) => {
    const at = classes.map((c) => rows.find((r) => r.class === c && r.source === source) ?? null);
    const kind = source.split(":")[0]!;
    const y = at.map((r) => (r === null ? null : r.refused !== null ? 0 : r.acceptance_rate));
    const estimate = (r: SourceAcceptanceRow | null) => r !== null && r.refused === null && r.acceptance_low !== null;
    return {
      type: "bar",
      name: source,
      x: classes,
      y,
      marker: {
        color: KIND_COLOUR[kind] ?? "#333333",
        opacity: at.map((r) => (r?.refused ? 0 : 1)),
        line: { color: "#000000", width: at.map((r) => (r?.policy ? 2 : 0)) },
      },
      error_y: {
        type: "data",
        symmetric: false,
        array: at.map((r, i) => (estimate(r) ? r!.acceptance_high! - y[i]! : 0)),
        arrayminus: at.map((r, i) => (estimate(r) ? y[i]! - r!.acceptance_low! : 0)),
        visible: at.some(estimate),
        color: "#333333",
      },
      text: at.map((r) => (r?.refused ? "refused" : "")),
      textposition: "outside",
      cliponaxis: false,
      customdata: at.map((r) => [hover(r, level)]),
      hovertemplate: `%{x}, ${source}: %{customdata[0]}<extra></extra>`,
    };
  });
  const refused = rows.filter((r) => r.refused !== null);
  const offered = classes.map((c) => `${c} ${rows.find((r) => r.class === c && r.refused === null)?.offered ?? "-"}`);
  return makeFigure({
    id: "acceptance-by-quality-source",
    title: "Acceptance of each open-ended class by quality source",
    disclosure: [
      ...(options.run_id ? [`run ${options.run_id}`] : []),
      "acceptance = accepted / offered in the window, the other gates and latency limits as the policy sets them",
      `offered ${offered.join(", ")}`,
      `error bars: ${
        level * 100
      } % interval of an estimate (human: stratified; calibrated-judge: Rogan–Gladen, delta ` +
      "method); inline and judge are counts",
      "outlined: the policy's source",
    ].join("; "),
    notes: [
      "inline: the requests log's quality_ok; judge:<model>: the judge's verdict (a request without one is not " +
      "accepted); human: the reviewers' consensus on a stratified sample; calibrated-judge:<model>: the judge's pass " +
      "share corrected for its error measured against the reviewers (docs/quality_goodput.md)",
      ...refused.map((r) => `${r.class}, ${r.source}: refused: ${r.refused}`),
    ],
    data,
    layout: {
      barmode: "group",
      hovermode: "x",
      xaxis: { type: "category", title: { text: "class" } },
      yaxis: { title: { text: "acceptance (accepted / offered)" }, range: [0, 1.08], tickformat: ".0%" },
    },
  });
}

/** A bar's hover text: the rate with its interval and the counts, or why the source is refused. */
function hover(r: SourceAcceptanceRow | null, level: number): string {
  if (r === null) return "no verdicts of this source on the class";
  if (r.refused !== null) return `REFUSED: ${r.refused}`;
  const accepted = r.accepted_low === null
    ? `${r.accepted}`
    : `≈${r.accepted!.toFixed(1)} [${r.accepted_low.toFixed(1)}, ${r.accepted_high!.toFixed(1)}]`;
  const rate = r.acceptance_low === null
    ? f4(r.acceptance_rate)
    : `${f4(r.acceptance_rate)} [${f4(r.acceptance_low)}, ${f4(r.acceptance_high)}] (${level * 100} %)`;
  return `acceptance ${rate}; accepted ${accepted} of ${r.offered} offered` +
    (r.quality_unknown ? `; ${r.quality_unknown} without a verdict (not accepted)` : "") +
    (r.policy ? "; the policy's source" : "");
}
