/**
 * The report of the committed quality sample (data/runs/quality) in headless Chromium: the section "Quality by rubric"
 * is on the page, its two figures (the judge against the people, acceptance by quality source) draw every trace, each
 * heatmap cell's count is written, every figure of the page renders, and the page logs no error.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { launchChromium } from "../../examples/chat/cdp.ts";
import { findChromium, screenshot } from "../../analysis/plots/chromium.ts";
import type { RenderedPlot } from "../../analysis/plots/html.ts";
import { loadSloPolicy } from "../../analysis/goodput/policy.ts";
import { loadRunQuality } from "../../analysis/quality/verdicts.ts";
import { buildReport } from "../../analysis/report/report.ts";
import { loadRun } from "../../analysis/run/load_run.ts";
import { artefactDir, haveChromium } from "./_tools.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

Deno.test({
  name: "the report's section Quality by rubric renders in headless Chromium: every trace drawn, no console error",
  ignore: !haveChromium(),
  fn: async () => {
    const run = await loadRun(join(ROOT, "data/runs/quality"));
    const policy = await loadSloPolicy(join(ROOT, "data/slo/design-v1.json"));
    const report = buildReport(run, policy, { quality: await loadRunQuality(run) });
    const section = report.figures.filter((f) =>
      f.id.startsWith("judge-confusion") || f.id.startsWith("acceptance-by")
    );
    assert.equal(section.length, 2);
    const artefacts = artefactDir("report-quality");
    const page = join(artefacts, "quality.html");
    Deno.writeTextFileSync(page, report.html);

    const browser = await launchChromium({ executable: findChromium()!, size: [1400, 900] });
    try {
      const tab = await browser.newPage(pathToFileURL(page).href);
      let summary = "";
      for (let i = 0; i < 200 && !summary; i++) {
        summary = await tab.evaluate<string>('document.getElementById("gp-render-summary").textContent');
        if (!summary) await new Promise((r) => setTimeout(r, 100));
      }
      const rendered = JSON.parse(summary) as RenderedPlot[];
      assert.deepEqual(rendered.map((r) => r.id), report.figures.map((f) => f.id), "every figure, in page order");
      for (const [i, r] of rendered.entries()) {
        const fig = report.figures[i]!;
        assert.equal(r.error, null, `${r.id}: ${r.error}`);
        assert.ok(r.svg >= 1, `${r.id}: no SVG`);
        assert.equal(r.traces, fig.data.length, `${r.id}: plotly drew ${r.traces} of ${fig.data.length} traces`);
      }
      // Bars are drawn as trace groups; a heatmap as a `g.hm` group of its own each.
      const [confusion, bySource] = section as [typeof section[0], typeof section[0]];
      const count = (id: string, selector: string) =>
        tab.evaluate<number>(
          `document.getElementById(${JSON.stringify(id)}).querySelectorAll(${JSON.stringify(selector)}).length`,
        );
      assert.equal(await count(confusion.id, "g.heatmaplayer g.hm"), confusion.data.length, "one heatmap per panel");
      assert.equal(
        rendered.find((x) => x.id === bySource.id)!.groups,
        bySource.data.length,
        "one bar trace per source",
      );
      // The heatmaps' cells carry their counts as text: 4 per panel, the numbers of the spec.
      const cells = await tab.evaluate<string[]>(
        `[...document.getElementById(${JSON.stringify(confusion.id)}).querySelectorAll("g.hm text")]` +
          ".map((t) => t.textContent)",
      );
      const expected = confusion.data.flatMap((t) => (t.text as number[][]).flat().map(String));
      assert.deepEqual([...cells].sort(), [...expected].sort());
      // The refused label and every bar of the acceptance figure are in its SVG.
      const bars = await tab.evaluate<number>(
        `document.getElementById("acceptance-by-quality-source").querySelectorAll("g.point").length`,
      );
      assert.equal(bars, bySource.data.reduce((n, t) => n + (t.y as unknown[]).length, 0));
      assert.deepEqual(browser.problems(), [], "no exception or console error in the page");
    } finally {
      await browser.close();
    }
    const shot = join(artefacts, "quality.png");
    await screenshot(page, shot, { size: [1280, 6000] });
    assert.ok(Deno.statSync(shot).size > 50_000);
    console.log(`page and screenshot in ${artefacts}`);
  },
});
