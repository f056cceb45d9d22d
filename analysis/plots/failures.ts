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
 * one trace per first failing reason that occurs (in attribution order), so
 * each bar's height is its offered count. Hover gives count and share.
 *
 * @example
 * ```ts ignore
 * const f = failuresFigure(goodput(run, policy));
 * ```
 */
export function failuresFigure(result: GoodputResult, options: FailuresOptions = {}): Figure {
  const by = options.by ?? "class";
  const groups: { name: string; row: GoodputRow }[] = [
    { name: "all", row: result.overall },
    ...(by === "class"
      ? result.by_class.map((r) => ({ name: r.class, row: r }))
      : result.by_stage.map((r) => ({ name: r.stage, row: r }))),
  ];
  const x = groups.map((g) => g.name);
  const share = (n: number, g: { row: GoodputRow }) => (g.row.offered ? n / g.row.offered : 0);
  const trace = (name: string, counts: number[], color: string): Trace => ({
    type: "bar",
    name,
    x,
    y: counts,
    marker: { color },
    customdata: counts.map((n, i) => [share(n, groups[i]!), groups[i]!.row.offered]),
    hovertemplate: `%{x}: ${name} %{y} of %{customdata[1]} offered (%{customdata[0]:.1%})<extra></extra>`,
  });
  const data = [trace("accepted", groups.map((g) => g.row.accepted), "#2ca02c")];
  for (const reason of FAILURE_ORDER) {
    const counts = groups.map((g) => g.row.failures[reason]);
    if (counts.some((n) => n > 0)) data.push(trace(reason, counts, REASON_COLOUR[reason] ?? "#333333"));
  }
  const d = result.disclosure;
  return makeFigure({
    id: `failures-by-${by}`,
    title: `Offered requests by first failing reason, per ${by}`,
    disclosure: disclosureLine(d, ["bars count offered requests"]),
    notes: [
      `each non-accepted request counts once, under its first failing reason in the order ${FAILURE_ORDER.join(", ")}`,
      "shed, rejected and unsent requests stay in the bars: the denominator is every offered request",
    ],
    data,
    layout: {
      barmode: "stack",
      xaxis: { title: { text: by }, type: "category" },
      yaxis: { title: { text: "offered requests" } },
    },
  });
}
