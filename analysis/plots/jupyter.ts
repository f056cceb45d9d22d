/**
 * Figures in a Deno Jupyter notebook, offline: the plotly.js bundle from the
 * npm package goes into the first figure's output of the kernel session and
 * later outputs reuse `window.Plotly`.
 *
 * @module
 */
import type { Figure } from "./figure_spec.ts";
import { figureHtml, RENDER_SCRIPT } from "./html.ts";
import { plotlyBundle } from "./plotly_bundle.ts";

let bundleSent = false;
let displays = 0;

/** A Jupyter media bundle (the subset used here). */
export interface FigureMediaBundle {
  "text/html": string;
  "text/plain": string;
}

/**
 * The media bundle of a figure: `text/html` with the plot (and, on the
 * kernel session's first figure, the inlined plotly.js bundle) and
 * `text/plain` with the title and disclosure. Deno's kernel calls this
 * through a figure's `Symbol.for("Jupyter.display")` method; pass a figure
 * to `Deno.jupyter.display()` or leave it as a cell's last value.
 */
export function jupyterBundle(fig: Figure, options: { includeBundle?: boolean } = {}): FigureMediaBundle {
  const include = options.includeBundle ?? !bundleSent;
  bundleSent = true;
  // A figure may be shown twice in one notebook: each output needs its own element id.
  const elementId = `${fig.id}-${++displays}-${crypto.randomUUID().slice(0, 8)}`;
  const html = [
    include ? `<script>${plotlyBundle()}</script>` : "",
    figureHtml(fig, { elementId }),
    `<script>${RENDER_SCRIPT}</script>`,
  ].join("\n");
  return { "text/html": html, "text/plain": `${fig.title} — ${fig.disclosure}` };
}

/** Makes the next figure carry the plotly.js bundle again (e.g. after the notebook's outputs were cleared). */
export function resetJupyterBundle(): void {
  bundleSent = false;
}

/** Options of {@linkcode show}. */
export interface ShowOptions {
  /** Wait after each display so the kernel sends it before the cell ends, ms. @default {300 with the bundle, else 50} */
  settleMs?: number;
}

/**
 * Displays figures in a Deno Jupyter cell, one output each, and waits for
 * each to be sent. Why the wait: Deno 2.9's kernel can publish a cell's
 * `idle` status before a large output (the first figure carries the ~4.8 MB
 * plotly.js bundle), and `jupyter nbconvert --execute` (nbclient) drops
 * outputs that arrive after `idle`. A figure left as a cell's last value
 * displays too, but may be lost that way when the notebook is executed headless.
 */
export async function show(...figures: Figure[]): Promise<void> {
  await showWith({}, ...figures);
}

/** {@linkcode show} with options. */
export async function showWith(options: ShowOptions, ...figures: Figure[]): Promise<void> {
  for (const fig of figures) {
    const withBundle = !bundleSent;
    await Deno.jupyter.display(jupyterBundle(fig), { raw: true });
    const ms = options.settleMs ?? (withBundle ? 300 : 50);
    await new Promise((resolve) => setTimeout(resolve, ms));
  }
}
