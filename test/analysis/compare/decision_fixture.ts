import { join } from "node:path";
import type { PriceSheet } from "../../../schema/prices.ts";
import type { RunManifest } from "../../../schema/run_manifest.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import type { LoadedRun } from "../../../analysis/run/loaded_run.ts";
import { makeManifest } from "../_fixture.ts";
import { hosted } from "../cost/ledger_fixture.ts";
import { SWEEP_STAGES, writeSweepRun } from "../knee/knee_fixture.ts";

/**
 * Every route at 100 per Mtok of input and 1000 per Mtok of output: an answered request of the sweep (10 input + 20
 * output tokens) costs 10 × 1e-4 + 20 × 1e-3 = 0.021; a 429 is not charged.
 */
export const DECISION_PRICES: PriceSheet = {
  price_sheet_version: 1,
  name: "decision-prices",
  currency: "USD",
  as_of: "2026-01-01",
  source: "test fixture",
  notes: "",
  routes: { "*": hosted(100, null, 1000, { rejected: false, failed: false, cancelled: false }) },
};

/**
 * The knee fixture's sweep (test/analysis/knee/knee_fixture.ts) as route `route`: every `every`-th request of step-03
 * rejected; `schedule` changes run.json plan.schedule_sha256 (default: all zeros, the same for every route).
 */
export async function sweepRoute(route: string, every: number, schedule?: string): Promise<LoadedRun> {
  const base = makeManifest(SWEEP_STAGES);
  const manifest: Partial<RunManifest> = {
    conditions: { ...base.conditions, route },
    ...(schedule ? { plan: { ...base.plan, schedule_sha256: schedule } } : {}),
  };
  const dir = writeSweepRun(join(Deno.makeTempDirSync(), route), {
    runId: `run-${route}`,
    step3RejectEvery: every,
    server: false,
    manifest,
  });
  return await loadRun(dir, { onWarning: () => {} });
}
