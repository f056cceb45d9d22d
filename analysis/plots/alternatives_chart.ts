/**
 * The denominators/alternatives chart: the headline number next to what it
 * becomes under every other reasonable rule choice.
 *
 * @module
 */
import type { AlternativesResult } from "../audit/alternatives.ts";
import { disclosureLine } from "./_disclosure.ts";
import { type Figure, makeFigure, type Trace } from "./figure.ts";
import { sig } from "../../lib/number_format.ts";

const DEN_COLOUR = { offered: "#1f77b4", sent: "#ff7f0e", completed: "#2ca02c" } as const;

/**
 * Two panels over the same rule variants (window × SLO × gates, one row
 * each, the headline's first): left, accepted goodput (independent of the
 * denominator); right, the SLO miss rate under each denominator (offered,
 * sent, completed). The headline's row is starred. Four traces.
 *
 * @example
 * ```ts ignore
 * const f = alternativesFigure(alternatives(run, policy));
 * ```
 */
export function alternativesFigure(alt: AlternativesResult): Figure {
  const head = alt.headline;
  const label = (r: typeof head) =>
    `${r.window} · ${r.slo === "lenient" ? `lenient ×${alt.lenient_factor}` : "strict"} · gates ${r.gates}` +
    // A quality source other than the policy's (a run with a quality table) is part of the variant.
    (r.quality === "policy" ? "" : ` · quality ${r.quality}`) +
    (r === head ? " ★" : "");
  const variants = alt.rows.filter((r) => r.denominator === head.denominator);
  const y = variants.map(label);
  const goodput: Trace = {
    type: "bar",
    orientation: "h",
    name: "accepted goodput (tasks/s)",
    x: variants.map((r) => r.accepted_goodput),
    y,
    marker: { color: variants.map((r) => (r === head ? "#d62728" : "#7f7f7f")) },
    customdata: variants.map((r) => [r.accepted, r.measurement_seconds]),
    hovertemplate: "%{y}: %{x:.4f}/s (%{customdata[0]} accepted / %{customdata[1]} s)<extra></extra>",
    xaxis: "x",
    yaxis: "y",
  };
  // Nested marker sizes: equal miss rates under two denominators stay visible.
  const miss: Trace[] = (["offered", "sent", "completed"] as const).map((den, k) => {
    const rows = variants.map((v) =>
      alt.rows.find((r) =>
        r.denominator === den && r.window === v.window && r.slo === v.slo && r.gates === v.gates &&
        r.quality === v.quality
      )!
    );
    return {
      type: "scatter",
      mode: "markers",
      name: `miss rate, denominator ${den}`,
      x: rows.map((r) => r.slo_miss_rate),
      y,
      marker: { color: DEN_COLOUR[den], size: 14 - 4 * k, symbol: den === head.denominator ? "diamond" : "circle" },
      customdata: rows.map((r) => [r.D - r.accepted, r.D]),
      hovertemplate: `%{y}: miss %{x:.1%} = %{customdata[0]} / %{customdata[1]} ${den}<extra></extra>`,
      xaxis: "x2",
      yaxis: "y",
    };
  });
  const differs = alt.rows.filter((r) => r.differs_from_headline).length;
  return makeFigure({
    id: "alternatives",
    title: `The headline under ${alt.rows.length} rule variants (${differs} differ)`,
    disclosure: disclosureLine(head.disclosure, [
      alt.class === null ? "overall" : `class ${alt.class}`,
      `headline ${sig(head.accepted_goodput)}/s, miss ${sig(head.slo_miss_rate)}`,
    ]),
    notes: [
      `lenient = every latency limit × ${alt.lenient_factor}; gates off = no gate required`,
      "warmup_included = the policy window with warm-up stages; whole_run = every stage, drain included",
      "miss rate = (D − accepted) / D for the denominator D; ★ marks the headline's rules",
    ],
    data: [goodput, ...miss],
    layout: {
      height: 520,
      margin: { t: 90, r: 30, b: 60, l: 290 },
      xaxis: { domain: [0, 0.47], title: { text: "accepted goodput (tasks/s)" }, rangemode: "tozero" },
      xaxis2: { domain: [0.53, 1], title: { text: "SLO miss rate" }, range: [0, 1.02], tickformat: ".0%" },
      yaxis: { type: "category", autorange: "reversed" },
    },
  });
}
