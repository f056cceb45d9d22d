/**
 * Where the wait went: one stacked horizontal bar per class (and all classes), each segment's share of the
 * group's waiting time.
 *
 * @module
 */
import { WAIT_SEGMENTS, type WaitBreakdownResult, type WaitSegment } from "../latency/wait_breakdown.ts";
import { windowLine } from "./_disclosure.ts";
import { type Figure, makeFigure, type Trace } from "./figure.ts";

/** Options of {@linkcode waitBreakdownFigure}. */
export interface WaitBreakdownFigureOptions {
  /** The tasks drawn: the accepted ones, or every completed one. @default {"accepted"} */
  population?: "accepted" | "completed";
}

/** Segment colours: the user's side in blues, the service's own steps in greens and purples, the model orange. */
export const SEGMENT_COLOUR: Record<WaitSegment, string> = {
  page: "#1f77b4",
  network: "#aec7e8",
  queue: "#9467bd",
  retrieval: "#2ca02c",
  model: "#ff7f0e",
  tools: "#98df8a",
  render: "#17becf",
  other: "#c7c7c7",
};

const pct = (x: number | null) => (x === null ? "-" : `${(x * 100).toFixed(1)} %`);

/**
 * Stacked horizontal bars of a {@linkcode waitBreakdown} result: one bar per class, then "all" at the top, each
 * segment's pooled share of the group's waiting time (Σ segment ms / Σ e2e ms, so a bar adds up to 100 %); one
 * trace per segment that some task measured, in the display order, the model orange. Hover gives the segment's
 * pooled and mean share, median and p95 ms and its n. Segments no task measured are not drawn; the notes name them.
 *
 * @example
 * ```ts ignore
 * const f = waitBreakdownFigure(waitBreakdown(run, policy));
 * ```
 */
export function waitBreakdownFigure(result: WaitBreakdownResult, options: WaitBreakdownFigureOptions = {}): Figure {
  const population = options.population ?? "accepted";
  // plotly draws the first category at the bottom: classes in reverse order, then "all", so it is the top bar.
  const own = result.rows.filter((r) => r.population === population);
  const rows = [...own.filter((r) => r.class !== null).reverse(), ...own.filter((r) => r.class === null)];
  const names = rows.map((r) => `${r.class ?? "all"} (n ${r.n})`);
  const drawn = WAIT_SEGMENTS.filter((s) => rows.some((r) => r.segments[s].n > 0));
  const data: Trace[] = drawn.map((s) => ({
    type: "bar",
    orientation: "h",
    name: s,
    x: rows.map((r) => r.segments[s].pooled_share ?? 0),
    y: names,
    marker: { color: SEGMENT_COLOUR[s] },
    customdata: rows.map((r) => {
      const g = r.segments[s];
      return [pct(g.mean_share), g.median_ms, g.p95_ms, g.n];
    }),
    hovertemplate: `%{y}: ${s} %{x:.1%} of the waiting time; mean share %{customdata[0]}, median ` +
      "%{customdata[1]:.4~r} ms, p95 %{customdata[2]:.4~r} ms, n %{customdata[3]}<extra></extra>",
  }));
  const d = result.disclosure;
  const all = rows.at(-1);
  const na = WAIT_SEGMENTS.filter((s) => !drawn.includes(s));
  return makeFigure({
    id: "wait-breakdown",
    title: `Where the wait went: ${population} tasks, per class`,
    disclosure: windowLine(d.run_id, d.window.stages, d.window.measurement_seconds, [
      `${d.run_kind} run`,
      `n = ${population === "accepted" ? d.n.accepted : d.n.completed} ${population} tasks`,
      `outside the model server: ${pct(all?.outside_model.pooled_share ?? null)} of the waiting time`,
    ]),
    notes: [
      `a bar is a group's whole waiting time (Σ e2e, completed_ms − scheduled_ms); each segment its pooled share: ${d.rules.share}`,
      d.rules.overlap,
      d.rules.measured,
      ...na.map((s) => `${s}: n/a (not drawn): ${d.not_measured[s] ?? "no task measured it"}`),
      ...(d.phases.tasks_with_phases ? [d.rules.clock] : []),
    ],
    data,
    layout: {
      barmode: "stack",
      // The segments in display order (a stacked bar chart's legend runs backwards unless told), at the figure's
      // foot, below the axis title whatever the number of bars.
      legend: { orientation: "h", traceorder: "normal", x: 0, y: 0, yref: "container", yanchor: "bottom" },
      xaxis: { title: { text: "share of the waiting time" }, tickformat: ".0%", range: [0, 1] },
      yaxis: { type: "category", automargin: true },
      margin: { b: 100 },
      height: Math.max(300, 180 + 40 * rows.length),
    },
  });
}
