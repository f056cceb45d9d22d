/**
 * The figure spec every plot function returns: plain plotly.js data and
 * layout, with the disclosure as the subtitle. A figure displays itself in a
 * Deno Jupyter notebook (the `Symbol.for("Jupyter.display")` method Deno's
 * kernel calls on a cell's last value).
 *
 * @module
 */
import type { Figure, FigureSpec } from "./figure_spec.ts";
import { jupyterBundle } from "./jupyter.ts";

export type { Figure, FigureSpec, Trace } from "./figure_spec.ts";

const JUPYTER_DISPLAY = Symbol.for("Jupyter.display");

/** Colours shared by every figure, so a class keeps its colour across figures. */
export const PALETTE = [
  "#1f77b4",
  "#ff7f0e",
  "#2ca02c",
  "#d62728",
  "#9467bd",
  "#8c564b",
  "#e377c2",
  "#7f7f7f",
  "#bcbd22",
  "#17becf",
] as const;

/** The palette colour of item `i`, cycling. */
export const colour = (i: number): string => PALETTE[i % PALETTE.length]!;

/**
 * Completes a spec into a {@linkcode Figure}: title with the disclosure as
 * subtitle, margins, white template. The Jupyter display method is attached
 * as a non-enumerable symbol, so `JSON.stringify(figure)` is the plain spec.
 *
 * @example The disclosure is the subtitle
 * ```ts
 * import assert from "node:assert/strict";
 * import { makeFigure } from "./figure.ts";
 * const f = makeFigure({ id: "f", title: "T", disclosure: "n = 3", notes: [], data: [], layout: {} });
 * assert.equal(f.layout.title.subtitle.text, "n = 3");
 * assert.equal(JSON.parse(JSON.stringify(f)).id, "f");
 * ```
 */
export function makeFigure(spec: FigureSpec): Figure {
  const fig: Figure = {
    ...spec,
    layout: {
      margin: { t: 90, r: 30, b: 60, l: 70 },
      paper_bgcolor: "#ffffff",
      plot_bgcolor: "#ffffff",
      font: { family: "system-ui, sans-serif", size: 12 },
      legend: { orientation: "h", y: -0.18 },
      ...spec.layout,
      title: { text: spec.title, x: 0.01, xanchor: "left", subtitle: { text: spec.disclosure } },
    },
  };
  Object.defineProperty(fig, JUPYTER_DISPLAY, { value: () => jupyterBundle(fig), enumerable: false });
  return fig;
}

/** Plain numbers for JSON: typed arrays and iterables become arrays, NaN and ±Infinity null. */
export function plain(values: ArrayLike<number | null>): (number | null)[] {
  return Array.from(values, (v) => (v === null || !Number.isFinite(v) ? null : v));
}
