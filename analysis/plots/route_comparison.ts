/**
 * Routes (hosted, self-hosted, hybrid) compared on the same tasks, the same
 * quality bar and the same arrival schedule.
 *
 * @module
 */
import { colour, type Figure, makeFigure, type Trace } from "./figure.ts";

/** One route's figures, each computed under the same rules. */
export interface RouteFigures {
  route: string;
  accepted_goodput: number | null;
  acceptance_rate: number | null;
  /** null when the route has no priced ledger or accepted no task. */
  cost_per_accepted_task: number | null;
  /** Requests offered on the route. */
  n: number;
}

/** The input of {@linkcode routeComparisonFigure}. */
export interface RouteComparisonInput {
  routes: RouteFigures[];
  /** e.g. "USD". */
  currency: string;
  /** One line: the shared rules (denominator, window, SLO, price sheet). */
  disclosure: string;
}

/**
 * The routes of a `compareRouteCosts` result in three panels, one bar per route in each: accepted goodput, acceptance
 * rate, cost per accepted task (a missing cost shows no bar and says so on
 * hover). n per route on hover. Three traces.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { routeComparisonFigure } from "./route_comparison.ts";
 * const f = routeComparisonFigure({ currency: "USD", disclosure: "same plan",
 *   routes: [{ route: "hosted", accepted_goodput: 4, acceptance_rate: 0.9, cost_per_accepted_task: 0.01, n: 100 },
 *            { route: "self", accepted_goodput: 3, acceptance_rate: 0.8, cost_per_accepted_task: null, n: 100 }] });
 * assert.equal(f.data.length, 3);
 * assert.deepEqual(f.data[2]!.y, [0.01, null]);
 * ```
 */
export function routeComparisonFigure(result: { figure: RouteComparisonInput }): Figure;
/** The figure of a prepared input (the report's extras, tests). */
export function routeComparisonFigure(input: RouteComparisonInput): Figure;
export function routeComparisonFigure(from: { figure: RouteComparisonInput } | RouteComparisonInput): Figure {
  const input = "figure" in from ? from.figure : from;
  const x = input.routes.map((r) => r.route);
  const n = input.routes.map((r) => r.n);
  const panel = (k: number, name: string, y: (number | null)[], fmtY: string): Trace => ({
    type: "bar",
    name,
    x,
    y,
    xaxis: k === 1 ? "x" : `x${k}`,
    yaxis: k === 1 ? "y" : `y${k}`,
    marker: { color: input.routes.map((_, i) => colour(i)) },
    customdata: n.map((v, i) => [v, y[i] === null ? "not available" : ""]),
    hovertemplate: `%{x}: ${name} %{y${fmtY}} %{customdata[1]} (n = %{customdata[0]})<extra></extra>`,
  });
  const routes = input.routes;
  return makeFigure({
    id: "route-comparison",
    title: `Routes compared: ${x.join(" vs ")}`,
    disclosure: `${input.disclosure}; n = ${n.join(" / ")} offered`,
    notes: [
      "every route is measured on the same tasks, quality bar and arrival schedule",
      `cost per accepted task in ${input.currency}: every cost of the route / its accepted tasks`,
    ],
    data: [
      panel(1, "accepted goodput (tasks/s)", routes.map((r) => r.accepted_goodput), ":.3f"),
      panel(2, "acceptance rate", routes.map((r) => r.acceptance_rate), ":.1%"),
      panel(3, `cost per accepted task (${input.currency})`, routes.map((r) => r.cost_per_accepted_task), ":.4f"),
    ],
    layout: {
      showlegend: false,
      xaxis: { domain: [0, 0.3], type: "category" },
      xaxis2: { domain: [0.35, 0.65], type: "category", anchor: "y2" },
      xaxis3: { domain: [0.7, 1], type: "category", anchor: "y3" },
      yaxis: { title: { text: "accepted goodput (tasks/s)" }, rangemode: "tozero" },
      yaxis2: { title: { text: "acceptance rate" }, anchor: "x2", range: [0, 1], tickformat: ".0%" },
      yaxis3: { title: { text: `${input.currency} per accepted task` }, anchor: "x3", rangemode: "tozero" },
    },
  });
}
