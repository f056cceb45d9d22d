/**
 * The demo's timeline run alone (step 1 of `deno task demo`, which is
 * scripts/demo.ts), with no analysis:
 * `deno run -A scripts/timeline_run.ts [--plan F] [--profile F] [--out DIR] [--seed N]`.
 * Starts the simulator on a free loopback port (its own
 * process, so it does not share the runner's event loop) with the demo
 * profile (default capacity, about 8 req/s, plus a 5-s 503 outage), resets
 * its clock at ms 0 of the run, and runs `data/plans/demo-timeline.json` of
 * design-v1: a warm-up, six constant steps from 4 to 14 req/s across the
 * capacity (the knee), a 20 req/s gamma burst (its backlog drains during
 * the next stage) and a 4 req/s recovery stage in which the outage falls
 * (103–108 s). Writes `out/<run-id>/` in CSV and Parquet, stops the
 * simulator and prints per-stage outcome counts. About 2 minutes.
 *
 * The full demo — this run, three route runs, the analysis, the route
 * comparison with cost per accepted task and the HTML report — is
 * `deno task demo`.
 *
 * @module
 */
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { InputCheck, parseFlags, runMain } from "../lib/cli.ts";
import { formatRunSummary } from "../runner/run_summary.ts";
import { runLoadTest } from "../runner/run.ts";
import { loadPlan } from "../runner/schedule.ts";
import { loadSimProfile } from "../schema/sim_profile.ts";
import { startSimProcess } from "./_sim_process.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const USAGE = "usage: deno run -A scripts/timeline_run.ts [--plan F] [--profile F] [--out DIR] [--seed N]";

if (import.meta.main) {
  await runMain(async () => {
    const { values: v } = parseFlags(Deno.args, {
      plan: { type: "string", default: join(ROOT, "data/plans/demo-timeline.json") },
      profile: { type: "string", default: join(ROOT, "data/sim/demo.json") },
      out: { type: "string", default: "out" },
      seed: { type: "string", default: "1" },
    }, USAGE);
    // Every flag and file, all problems named at once, before the simulator starts.
    const check = new InputCheck();
    const seed = check.number("seed", v.seed, { min: 0, integer: true });
    await check.load(() => loadPlan(v.plan!));
    await check.load(() => loadSimProfile(v.profile!));
    check.throwIfAny(USAGE);
    const workload = join(ROOT, "data/workloads/design-v1");
    // Absolute paths: the simulator runs with the repository root as its working folder.
    const sim = await startSimProcess({
      root: ROOT,
      profile: resolve(v.profile!),
      workload,
      seed: seed!,
      quiet: false,
    });
    console.error(`simulator listening on ${sim.url} (profile ${v.profile})`);
    try {
      const { dir, manifest, summary } = await runLoadTest({
        workload,
        plan: v.plan!,
        target: sim.url,
        out: v.out!,
        formats: ["csv", "parquet"],
        conditions: join(ROOT, "data/conditions/sim-demo.json"),
        seed: seed!,
        // The profile's outage windows count from the simulator's last reset: make that ms 0 of the run.
        atStart: () => sim.reset(),
      });
      console.log(formatRunSummary(manifest, summary));
      console.log(`run written to ${dir} (${Object.keys(manifest.files).join(", ")})`);
    } finally {
      await sim.stop();
    }
    return 0;
  });
}
