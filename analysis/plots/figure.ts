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
 * Subtitle lines hold at most this many characters: at the figures' 12 px
 * font (≈ 6.6 px a character) a line stays within ≈ 800 px, inside a report
 * figure at 1280 px and a PNG of 900 px; plotly never wraps a line itself.
 */
export const SUBTITLE_CHARS = 120;

/**
 * `text` cut at spaces into lines of at most `max` characters (a word longer
 * than `max` stays whole); joining the lines with single spaces gives `text`
 * back.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { wrapWords } from "./figure.ts";
 * assert.deepEqual(wrapWords("run r; window a+b; n = 3", 12), ["run r;", "window a+b;", "n = 3"]);
 * ```
 */
export function wrapWords(text: string, max = SUBTITLE_CHARS): string[] {
  const lines: string[] = [];
  let line: string | null = null;
  for (const word of text.split(" ")) {
    if (line === null) line = word;
    else if (line.length + 1 + word.length <= max) line += ` ${word}`;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line !== null) lines.push(line);
  return lines;
}

/** Height of the title block, px: padding, the title's line, then one line per subtitle line. */
export function titleBlockHeight(subtitleLines: number): number {
  return TITLE_PAD + TITLE_LINE + SUBTITLE_LINE * subtitleLines;
}

const TITLE_PAD = 12, TITLE_LINE = 26, SUBTITLE_LINE = 16;
/** Room between the title block and the plot area, px. */
const TITLE_GAP = 20;

/**
 * Completes a spec into a {@linkcode Figure}: title with the disclosure as
 * subtitle (cut into lines of at most {@linkcode SUBTITLE_CHARS} characters,
 * `<br>` between them), a top margin that holds both, margins (the spec's
 * `layout.margin` keys replace the defaults one by one), white template. The
 * Jupyter display method is attached as a non-enumerable symbol, so
 * `JSON.stringify(figure)` is the plain spec.
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
  const lines = wrapWords(spec.disclosure);
  const margin = (spec.layout.margin ?? {}) as Record<string, unknown>;
  const fig: Figure = {
    ...spec,
    layout: {
      paper_bgcolor: "#ffffff",
      plot_bgcolor: "#ffffff",
      font: { family: "system-ui, sans-serif", size: 12 },
      legend: { orientation: "h", y: -0.18 },
      ...spec.layout,
      margin: { t: titleBlockHeight(lines.length) + TITLE_GAP, r: 30, b: 60, l: 70, ...margin },
      title: {
        text: spec.title,
        x: 0.01,
        xanchor: "left",
        xref: "container",
        y: 1,
        yanchor: "top",
        yref: "container",
        pad: { t: TITLE_PAD },
        subtitle: { text: lines.join("<br>") },
      },
    },
  };
  Object.defineProperty(fig, JUPYTER_DISPLAY, { value: () => jupyterBundle(fig), enumerable: false });
  return fig;
}

/** Plain numbers for JSON: typed arrays and iterables become arrays, NaN and ±Infinity null. */
export function plain(values: ArrayLike<number | null>): (number | null)[] {
  return Array.from(values, (v) => (v === null || !Number.isFinite(v) ? null : v));
}
