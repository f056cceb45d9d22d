/**
 * Where a rendered report puts things, read back from headless Chromium: the verdict block, and every SVG text
 * element of every figure with its box; and the two checks the layout test makes on them (clipped, overlapping).
 */
import { join } from "node:path";
import { dumpDom } from "../../analysis/plots/chromium.ts";

/** A box in page coordinates (CSS px from the top left of the document). */
export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** One SVG text element with content. */
export interface TextBox {
  text: string;
  /** Its plotly class (`xtick`, `legendtext`, `annotation-text`, `gtitle-subtitle`, …) or its parent's. */
  cls: string;
  box: Box;
}

/** An element of text: its box, its computed line height and its first 200 characters. */
export interface Line {
  tag: string;
  text: string;
  box: Box;
  lineHeight: number;
}

/** Whether an element's text fits one line: its box no taller than 1.5 line heights. */
export const isOneLine = (l: Line): boolean => l.box.h <= 1.5 * l.lineHeight;

/** What the probe read. */
export interface Layout {
  /** window.innerWidth, innerHeight. */
  viewport: [number, number];
  /** The `.gp-verdict` section; null when the page has none. */
  verdict: Box | null;
  /**
   * The first screen's parts: every element of the verdict section above the headline cards (the verdict line, the
   * title), the cards, and each caveat line; each line element with its computed line height (px) and text.
   */
  first: {
    above: Line[];
    headline: Box | null;
    caveats: Line[];
  };
  /** Every `.gp-plot`, in page order: its box and its SVG texts. */
  figures: { id: string; box: Box; texts: TextBox[] }[];
}

/**
 * Waits for the render script's summary (every plot drawn), then writes the layout as JSON into
 * `#gp-layout-probe`: boxes from getBoundingClientRect plus the scroll offset, SVG texts with non-blank content and
 * a non-empty box only (hover labels and empty placeholders are not drawn text).
 */
const PROBE = `(function () {
  function box(r) { return { x: r.left + window.scrollX, y: r.top + window.scrollY, w: r.width, h: r.height }; }
  function measure() {
    var out = { viewport: [window.innerWidth, window.innerHeight], verdict: null, figures: [],
      first: { above: [], headline: null, caveats: [] } };
    var v = document.querySelector(".gp-verdict");
    function line(el) {
      return { tag: el.tagName.toLowerCase(), text: (el.textContent || "").trim().slice(0, 200),
        box: box(el.getBoundingClientRect()), lineHeight: lineHeight(el) };
    }
    // "normal" line height: about 1.2 × the font size.
    function lineHeight(el) {
      var cs = getComputedStyle(el), lh = parseFloat(cs.lineHeight);
      return isNaN(lh) ? 1.2 * parseFloat(cs.fontSize) : lh;
    }
    if (v) {
      out.verdict = box(v.getBoundingClientRect());
      var cards = v.querySelector(".gp-headline");
      if (cards) out.first.headline = box(cards.getBoundingClientRect());
      for (var el = v.firstElementChild; el && el !== cards; el = el.nextElementSibling) out.first.above.push(line(el));
      v.querySelectorAll(".gp-caveat-lines li").forEach(function (li) { out.first.caveats.push(line(li)); });
    }
    document.querySelectorAll(".gp-plot").forEach(function (el) {
      var texts = [];
      el.querySelectorAll("svg text").forEach(function (t) {
        var s = (t.textContent || "").trim();
        var r = t.getBoundingClientRect();
        if (!s || r.width === 0 || r.height === 0) return;
        var cls = t.getAttribute("class") || (t.parentNode && t.parentNode.getAttribute("class")) || "";
        texts.push({ text: s.slice(0, 120), cls: cls, box: box(r) });
      });
      out.figures.push({ id: el.id, box: box(el.getBoundingClientRect()), texts: texts });
    });
    document.getElementById("gp-layout-probe").textContent = JSON.stringify(out);
  }
  function wait() {
    var s = document.getElementById("gp-render-summary");
    if (s && s.textContent) setTimeout(measure, 100); else setTimeout(wait, 50);
  }
  wait();
})();`;

/** Renders `html` at `size` (CSS px) in headless Chromium and returns where everything went. */
export async function probeLayout(html: string, dir: string, size: [number, number]): Promise<Layout> {
  const page = join(dir, "layout-probe.html");
  const probe = `<pre id="gp-layout-probe"></pre><script>${PROBE}</script>`;
  Deno.writeTextFileSync(page, html.replace("</body></html>", `${probe}</body></html>`));
  const dom = await dumpDom(page, { budgetMs: 30_000, size });
  const m = /<pre id="gp-layout-probe">([^<]*)<\/pre>/.exec(dom);
  if (!m || !m[1]) throw new Error("the layout probe wrote nothing (the render summary never appeared)");
  const json = m[1].replaceAll("&quot;", '"').replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&");
  return JSON.parse(json) as Layout;
}

/**
 * The tolerances, px. Clipping: a text box may pass its figure's edge by 1 px (sub-pixel rounding of boxes).
 * Overlap: two text boxes overlap when they share more than 3 px across AND more than 3 px down. A text box is its
 * font's line box, taller than the ink: at 12 px it is 14 px high, of which about 3 px above the capitals and 3 px
 * below the baseline hold no ink for digits and capitals, so two boxes touching by ≤ 3 px (the x and y axes' "0"
 * tick labels at a shared origin share 2.8 × 5.2 px) do not put ink on ink.
 */
export const CLIP_TOLERANCE_PX = 1, OVERLAP_TOLERANCE_PX = 3;

/** Text boxes of a figure that pass its edges. */
export function clippedTexts(fig: Layout["figures"][number]): TextBox[] {
  const b = fig.box, t = CLIP_TOLERANCE_PX;
  return fig.texts.filter(({ box: r }) =>
    r.x < b.x - t || r.y < b.y - t || r.x + r.w > b.x + b.w + t || r.y + r.h > b.y + b.h + t
  );
}

/** Pairs of text boxes of a figure that overlap (beyond the tolerance). */
export function overlappingTexts(fig: Layout["figures"][number]): [TextBox, TextBox][] {
  const out: [TextBox, TextBox][] = [];
  const tol = OVERLAP_TOLERANCE_PX;
  for (let i = 0; i < fig.texts.length; i++) {
    for (let k = i + 1; k < fig.texts.length; k++) {
      const a = fig.texts[i]!.box, c = fig.texts[k]!.box;
      const across = Math.min(a.x + a.w, c.x + c.w) - Math.max(a.x, c.x);
      const down = Math.min(a.y + a.h, c.y + c.h) - Math.max(a.y, c.y);
      if (across > tol && down > tol) out.push([fig.texts[i]!, fig.texts[k]!]);
    }
  }
  return out;
}

/** One line per problem, for an assertion message. */
export function describe(id: string, clipped: TextBox[], overlaps: [TextBox, TextBox][]): string {
  const at = (t: TextBox) => `"${t.text}" [${t.cls}] at ${Math.round(t.box.x)},${Math.round(t.box.y)}`;
  return [
    ...clipped.map((t) => `${id}: clipped ${at(t)} ${Math.round(t.box.w)}×${Math.round(t.box.h)}`),
    ...overlaps.map(([a, b]) => `${id}: ${at(a)} overlaps ${at(b)}`),
  ].join("\n");
}
