/**
 * The comparison page of the demo routes (route-hosted, route-selfhosted, route-hybrid, priced with routes-sim.json,
 * every part given) rendered by headless Chromium at 1400 × 900: the first screen leads with the verdict — the ranked
 * verdict line and the validity line wholly on it, the verdict block above every table and figure — every figure
 * draws all its traces (the page's render summary), and nothing is written to the console as an error.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { dumpDom, screenshot } from "../../analysis/plots/chromium.ts";
import type { RenderedPlot } from "../../analysis/plots/html.ts";
import { buildComparePage } from "../../analysis/report/compare_page.ts";
import { demoPageInput } from "../analysis/report/_compare_page_inputs.ts";
import { artefactDir, haveChromium } from "./_tools.ts";

/** The first screen: a 1400 × 900 window, CSS px (as report_layout_test.ts). */
const FIRST_SCREEN: [number, number] = [1400, 900];

/** Records every console.error, uncaught error and unhandled rejection from the page's first script on. */
const CATCH_ERRORS = `<script>window.__gpErrors = [];
(function () {
  var orig = console.error;
  console.error = function () {
    window.__gpErrors.push("console.error: " + Array.prototype.map.call(arguments, String).join(" "));
    return orig.apply(console, arguments);
  };
  window.addEventListener("error", function (e) { window.__gpErrors.push("error: " + (e.message || e.type)); }, true);
  window.addEventListener("unhandledrejection", function (e) {
    window.__gpErrors.push("unhandled rejection: " + String(e.reason));
  });
})();</script>`;

/** Once the render summary is written: where the verdict, the tables and the figures are, and the errors. */
const PROBE = `<pre id="gp-compare-probe"></pre><script>(function () {
  function box(el) { var r = el.getBoundingClientRect(); return { y: r.top + window.scrollY, h: r.height }; }
  function measure() {
    var all = function (sel) { return Array.prototype.map.call(document.querySelectorAll(sel), box); };
    var out = {
      viewport: [window.innerWidth, window.innerHeight],
      verdict: box(document.querySelector(".gp-verdict")),
      ranked: box(document.getElementById("ranked-verdict")),
      validity: box(document.querySelector(".gp-verdict-line")),
      tables: all("table"),
      figures: all(".gp-plot"),
      rendered: JSON.parse(document.getElementById("gp-render-summary").textContent),
      errors: window.__gpErrors
    };
    document.getElementById("gp-compare-probe").textContent = JSON.stringify(out);
  }
  function wait() {
    var s = document.getElementById("gp-render-summary");
    if (s && s.textContent) setTimeout(measure, 100); else setTimeout(wait, 50);
  }
  wait();
})();</script>`;

interface Box {
  y: number;
  h: number;
}
interface Probe {
  viewport: [number, number];
  verdict: Box;
  ranked: Box;
  validity: Box;
  tables: Box[];
  figures: Box[];
  rendered: RenderedPlot[];
  errors: string[];
}

/** The page with the error catcher first in its head and the probe last in its body, rendered; what the probe read. */
async function probe(html: string, dir: string, name: string): Promise<Probe> {
  const file = join(dir, `${name}.html`);
  const page = html.replace('<meta charset="utf-8">', `$&${CATCH_ERRORS}`).replace("</body></html>", `${PROBE}$&`);
  assert.ok(page.includes("__gpErrors") && page.includes("gp-compare-probe"), "the probe is in the page");
  Deno.writeTextFileSync(file, page);
  const dom = await dumpDom(file, { budgetMs: 30_000, size: FIRST_SCREEN });
  const m = /<pre id="gp-compare-probe">([^<]*)<\/pre>/.exec(dom);
  assert.ok(m && m[1], "the probe wrote nothing (the render summary never appeared)");
  const json = m[1].replaceAll("&quot;", '"').replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&");
  return JSON.parse(json) as Probe;
}

Deno.test({
  name: "the comparison page leads with the verdict on the first screen at 1400 × 900, draws every figure, and logs " +
    "no error",
  ignore: !haveChromium(),
  fn: async (t) => {
    const artefacts = artefactDir("compare-page");
    const page = buildComparePage(await demoPageInput());
    const file = join(artefacts, "compare.html");
    Deno.writeTextFileSync(file, page.html);
    const p = await probe(page.html, artefacts, "compare-probe");

    await t.step("the first screen leads with the verdict", () => {
      assert.equal(p.viewport[0], FIRST_SCREEN[0], "the page is laid out 1400 px wide");
      const [, fold] = FIRST_SCREEN;
      assert.ok(
        p.ranked.y + p.ranked.h <= fold,
        `the ranked verdict ends at ${Math.round(p.ranked.y + p.ranked.h)} px`,
      );
      assert.ok(
        p.validity.y + p.validity.h <= fold,
        `the validity line ends at ${Math.round(p.validity.y + p.validity.h)}`,
      );
      assert.ok(p.ranked.y < p.validity.y, "the ranked verdict first");
      assert.ok(p.verdict.y < fold, "the verdict block starts on the first screen");
      assert.ok(p.tables.length >= 8 && p.figures.length === page.figures.length, `${p.tables.length} tables`);
      for (const [what, boxes] of [["table", p.tables], ["figure", p.figures]] as const) {
        for (const b of boxes) {
          assert.ok(b.y >= p.verdict.y + p.verdict.h, `a ${what} at ${Math.round(b.y)} px, above the verdict's end`);
        }
      }
    });

    await t.step("every figure drew an SVG with all its traces", () => {
      assert.deepEqual(p.rendered.map((r) => r.id), page.figures.map((f) => f.id));
      for (const [i, r] of p.rendered.entries()) {
        const fig = page.figures[i]!;
        assert.equal(r.error, null, `${r.id}: ${r.error}`);
        assert.ok(r.svg >= 1, `${r.id}: no SVG`);
        assert.equal(r.traces, fig.data.length, `${r.id}: plotly drew ${r.traces} of ${fig.data.length} traces`);
        assert.equal(r.groups, fig.data.length, `${r.id}: ${r.groups} trace groups in the SVG`);
      }
    });

    await t.step("no console error", () => {
      assert.deepEqual(p.errors, []);
    });

    await t.step("control: an error in the page is caught, so the check can fail", async () => {
      const broken = page.html.replace(
        '<pre id="gp-render-summary">',
        '<script>console.error("control error"); window.notAFunction();</script>$&',
      );
      const c = await probe(broken, artefacts, "control");
      assert.equal(c.errors.length, 2, c.errors.join("\n"));
      assert.match(c.errors[0]!, /^console\.error: control error$/);
      assert.match(c.errors[1]!, /^error: .*notAFunction/);
    });

    await t.step("a first-screen screenshot", async () => {
      const shot = join(artefacts, "compare-first-screen.png");
      await screenshot(file, shot, { size: FIRST_SCREEN });
      assert.ok(Deno.statSync(shot).size > 30_000, "a first-screen screenshot of some substance");
      console.log(`page and first-screen screenshot in ${artefacts}`);
    });
  },
});
