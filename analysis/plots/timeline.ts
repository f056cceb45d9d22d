/**
 * The run timeline: offered, completed and accepted per second and calls in
 * flight, over the target's queue, running sequences and replicas, with
 * burst stages and outages shaded and stage boundaries marked.
 *
 * @module
 */
import type { LoadedRun } from "../run/loaded_run.ts";
import type { SloPolicy } from "../../schema/slo.ts";
import { type Figure, makeFigure, titleBlockHeight, type Trace, wrapWords } from "./figure.ts";
import { type TimelineInput, timelineInput, type TimelineInputOptions } from "./timeline_input.ts";

export type { ServerSeries, ShadedPeriod, TimelineInput } from "./timeline_input.ts";

/** Rows of stage names above the plot are this far apart, px (10 px text). */
const LABEL_ROW_PX = 13;
/**
 * The narrowest plot area the stage names are laid out for, px (a 900 px PNG less its margins), and the width of
 * a character of 10 px text with room to spare (≈ 5–6 px measured in Chromium): on a wider plot the names only
 * stand further apart.
 */
const PLOT_PX = 800, CHAR_PX = 6.5, LABEL_GAP_PX = 8;

/** A stage name above the plot: its start, text and row (0 = nearest the plot). */
export interface StageLabel {
  start_s: number;
  text: string;
  row: number;
}

/**
 * The stage names over the timeline, each at its stage's start in the first
 * row where it does not run into the name before it, the widths estimated
 * for the narrowest plot ({@linkcode PLOT_PX}). A name is followed by its
 * kind when they differ; drain pauses are unlabelled (their line remains).
 *
 * @example Names 1 s apart on a 100 s run share no row
 * ```ts
 * import assert from "node:assert/strict";
 * import { stageLabelRows } from "./timeline.ts";
 * const stage = (name: string, s: number) => ({ name, kind: "steady" as const, start_ms: s * 1000, end_ms: (s + 1) * 1000, offered_rps: 1 });
 * const rows = stageLabelRows({ seconds: [99], stages: [stage("a", 0), stage("b", 1), stage("c", 50)], server: null });
 * assert.deepEqual(rows.map((l) => [l.text, l.row]), [["a (steady)", 0], ["b (steady)", 1], ["c (steady)", 0]]);
 * ```
 */
export function stageLabelRows(input: Pick<TimelineInput, "seconds" | "stages" | "server">): StageLabel[] {
  const lastBin = input.seconds.length ? input.seconds[input.seconds.length - 1]! + 1 : 0;
  const span = Math.max(
    1e-9,
    lastBin,
    ...input.stages.map((s) => s.end_ms / 1000),
    ...(input.server?.t_s ?? []),
  );
  const pxPerSecond = PLOT_PX / span;
  const rowEnds: number[] = [];
  const out: StageLabel[] = [];
  for (const st of input.stages) {
    if (st.kind === "drain") continue;
    const text = st.name === st.kind ? st.name : `${st.name} (${st.kind})`;
    const start = st.start_ms / 1000;
    let row = rowEnds.findIndex((end) => end <= start);
    if (row < 0) row = rowEnds.push(0) - 1;
    rowEnds[row] = start + (text.length * CHAR_PX + LABEL_GAP_PX) / pxPerSecond;
    out.push({ start_s: start, text, row });
  }
  return out;
}

/** Options of {@linkcode timelineFigure} drawn from a run. */
export interface TimelineFigureOptions extends TimelineInputOptions {
  /** The SLO policy that says which requests were accepted. */
  policy: SloPolicy;
}

/**
 * Two stacked panels sharing the time axis: above, offered / completed /
 * accepted per second and calls in flight; below (when the run has a server
 * timeline), queue length, running sequences and replicas. Burst stages are
 * shaded orange, outages red, stage boundaries are grey lines with the
 * stage names above the plot ({@linkcode stageLabelRows}: in rows, so no two
 * overlap). Four traces, seven with a server timeline.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { timelineFigure } from "./timeline.ts";
 * const f = timelineFigure({ seconds: [0, 1], offered: [2, 3], completed: [1, 2], accepted: [1, 1], in_flight: [0, 2],
 *   server: null, stages: [{ name: "b", kind: "burst", start_ms: 0, end_ms: 2000, offered_rps: 2.5 }],
 *   outages: [{ start_ms: 500, end_ms: 900, label: "503" }], disclosure: "n = 5" });
 * assert.equal(f.data.length, 4);
 * assert.equal((f.layout.shapes as { fillcolor?: string }[]).filter((s) => s.fillcolor).length, 2);
 * ```
 */
