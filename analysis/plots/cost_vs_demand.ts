/**
 * Monthly cost against planned peak demand, one line per route: a self-hosted route climbs in replica steps, a hosted
 * one in a straight line; the crossings marked, the planned peak drawn, and each line dotted where it is an
 * extrapolation beyond what its run measured.
 *
 * @module
 */
import { sig } from "../../lib/number_format.ts";
import type { VolumeResult } from "../compare/volume.ts";
import { colour, type Figure, makeFigure, plain, type Trace } from "./figure.ts";

/**
 * The figure of a `costAtVolume` result: per route, its monthly cost on the result's demand grid (solid up to the
 * demand its run measured, dotted beyond), the crossings as markers, the planned peak as a vertical line.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { costVsDemandFigure } from "./cost_vs_demand.ts";
 * const f = costVsDemandFigure({
 *   demand: { peak_accepted_rps: 2, monthly_accepted: 1e6, profile: null, monthly_from: "--monthly", redundancy: null,
 *     extrapolate: false },
 *   currency: "USD", hours_per_month: 730, routes: [], rules: [],
 *   curve: { demand_rps: [0, 2, 4], routes: [{ route: "hosted", monthly: [10, 20, 30], reach_accepted_rps: 3 }] },
 *   crossings: [], measured: [{ run_id: "r", route: "hosted", window: "steady stages", offered: 100, accepted: 90 }],
 * });
 * assert.deepEqual(f.data[0]!.x, [0, 2, 3]);
 * assert.deepEqual(f.data[1]!.x, [3, 4]);
 * ```
 */
export function costVsDemandFigure(v: VolumeResult): Figure {
  const xs = v.curve.demand_rps;
  const data: Trace[] = [];
  v.curve.routes.forEach((r, i) => {
    const reach = r.reach_accepted_rps;
    const interp = (x: number) => {
      const k = xs.findIndex((g) => g >= x);
      if (k <= 0) return r.monthly[Math.max(k, 0)]!;
      const x0 = xs[k - 1]!, x1 = xs[k]!;
      return r.monthly[k - 1]! + (r.monthly[k]! - r.monthly[k - 1]!) * (x - x0) / (x1 - x0);
    };
    const inside = xs.map((x, k) => [x, r.monthly[k]!] as const).filter(([x]) => x < reach);
    const beyond = xs.map((x, k) => [x, r.monthly[k]!] as const).filter(([x]) => x > reach);
    const edge = reach <= (xs.at(-1) ?? 0) ? [[reach, interp(reach)] as const] : [];
    const line = (pts: (readonly [number, number])[], dash: string, name: string, legend: boolean): Trace => ({
      type: "scatter",
      mode: "lines",
      name,
      legendgroup: r.route,
      showlegend: legend,
      x: pts.map((p) => p[0]),
      y: plain(pts.map((p) => p[1])),
      line: { color: colour(i), dash, width: 2 },
      hovertemplate: `${r.route}: %{y:,.2f} ${v.currency}/month at %{x:.3f} tasks/s${
        dash === "solid" ? "" : " (EXTRAPOLATION)"
      }<extra></extra>`,
    });
    data.push(line([...inside, ...edge], "solid", r.route, true));
    if (beyond.length) data.push(line([...edge, ...beyond], "dot", `${r.route} (extrapolated)`, false));
  });
  if (v.crossings.length) {
    data.push({
      type: "scatter",
      mode: "markers",
      name: "crossings",
      x: v.crossings.map((c) => c.demand_rps),
      y: v.crossings.map((c) => Math.max(...Object.values(c.monthly))),
      marker: { symbol: "x", size: 11, color: "#000000" },
      text: v.crossings.map((c) =>
        `${c.cheaper_above} cheaper than ${c.cheaper_below} above ${sig(c.demand_rps, 4)} tasks/s${
          c.at_step ? " (replica step)" : ""
        }`
      ),
      hovertemplate: "%{text}<extra></extra>",
    });
  }
  const d = v.demand;
  const windows = [...new Set(v.measured.map((m) => m.window))];
  const n = v.measured.map((m) =>
    `${m.route} ${m.accepted}/${m.offered}${windows.length > 1 ? ` (window ${m.window})` : ""}`
  );
  const measured = `accepted/offered measured: ${n.join(", ")}${windows.length === 1 ? `; window ${windows[0]}` : ""}`;
  return makeFigure({
    id: "cost-vs-demand",
    title: `Monthly cost vs peak demand: ${v.curve.routes.map((r) => r.route).join(" vs ")}`,
    disclosure: `${v.currency} a month (${v.hours_per_month} h) at each peak, the volume scaled with it ` +
      `(planned: ${sig(d.peak_accepted_rps, 6)} accepted tasks/s, ${sig(d.monthly_accepted, 6)} a month, ` +
      `${d.monthly_from}); offered = accepted / measured acceptance; ${measured}`,
    notes: [
      "x: peak accepted tasks per second; y: every monthly cost of the route (per-request costs × the offered " +
      "volume, per-hour costs, GPUs of the replicas the peak needs plus the spares, kept all month)",
      "self-hosted: a step at each replica added; dotted: beyond the demand the route's run measured (EXTRAPOLATION)",
      "markers: where one route becomes cheaper than another",
      ...v.rules,
    ],
    data,
    layout: {
      xaxis: { title: { text: "peak demand (accepted tasks/s)" }, rangemode: "tozero" },
      yaxis: { title: { text: `${v.currency} per month` }, rangemode: "tozero" },
      shapes: [{
        type: "line",
        xref: "x",
        yref: "paper",
        x0: d.peak_accepted_rps,
        x1: d.peak_accepted_rps,
        y0: 0,
        y1: 1,
        line: { dash: "dash", color: "#7f7f7f", width: 1 },
      }],
      annotations: [{
        x: d.peak_accepted_rps,
        y: 1,
        xref: "x",
        yref: "paper",
        text: `planned peak ${sig(d.peak_accepted_rps, 4)}/s`,
        showarrow: false,
        yanchor: "bottom",
      }],
    },
  });
}
