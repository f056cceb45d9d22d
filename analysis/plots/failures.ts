/**
 * Where the offered requests went: accepted, or their first failing reason,
 * as stacked bars per class (or per stage).
 *
 * @module
 */
import { FAILURE_ORDER } from "../goodput/classify.ts";
import type { GoodputResult, GoodputRow } from "../goodput/goodput.ts";
import { disclosureLine } from "./_disclosure.ts";
import { type Figure, makeFigure, type Trace } from "./figure.ts";

/** Options of {@linkcode failuresFigure}. */
export interface FailuresOptions {
  /** One bar per class or per stage, plus "all". @default {"class"} */
  by?: "class" | "stage";
}

/** Reason colours: shedding and not sent in greys and browns, errors red, lateness oranges, gates purples. */
const REASON_COLOUR: Record<string, string> = {
  rejected: "#8c564b",
  client_shed: "#7f7f7f",
  not_sent: "#c7c7c7",
  timeout: "#e377c2",
  error: "#d62728",
  undeclared_mode: "#843c39",
  late_e2e: "#ff7f0e",
  late_ttft: "#ffbb78",
  slow_tpot: "#bcbd22",
  gate_output_valid: "#9467bd",
  gate_schema_ok: "#c5b0d5",
  gate_quality_ok: "#17becf",
  gate_safety_ok: "#9edae5",
  gate_auth_ok: "#393b79",
};

/**
 * Stacked bars of every offered request in the window: accepted first, then
 * one entry per first failing reason that occurs (in attribution order), so
 * each bar's height is its offered count. Two panels, each on its own scale:
 * "all" on the left, one bar per class (or stage) on the right, so the total
 * does not flatten the groups. Each entry is one trace per panel (the
 * legend names it once). Hover gives count and share.
 *
 * @example
 * ```ts ignore
 * const f = failuresFigure(goodput(run, policy));
 * ```
 */
export function failuresFigure(result: GoodputResult, options: FailuresOptions = {}): Figure {
  const by = options.by ?? "class";
  const groups: { name: string; row: GoodputRow }[] = by === "class"
    ? result.by_class.map((r) => ({ name: r.class, row: r }))
    : result.by_stage.map((r) => ({ name: r.stage, row: r }));
  const all = [{ name: "all", row: result.overall }];
  const share = (n: number, row: GoodputRow) => (row.offered ? n / row.offered : 0);
  const panel = (
    name: string,
    bars: { name: string; row: GoodputRow }[],
    count: (row: GoodputRow) => number,
    color: string,
    axes: { xaxis: string; yaxis: string; showlegend: boolean },
  ): Trace => ({
    type: "bar",
    name,
    legendgroup: name,
    ...axes,
    x: bars.map((b) => b.name),
    y: bars.map((b) => count(b.row)),
    marker: { color },
    customdata: bars.map((b) => [share(count(b.row), b.row), b.row.offered]),
    hovertemplate: `%{x}: ${name} %{y} of %{customdata[1]} offered (%{customdata[0]:.1%})<extra></extra>`,
  });
  const both = (name: string, count: (row: GoodputRow) => number, color: string): Trace[] => [
    panel(name, all, count, color, { xaxis: "x", yaxis: "y", showlegend: false }),
    panel(name, groups, count, color, { xaxis: "x2", yaxis: "y2", showlegend: true }),
  ];
  const data = both("accepted", (r) => r.accepted, "#2ca02c");
  for (const reason of FAILURE_ORDER) {
    if ([result.overall, ...groups.map((g) => g.row)].some((r) => r.failures[reason] > 0)) {
      data.push(...both(reason, (r) => r.failures[reason], REASON_COLOUR[reason] ?? "#333333"));
    }
  }
  const d = result.disclosure;
  return makeFigure({
    id: `failures-by-${by}`,
    title: `Offered requests by first failing reason, per ${by}`,
    disclosure: disclosureLine(d, ["bars count offered requests"]),
    notes: [
      `each non-accepted request counts once, under its first failing reason in the order ${FAILURE_ORDER.join(", ")}`,
      "shed, rejected and unsent requests stay in the bars: the denominator is every offered request",
      `left panel: all ${by === "class" ? "classes" : "stages"} of the window, on its own scale; right panel: one ` +
      `bar per ${by}`,
    ],
    data,
    layout: {
      barmode: "stack",
      xaxis: { domain: [0, 0.07], type: "category" },
      yaxis: { title: { text: "offered requests" }, rangemode: "tozero" },
      xaxis2: { domain: [0.16, 1], title: { text: by }, type: "category", anchor: "y2" },
      yaxis2: { title: { text: `offered requests per ${by}` }, rangemode: "tozero", anchor: "x2" },
    },
  });
}
