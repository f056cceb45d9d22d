/**
 * Where the wait went in a production recording beside its load test: per class, one stacked bar per run.
 *
 * @module
 */
import type { ProductionVsTestResult } from "../compare/production_vs_test.ts";
import { WAIT_SEGMENTS, type WaitBreakdownRow } from "../latency/wait_breakdown.ts";
import { type Figure, makeFigure, type Trace } from "./figure.ts";
import { SEGMENT_COLOUR } from "./wait_breakdown.ts";

const pct = (x: number | null) => (x === null ? "-" : `${(x * 100).toFixed(1)} %`);

/**
 * Stacked horizontal bars of the completed tasks' waiting time: for each class (then all, at the top) two bars, the
 * production recording and the load test, each segment's pooled share (Σ segment ms / Σ e2e ms, so a bar adds up to
 * 100 %); the model orange, so what is not orange is the wait outside the model server. Hover gives the segment's
 * median ms and n. A segment a run did not measure has no bar part (its time is in `other`).
 *
 * @example
 * ```ts ignore
 * await show(productionVsTestWaitFigure(productionVsTest(prod, test, policy)));
 * ```
 */
export function productionVsTestWaitFigure(result: ProductionVsTestResult): Figure {
  const rowsOf = (w: typeof result.production.wait) => w.rows.filter((r) => r.population === "completed");
  const prod = rowsOf(result.production.wait), test = rowsOf(result.test.wait);
  const classes = [...new Set([...prod, ...test].map((r) => r.class))];
  // plotly draws the first category at the bottom: classes in reverse order, then all, so it is the top pair.
  const order = [...classes.filter((c) => c !== null).sort().reverse(), null];
  const bars: { label: string; row: WaitBreakdownRow | undefined }[] = order.flatMap((cls) => [
    { label: `${cls ?? "all"} · load test`, row: test.find((r) => r.class === cls) },
    { label: `${cls ?? "all"} · production`, row: prod.find((r) => r.class === cls) },
  ]);
  const drawn = WAIT_SEGMENTS.filter((s) => bars.some((b) => (b.row?.segments[s].n ?? 0) > 0));
  const data: Trace[] = drawn.map((s) => ({
    type: "bar",
    orientation: "h",
    name: s,
    x: bars.map((b) => b.row?.segments[s].pooled_share ?? 0),
    y: bars.map((b) => `${b.label} (n ${b.row?.n ?? 0})`),
    marker: { color: SEGMENT_COLOUR[s] },
    customdata: bars.map((b) => {
      const g = b.row?.segments[s];
      return [g?.median_ms ?? null, g?.n ?? 0, g && g.n > 0 ? "" : " (not measured)"];
    }),
    hovertemplate: `%{y}: ${s} %{x:.1%} of the waiting time, median %{customdata[0]:.4~r} ms, n ` +
      "%{customdata[1]}%{customdata[2]}<extra></extra>",
  }));
  const all = result.outside_model.find((o) => o.class === null);
  return makeFigure({
    id: "production-vs-test-wait",
    title: "Where the wait went: the production recording beside its load test",
    disclosure: `completed tasks; outside the model server: production ${pct(all?.production.pooled_share ?? null)} ` +
      `of ${all?.production.n ?? 0} tasks' waiting time (${result.production.run_id}), load test ` +
      `${pct(all?.test.pooled_share ?? null)} of ${all?.test.n ?? 0} (${result.test.run_id}); pooled shares Σ/Σ`,
    notes: [
      result.disclosure.rules.outside_model,
      result.production.wait.disclosure.rules.overlap,
      `segments the load test did not measure: ${
        Object.keys(result.test.wait.disclosure.not_measured).join(", ") || "none"
      }`,
    ],
    data,
    layout: {
      barmode: "stack",
      legend: { orientation: "h", traceorder: "normal", x: 0, y: 0, yref: "container", yanchor: "bottom" },
      xaxis: { title: { text: "share of the waiting time" }, tickformat: ".0%", range: [0, 1] },
      yaxis: { type: "category", automargin: true },
      margin: { b: 100 },
      height: Math.max(320, 180 + 36 * bars.length),
    },
  });
}
