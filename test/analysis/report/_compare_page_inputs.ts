/**
 * The comparison page's inputs on the three committed demo route runs (route-hosted, route-selfhosted, route-hybrid)
 * priced with data/prices/routes-sim.json, computed with the library functions as the compare command does: the
 * routes with their knees at a 20 % headroom, the ranked verdict, the cost at 8 accepted tasks/s peak and 10 M a month
 * (N+1), the sensitivity, and each run's verdicts as caveats named by run.
 */
import { join } from "node:path";
import { compareRouteCosts } from "../../../analysis/compare/route_costs.ts";
import { decision } from "../../../analysis/compare/decision.ts";
import { sensitivity } from "../../../analysis/compare/sensitivity.ts";
import { volumeCosts } from "../../../analysis/compare/volume.ts";
import { parseVolumeFlags } from "../../../analysis/compare/volume_demand.ts";
import { loadOverheadSheet, loadPriceSheet } from "../../../analysis/cost/price_sheet.ts";
import { loadSloPolicy, runWindow } from "../../../analysis/goodput/policy.ts";
import { runVerdicts } from "../../../analysis/knee/verdicts.ts";
import type { ComparePageInput } from "../../../analysis/report/compare_page.ts";
import { linesCaveats } from "../../../analysis/report/first_screen.ts";
import { policySourceLabel } from "../../../analysis/report/policy_source.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";

const ROOT = new URL("../../../", import.meta.url).pathname;
export const DEMO_ROUTES = ["route-hosted", "route-selfhosted", "route-hybrid"];

/** Every input of the page, on the demo routes. */
export async function demoPageInput(): Promise<ComparePageInput> {
  const sloFile = join(ROOT, "data/slo/design-v1.json");
  const policy = await loadSloPolicy(sloFile);
  const prices = await loadPriceSheet(join(ROOT, "data/prices/routes-sim.json"));
  const overheads = await loadOverheadSheet(join(ROOT, "data/prices/overheads-default.json"));
  const runs = await Promise.all(DEMO_ROUTES.map((r) => loadRun(join(ROOT, "data/runs", r), { onWarning: () => {} })));
  const headroom = 0.2;
  const routeCosts = compareRouteCosts(runs, policy, { prices, overheads, headroom });
  const caveats = linesCaveats(
    runs.flatMap((run, i) =>
      runVerdicts(run, runWindow(run, policy.window), { overall: routeCosts.comparison.routes[i]!.overall, policy })
        .lines.map((l) => `${run.manifest.run_id}: ${l}`)
    ),
  );
  return {
    compare: routeCosts.comparison,
    routeCosts,
    decision: decision(runs, policy, { prices, overheads, headroom, knees: routeCosts.routes, resamples: 500 }),
    volume: volumeCosts(
      runs,
      routeCosts,
      policy,
      prices,
      parseVolumeFlags({ demand: "8/s", monthly: "10M", redundancy: "1" }),
    ),
    sensitivity: sensitivity(runs, policy, prices, { overheads }),
    caveats,
    policy_source: await policySourceLabel(sloFile),
    pricing: {
      price_sheet: { name: prices.name, as_of: prices.as_of, source: prices.source },
      overheads: overheads.name,
    },
  };
}
