import assert from "node:assert/strict";
import { costWaterfallFigure } from "../../../analysis/plots/cost_waterfall.ts";
import { figureHtml, pageHtml, scriptJson } from "../../../analysis/plots/html.ts";
import { jupyterBundle, resetJupyterBundle } from "../../../analysis/plots/jupyter.ts";

const BUNDLE_HEADER = "plotly.js v4.1.2";
const count = (text: string, needle: string) => text.split(needle).length - 1;
const fig = () =>
  costWaterfallFigure({
    currency: "USD",
    accepted_tasks: 2,
    disclosure: "run r </script><b>",
    components: [{ name: "a", amount: 1 }],
  });

Deno.test("pageHtml() inlines the pinned plotly.js bundle once and loads nothing from the network", () => {
  const html = pageHtml([fig(), { ...fig(), id: "second" }], { title: "t" });
  assert.equal(count(html, BUNDLE_HEADER), 1);
  // No external script (the bundle itself names a CDN only for geo maps' topojson, which no figure uses).
  assert.ok(!/<script[^>]+src=/.test(html), "an external script");
  assert.equal(count(html, 'class="gp-plot"'), 2);
  assert.ok(html.includes('id="gp-render-summary"'));
});

Deno.test("figure markup escapes the disclosure and carries the expected trace count", () => {
  const html = figureHtml(fig());
  assert.ok(html.includes('data-traces="1"'));
  // The disclosure appears escaped in the caption and \u003c-escaped in the JSON spec, never as a raw end tag.
  assert.equal(count(html, "</script><b>"), 0);
  assert.ok(html.includes("run r &lt;/script&gt;&lt;b&gt;"));
  assert.equal(scriptJson({ a: new Float64Array([1, 2]), s: "<" }), '{"a":[1,2],"s":"\\u003c"}');
});

Deno.test("jupyterBundle() sends the plotly.js bundle with the first figure only", () => {
  resetJupyterBundle();
  const first = jupyterBundle(fig());
  const second = jupyterBundle(fig());
  assert.equal(count(first["text/html"], BUNDLE_HEADER), 1);
  assert.equal(count(second["text/html"], BUNDLE_HEADER), 0);
  assert.match(second["text/plain"], /Cost ledger/);
  // Two outputs of one figure get distinct element ids.
  const id = (h: string) => /class="gp-plot" id="([^"]+)"/.exec(h)![1];
  assert.notEqual(id(first["text/html"]), id(second["text/html"]));
  // The display hook Deno's kernel calls is on the figure, hidden from JSON.
  const f = fig() as unknown as Record<symbol, () => { "text/html": string }>;
  assert.equal(typeof f[Symbol.for("Jupyter.display")], "function");
  assert.ok(!JSON.stringify(f).includes("Jupyter"));
});
