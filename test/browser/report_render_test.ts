import assert from "node:assert/strict";
import { join } from "node:path";
import { loadRun } from "../../analysis/run/load_run.ts";
import { dumpDom, screenshot } from "../../analysis/plots/chromium.ts";
import type { RenderedPlot } from "../../analysis/plots/html.ts";
import { loadSloPolicy } from "../../analysis/goodput/policy.ts";
import { exportPng } from "../../analysis/plots/png.ts";
import { buildReport } from "../../analysis/report/report.ts";
import { runDesignV1OnSim, stagedPlan } from "../support/sim_run.ts";
import { artefactDir, haveChromium } from "./_tools.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/** A short simulator run (warm-up, steady, burst; with the server table). */
async function simRun(dir: string): Promise<string> {
  const plan = stagedPlan(dir, { name: "browser-test", seed: 11, drain_s: 0.3 }, [
    { name: "cold", kind: "warmup", process: "constant", rate_rps: 10, duration_s: 0.5 },
    { name: "main", kind: "steady", process: "poisson", rate_rps: 20, duration_s: 1 },
    { name: "spike", kind: "burst", process: "poisson", rate_rps: 40, duration_s: 0.5 },
  ]);
  return (await runDesignV1OnSim(dir, { plan, simSeed: 5, formats: ["csv"] })).dir;
}

Deno.test({
  name: "the HTML report renders every figure in headless Chromium (SVG, trace counts) and exports PNGs",
  ignore: !haveChromium(),
  fn: async (t) => {
    const tmp = Deno.makeTempDirSync();
    const artefacts = artefactDir("report");
    const run = await loadRun(await simRun(tmp), { onWarning: () => {} });
    assert.ok(run.server, "the simulator run has a server table");
    const policy = await loadSloPolicy(join(ROOT, "data/slo/design-v1.json"));
    // Hand-made extras so that every kind of figure is in the page.
    const report = buildReport(run, policy, {
      quality: null,
      extras: {
        knee: { knee_rps: 15, limits: [{ headroom: 0.2, rps: 12 }] },
        outages: [{ start_ms: 600, end_ms: 900, label: "test outage" }],
        ledger: {
          currency: "USD",
          accepted_tasks: 10,
          disclosure: "hand-made",
          components: [{ name: "provider", amount: 1 }, { name: "retries", amount: 0.2 }],
        },
        routes: {
          currency: "USD",
          disclosure: "hand-made",
          routes: [
            { route: "a", accepted_goodput: 2, acceptance_rate: 0.9, cost_per_accepted_task: 0.1, n: 30 },
            { route: "b", accepted_goodput: 1, acceptance_rate: 0.5, cost_per_accepted_task: null, n: 30 },
          ],
        },
      },
    });
    // Every figure is in the page; the run has no quality table, and the absent list says so in one line.
    assert.deepEqual(report.absent.map((a) => a.id), ["quality"]);
    const page = join(artefacts, "report.html");
    Deno.writeTextFileSync(page, report.html);

    await t.step("every figure drew an SVG with its traces", async () => {
      const dom = await dumpDom(page, { budgetMs: 30_000 });
      const m = /<pre id="gp-render-summary">([^<]*)<\/pre>/.exec(dom);
      assert.ok(m && m[1], "the render script wrote its summary");
      const rendered = JSON.parse(m[1]!.replaceAll("&quot;", '"')) as RenderedPlot[];
      assert.deepEqual(rendered.map((r) => r.id), report.figures.map((f) => f.id));
      for (const [i, r] of rendered.entries()) {
        const fig = report.figures[i]!;
        assert.equal(r.error, null, `${r.id}: ${r.error}`);
        assert.ok(r.svg >= 1, `${r.id}: no SVG`);
        assert.equal(r.expected, fig.data.length, r.id);
        assert.equal(r.traces, fig.data.length, `${r.id}: plotly drew ${r.traces} of ${fig.data.length} traces`);
        assert.equal(r.groups, fig.data.length, `${r.id}: ${r.groups} trace groups in the SVG`);
      }
    });

    await t.step("screenshots: the page and one figure as PNG", async () => {
      const shot = join(artefacts, "report.png");
      await screenshot(page, shot, { size: [1280, 2400] });
      assert.ok(Deno.statSync(shot).size > 50_000, "a page screenshot of some substance");
      const png = join(artefacts, "timeline.png");
      await exportPng(report.figures.find((f) => f.id === "timeline")!, png, { width: 900, height: 600 });
      const bytes = Deno.readFileSync(png);
      // PNG IHDR: width and height, big-endian, at bytes 16–23.
      const view = new DataView(bytes.buffer);
      assert.deepEqual([view.getUint32(16), view.getUint32(20)], [900, 600]);
      console.log(`screenshots in ${artefacts}`);
    });
    Deno.removeSync(tmp, { recursive: true });
  },
});
