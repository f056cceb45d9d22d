/**
 * Figures as HTML: one figure's markup, the script that draws every figure
 * of a page and records what rendered, and a self-contained page with the
 * plotly.js bundle inlined once.
 *
 * @module
 */
import type { Figure } from "./figure_spec.ts";
import { plotlyBundle } from "./plotly_bundle.ts";

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");
}

/** JSON safe inside a `<script>` element: typed arrays become arrays, `<` is escaped. */
export function scriptJson(value: unknown): string {
  const json = JSON.stringify(value, (_k, v) => (ArrayBuffer.isView(v) ? Array.from(v as unknown as number[]) : v));
  return json.replaceAll("<", "\\u003c");
}

/** Options of {@linkcode figureHtml}. */
export interface FigureHtmlOptions {
  /** Element id of the plot (unique in the page). @default {figure.id} */
  elementId?: string;
  /** Show the notes under the plot. @default {true} */
  notes?: boolean;
}

/**
 * One figure's markup: the plot element (with the expected trace count in
 * `data-traces`, as tall as the layout's `height` when it sets one), its spec as JSON, and a caption with the disclosure and
 * notes. {@linkcode RENDER_SCRIPT} draws it.
 */
export function figureHtml(fig: Figure, options: FigureHtmlOptions = {}): string {
  const id = options.elementId ?? fig.id;
  const notes = options.notes ?? true;
  const spec = { data: fig.data, layout: fig.layout };
  // A figure that sets its own height gets a box of that height: plotly draws into the box it is given.
  const height = typeof fig.layout.height === "number" ? ` style="height:${fig.layout.height}px"` : "";
  return [
    `<figure class="gp-figure" id="figure-${escapeHtml(id)}">`,
    `<div class="gp-plot" id="${escapeHtml(id)}" data-traces="${fig.data.length}"${height}></div>`,
    `<script type="application/json" class="gp-spec" data-for="${escapeHtml(id)}">${scriptJson(spec)}</script>`,
    `<figcaption><b>${escapeHtml(fig.title)}</b> — ${escapeHtml(fig.disclosure)}`,
    notes && fig.notes.length ? `<ul>${fig.notes.map((n) => `<li>${escapeHtml(n)}</li>`).join("")}</ul>` : "",
    "</figcaption></figure>",
  ].join("");
}

/**
 * Draws every `.gp-plot` not drawn yet from its JSON spec, then writes a
 * render summary into `#gp-render-summary` (JSON: per plot its id, the
 * expected trace count, plotly's trace count, the SVG roots and the trace
 * groups drawn, or the error): what a headless browser test reads back.
 */
export const RENDER_SCRIPT = `(function () {
  var config = { responsive: true, displaylogo: false };
  var specs = document.querySelectorAll("script.gp-spec:not([data-drawn])");
  var jobs = [];
  specs.forEach(function (s) {
    s.setAttribute("data-drawn", "1");
    var el = document.getElementById(s.getAttribute("data-for"));
    var spec = JSON.parse(s.textContent);
    jobs.push(Promise.resolve().then(function () {
      return window.Plotly.newPlot(el, spec.data, spec.layout, config);
    }).then(function () {
      return { id: el.id, expected: Number(el.getAttribute("data-traces")), traces: (el._fullData || []).length,
        svg: el.querySelectorAll("svg.main-svg").length, groups: el.querySelectorAll("g.trace").length, error: null };
    }, function (e) {
      return { id: el.id, expected: Number(el.getAttribute("data-traces")), traces: 0, svg: 0, groups: 0,
        error: String(e && e.message || e) };
    }));
  });
  Promise.all(jobs).then(function (rows) {
    var out = document.getElementById("gp-render-summary");
    if (out) out.textContent = JSON.stringify(rows);
  });
})();`;

/** What the render script recorded for one plot. */
export interface RenderedPlot {
  id: string;
  /** Traces in the spec. */
  expected: number;
  /** Traces plotly drew (`_fullData`). */
  traces: number;
  /** `svg.main-svg` elements in the plot. */
  svg: number;
  /** `g.trace` groups in the plot's SVG. */
  groups: number;
  error: string | null;
}

/** Options of {@linkcode pageHtml}. */
export interface PageHtmlOptions {
  /** The page title. */
  title: string;
  /** HTML placed before the figures (tables, text). @default {""} */
  before?: string;
  /** HTML placed after the figures. @default {""} */
  after?: string;
  /** Extra CSS. @default {""} */
  css?: string;
}

const CSS = `body{font-family:system-ui,sans-serif;margin:24px auto;max-width:1200px;padding:0 16px;color:#222}
table{border-collapse:collapse;margin:8px 0 20px;font-size:13px}th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}
th:first-child,td:first-child{text-align:left}th{background:#f3f3f3}.gp-figure{margin:0 0 32px}
.gp-plot{width:100%;height:480px}figcaption{font-size:13px;color:#444}figcaption ul{margin:4px 0}
#gp-render-summary{display:none}`;

/**
 * A self-contained HTML page: the plotly.js bundle inlined once (no network
 * access), `before`, every figure with its caption, `after`, and the render
 * script with its summary element.
 */
export function pageHtml(figures: Figure[], options: PageHtmlOptions): string {
  return [
    "<!DOCTYPE html>",
    '<html lang="en"><head><meta charset="utf-8">',
    `<title>${escapeHtml(options.title)}</title>`,
    `<style>${CSS}${options.css ?? ""}</style>`,
    `<script>${plotlyBundle()}</script>`,
    "</head><body>",
    options.before ?? "",
    ...figures.map((f) => figureHtml(f)),
    options.after ?? "",
    '<pre id="gp-render-summary"></pre>',
    `<script>${RENDER_SCRIPT}</script>`,
    "</body></html>",
  ].join("\n");
}
