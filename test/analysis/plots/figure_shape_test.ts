/**
 * One figure shape: every `*Figure(result, options)` drawn from what the analysis returned gives the same figure as the
 * internal path through its prepared input, on the committed sample runs.
 */
import assert from "node:assert/strict";
import { compareRouteCosts } from "../../../analysis/compare/route_costs.ts";
import { loadPriceSheet } from "../../../analysis/cost/price_sheet.ts";
import { goodput } from "../../../analysis/goodput/goodput.ts";
import { loadSloPolicy } from "../../../analysis/goodput/policy.ts";
import { costWaterfallFigure, ledgerWaterfall } from "../../../analysis/plots/cost_waterfall.ts";
import { goodputVsLoadFigure, loadCurveFromGoodput } from "../../../analysis/plots/goodput_vs_load.ts";
import { latencyCdfFigure, latencyCdfInput } from "../../../analysis/plots/latency_cdf.ts";
import { routeComparisonFigure } from "../../../analysis/plots/route_comparison.ts";
import { sloSweepFigure, sloSweepInput } from "../../../analysis/plots/slo_sweep.ts";
import { timelineFigure } from "../../../analysis/plots/timeline.ts";
import { timelineInput } from "../../../analysis/plots/timeline_input.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";

const ROOT = new URL("../../../", import.meta.url).pathname;
const run = await loadRun(`${ROOT}data/runs/explore`);
const policy = await loadSloPolicy(`${ROOT}data/slo/design-v1.json`);

Deno.test("goodputVsLoadFigure(goodput result, {stages}) draws one point per steady or burst stage", () => {
  const g = goodput(run, policy);
  const stages = run.manifest.stages;
  const f = goodputVsLoadFigure(g, { stages });
  assert.deepEqual(f, goodputVsLoadFigure(loadCurveFromGoodput(g, stages)));
  // The measured levels are the steady and burst stages with a measurement time; y = their accepted goodput.
  const kinds = new Map(stages.map((s) => [s.name, s.kind]));
  const levels = g.by_stage.filter((r) => ["steady", "burst"].includes(kinds.get(r.stage)!) && r.measurement_seconds);
  assert.ok(levels.length > 0);
  assert.deepEqual(
    [...(f.data[0]!.y as (number | null)[])].sort(),
    levels.map((r) => r.accepted_goodput).sort(),
  );
});

Deno.test("sloSweepFigure, latencyCdfFigure and timelineFigure drawn from a run equal their prepared inputs", () => {
  assert.deepEqual(
    sloSweepFigure(run, { policy, metric: "ttft_ms" }),
    sloSweepFigure(sloSweepInput(run, policy, { metric: "ttft_ms" })),
  );
  assert.deepEqual(latencyCdfFigure(run, { policy }), latencyCdfFigure(latencyCdfInput(run, policy, "e2e_ms")));
  assert.deepEqual(
    latencyCdfFigure(run, { policy, metric: "ttft_ms", maxPoints: 50 }),
    latencyCdfFigure(latencyCdfInput(run, policy, "ttft_ms"), { maxPoints: 50 }),
  );
  const outages = [{ start_ms: 1000, end_ms: 2000, label: "503" }];
  assert.deepEqual(timelineFigure(run, { policy, outages }), timelineFigure(timelineInput(run, policy, { outages })));
});

Deno.test("costWaterfallFigure, routeComparisonFigure and goodputVsLoadFigure take a route-cost result", async () => {
  const prices = await loadPriceSheet(`${ROOT}data/prices/routes-sim.json`);
  const runs = await Promise.all(["route-hosted", "route-selfhosted"].map((r) => loadRun(`${ROOT}data/runs/${r}`)));
  const rc = compareRouteCosts(runs, policy, { prices });
  assert.deepEqual(routeComparisonFigure(rc), routeComparisonFigure(rc.figure));
  for (const r of rc.routes) {
    assert.deepEqual(goodputVsLoadFigure(r), goodputVsLoadFigure(r.curve));
    assert.deepEqual(costWaterfallFigure(r.ledger), costWaterfallFigure(ledgerWaterfall(r.ledger)));
  }
});
