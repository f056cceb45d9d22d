/**
 * The tornado of a sensitivity analysis: each price line varied alone over its range, the route's cost per accepted
 * task at the low and high ends, one panel per route.
 *
 * @module
 */
import { sig } from "../../lib/number_format.ts";
import type { SensitivityResult } from "../compare/sensitivity.ts";
import { type Figure, makeFigure, type Trace } from "./figure.ts";

const LOW = "#1f77b4", HIGH = "#d62728";
/** Horizontal gap between panels, as a share of the width. */
const GAP = 0.04;

/**
 * One panel per ranked route, side by side on one scale: a horizontal bar per line from the route's cost per accepted
 * task at the sheets' prices to its cost with the line at the low (blue) and high (red) end of its range, largest
 * swing at the top; a dotted line marks each other route's cost, so a bar that crosses one flips that pair. Assumed
 * lines end in `*`. Two traces per route.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tornadoFigure } from "./tornado.ts";
 * const line = { id: "routes.s.gpu_hour", sheet: "prices" as const, path: ["routes", "s", "gpu_hour"], label: "s GPU-hour",
 *   unit: "USD per GPU-hour", value: 2, source: "ASSUMPTION", assumed: "its source says ASSUMPTION", also: null,
 *   range: { low: 1, high: 4, from: "--range-factor" as const } };
 * const f = tornadoFigure({ currency: "USD", prices: { name: "p", as_of: "2026-01-01" }, overheads: null,
 *   disclosure: { denominator: "offered", window: "steady", rules: [] },
 *   routes: [{ route: "h", run_id: "rh", offered: 10, accepted: 8, cost_per_accepted_task: 0.125, rank: 1,
 *              assumed_lines: [] },
 *            { route: "s", run_id: "rs", offered: 10, accepted: 5, cost_per_accepted_task: 0.25, rank: 2,
 *              assumed_lines: [line.id] }],
 *   lines: [line], break_even: [], driven_by: [], dominant: [], other_assumptions: [], caveats: [],
 *   tornado: [{ line: line.id, low: 1, high: 4, max_swing: 0.625, effects: [
 *     { route: "h", slope: 0, at_low: 0.125, at_high: 0.125, swing: 0 },
 *     { route: "s", slope: 0.25, at_low: 0.125, at_high: 0.75, swing: 0.625 }] }] });
 * assert.equal(f.data.length, 4);
 * assert.deepEqual(f.data[3]!.x, [0.5]); // s at the high end: 0.25 → 0.75, a bar of 0.5 from 0.25
 * assert.deepEqual(f.data[3]!.y, ["s GPU-hour *"]);
 * ```
 */
export function tornadoFigure(r: SensitivityResult): Figure {
  const routes = r.routes.filter((x) => x.cost_per_accepted_task !== null);
  const byId = new Map(r.lines.map((l) => [l.id, l]));
  // plotly draws the first category at the bottom: the largest swing last.
  const rows = [...r.tornado].reverse();
  const label = (id: string) => {
    const l = byId.get(id)!;
    return `${l.label}${l.assumed ? " *" : ""}`;
  };
  const y = rows.map((t) => label(t.line));
  const width = (1 - GAP * (routes.length - 1)) / Math.max(1, routes.length);
  const data: Trace[] = [];
  const shapes: Record<string, unknown>[] = [];
  const layout: Record<string, unknown> = {};
  routes.forEach((route, k) => {
    const axis = k === 0 ? "x" : `x${k + 1}`;
    const base = route.cost_per_accepted_task!;
    for (const [end, colour] of [["low", LOW], ["high", HIGH]] as const) {
      const at = rows.map((t) => t.effects.find((e) => e.route === route.route)?.[`at_${end}`] ?? null);
      data.push({
        type: "bar",
        orientation: "h",
        name: `line at the ${end} end of its range`,
        legendgroup: end,
        showlegend: k === 0,
        x: at.map((v) => (v === null ? null : v - base)),
        base: at.map(() => base),
        y,
        xaxis: axis,
        yaxis: "y",
        marker: { color: colour },
        customdata: rows.map((t, i) => [sig(t[end], 5), sig(at[i], 5), byId.get(t.line)!.unit]),
        hovertemplate:
          `${route.route}: %{y} at %{customdata[0]} %{customdata[2]}: %{customdata[1]} ${r.currency} per accepted task<extra></extra>`,
      });
    }
    for (const other of routes.filter((o) => o !== route)) {
      shapes.push({
        type: "line",
        xref: axis,
        yref: "paper",
        x0: other.cost_per_accepted_task,
        x1: other.cost_per_accepted_task,
        y0: 0,
        y1: 1,
        line: { dash: "dot", width: 1, color: "#555555" },
        label: { text: other.route, textposition: "start", font: { size: 10 } },
      });
    }
    const start = k * (width + GAP);
    layout[k === 0 ? "xaxis" : `xaxis${k + 1}`] = {
      domain: [start, start + width],
      anchor: "y",
      title: { text: `${route.route} (now ${sig(base, 5)} ${r.currency})` },
      ...(k === 0 ? {} : { matches: "x" }),
    };
  });
  const o = r.overheads ? `${r.overheads.name} (as of ${r.overheads.as_of})` : "not priced";
  return makeFigure({
    id: "sensitivity-tornado",
    title: `What would change the answer: cost per accepted task as each price moves (${
      routes.map((x) => x.route).join(", ")
    })`,
    disclosure:
      `cost per accepted task = ledger total / accepted tasks; denominator ${r.disclosure.denominator}; window ${r.disclosure.window}; ` +
      `n = ${routes.map((x) => `${x.route} ${x.accepted} accepted of ${x.offered} offered`).join(", ")}; ` +
      `prices ${r.prices.name} (as of ${r.prices.as_of}); overheads ${o}; each line alone over its range, other prices as on the sheets`,
    notes: [
      `x: ${r.currency} per accepted task of each route, one panel per route on one scale`,
      "* = assumption: the line's source says ILLUSTRATIVE, ASSUMPTION or PLACEHOLDER, or the caller marked it",
      "ranges: --range LINE=LOW:HIGH, else ×0.5 to ×2 of the sheet's price (--range-factor); a line at 0 is not drawn",
      "a dotted line marks another route's cost now: a bar that crosses it flips the two routes' order",
      ...r.caveats,
    ],
    data,
    layout: {
      ...layout,
      barmode: "overlay",
      yaxis: { type: "category", automargin: true },
      shapes,
      legend: { orientation: "h", x: 0, y: 1, yanchor: "bottom", yref: "paper" },
      height: Math.max(460, 260 + 36 * rows.length),
    },
  });
}
