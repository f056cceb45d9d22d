/**
 * The demo's timeline run alone (step 1 of `deno task demo`, which is
 * scripts/demo.ts), with no analysis:
 * `npx deno run -A scripts/timeline_run.ts [--plan F] [--profile F] [--out DIR] [--seed N]`.
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
import { type CommandSpec, runCommand } from "../lib/command.ts";
import { formatRunSummary } from "../runner/run_summary.ts";
import { runLoadTest } from "../runner/run.ts";
import { loadPlan } from "../runner/schedule.ts";
import { loadSimProfile } from "../schema/sim_profile.ts";
import { startSimProcess } from "./_sim_process.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** `timeline_run`: its flags and help (lib/command.ts). */
export const TIMELINE_RUN_COMMAND = {
  name: "timeline_run",
  invocation: "npx deno run -A scripts/timeline_run.ts",
  summary: "the demo's timeline run alone (step 1 of `npx deno task demo`), no analysis; about 2 minutes",
  flags: {
    plan: { type: "string", arg: "F", default: "data/plans/demo-timeline.json", description: "the plan" },
    profile: { type: "string", arg: "F", default: "data/sim/demo.json", description: "the simulator profile" },
    out: { type: "string", arg: "DIR", default: "out", description: "where the run goes (`DIR/<run_id>/`)" },
    seed: {
      type: "number",
      arg: "N",
      rule: { min: 0, integer: true },
      default: 1,
      description: "the seed of the plan and the simulator",
    },
  },
  examples: ["npx deno run -A scripts/timeline_run.ts --out /tmp/timeline"],
} as const satisfies CommandSpec;

if (import.meta.main) {
  await runCommand(TIMELINE_RUN_COMMAND, async ({ values: v, check }) => {
    // Every flag and file, all problems named at once, before the simulator starts. A default is the repository's
    // file wherever the script is started; a path given is from the current folder.
    const plan = v.plan === TIMELINE_RUN_COMMAND.flags.plan.default ? join(ROOT, v.plan) : resolve(v.plan);
    const profile = v.profile === TIMELINE_RUN_COMMAND.flags.profile.default
      ? join(ROOT, v.profile)
      : resolve(v.profile);
    await check.load(() => loadPlan(plan));
    await check.load(() => loadSimProfile(profile));
    check.throwIfAny();
    const workload = join(ROOT, "data/workloads/design-v1");
    // Absolute paths: the simulator runs with the repository root as its working folder.
    const sim = await startSimProcess({
      root: ROOT,
      profile,
      workload,
      seed: v.seed,
      quiet: false,
    });
    console.error(`simulator listening on ${sim.url} (profile ${v.profile})`);
    try {
      const { dir, manifest, summary } = await runLoadTest({
        workload,
        plan,
        target: sim.url,
        out: v.out,
        formats: ["csv", "parquet"],
        conditions: join(ROOT, "data/conditions/sim-demo.json"),
        seed: v.seed,
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