export function timelineFigure(run: LoadedRun, options: TimelineFigureOptions): Figure;
/** The figure of a prepared input (tests). */
export function timelineFigure(input: TimelineInput): Figure;
export function timelineFigure(from: LoadedRun | TimelineInput, options?: TimelineFigureOptions): Figure {
  const input = "seconds" in from ? from : timelineInput(from, options!.policy, options);
  const series = (name: string, y: number[], color: string, extra: Record<string, unknown> = {}): Trace => ({
    type: "scatter",
    mode: "lines",
    name,
    x: input.seconds,
    y,
    line: { color, width: 1.6, shape: "hv" },
    ...extra,
  });
  const data: Trace[] = [
    series("offered/s", input.offered, "#7f7f7f"),
    series("completed/s", input.completed, "#1f77b4"),
    series("accepted/s", input.accepted, "#2ca02c", { line: { color: "#2ca02c", width: 2.4, shape: "hv" } }),
    series("in flight (calls)", input.in_flight, "#9467bd", { line: { color: "#9467bd", width: 1.2, dash: "dot" } }),
  ];
  if (input.server) {
    const s = input.server;
    const low = (name: string, y: number[], color: string): Trace => ({
      type: "scatter",
      mode: "lines",
      name,
      x: s.t_s,
      y,
      line: { color, width: 1.4, shape: "hv" },
      xaxis: "x",
      yaxis: "y2",
    });
    data.push(
      low("queue length", s.queue_len, "#d62728"),
      low("running", s.running, "#17becf"),
      low("replicas", s.replicas, "#000000"),
    );
  }
  const shapes: Record<string, unknown>[] = [];
  const annotations: Record<string, unknown>[] = [];
  const band = (a: number, b: number, fill: string) =>
    shapes.push({
      type: "rect",
      xref: "x",
      yref: "paper",
      x0: a / 1000,
      x1: b / 1000,
      y0: 0,
      y1: 1,
      fillcolor: fill,
      opacity: 0.18,
      line: { width: 0 },
      layer: "below",
    });
  for (const st of input.stages) {
    if (st.kind === "burst") band(st.start_ms, st.end_ms, "#ff7f0e");
    shapes.push({
      type: "line",
      xref: "x",
      yref: "paper",
      x0: st.start_ms / 1000,
      x1: st.start_ms / 1000,
      y0: 0,
      y1: 1,
      line: { color: "#bbbbbb", width: 1 },
    });
  }
  const labels = stageLabelRows(input);
  for (const l of labels) {
    annotations.push({
      x: l.start_s,
      y: 1,
      xref: "x",
      yref: "paper",
      text: l.text,
      showarrow: false,
      xanchor: "left",
      yanchor: "bottom",
      yshift: 2 + LABEL_ROW_PX * l.row,
      font: { size: 10, color: "#555555" },
    });
  }
  for (const o of input.outages) {
    band(o.start_ms, o.end_ms, "#d62728");
    annotations.push({
      x: o.start_ms / 1000,
      y: 0.93,
      xref: "x",
      yref: "paper",
      text: o.label,
      showarrow: false,
      xanchor: "left",
      font: { size: 10, color: "#d62728" },
    });
  }
  const split = input.server !== null;
  const rows = labels.reduce((n, l) => Math.max(n, l.row + 1), 0);
  return makeFigure({
    id: "timeline",
    title: "Run timeline: offered, completed and accepted per second",
    disclosure: input.disclosure,
    notes: [
      "offered by scheduled_ms; completed (outcome ok) and accepted by completed_ms; one-second bins from the run epoch",
      "in flight = HTTP calls (attempts) open at the start of each second",
      "orange bands: burst stages; red bands: outages; grey lines: stage starts",
      ...(split ? ["lower panel: the target's own timeline (server table)"] : []),
    ],
    data,
    layout: {
      height: split ? 620 : 460,
      // The stage names stand in rows above the plot: room for them under the title block.
      margin: { t: titleBlockHeight(wrapWords(input.disclosure).length) + LABEL_ROW_PX * rows + 12 },
      xaxis: { title: { text: "seconds since the run epoch" }, anchor: split ? "y2" : "y" },
      yaxis: { title: { text: "requests/s · calls" }, domain: split ? [0.42, 1] : [0, 1], rangemode: "tozero" },
      ...(split
        ? { yaxis2: { title: { text: "queue · running · replicas" }, domain: [0, 0.34], rangemode: "tozero" } }
        : {}),
      shapes,
      annotations,
    },
  });
}
