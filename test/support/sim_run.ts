import { join } from "node:path";
import { runLoadTest, type RunResult } from "../../runner/run.ts";
import { loadSimProfile, type SimProfile } from "../../schema/sim_profile.ts";
import { loadWorkload } from "../../schema/workload_file.ts";
import { type SimHandle, startSim } from "../../sim/mod.ts";
import { writeJson } from "../../testing/tiny_workload.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const DESIGN_V1 = join(ROOT, "data/workloads/design-v1");

/** How {@linkcode runDesignV1OnSim} runs. */
export interface SimRunOptions {
  /** The plan file, or a function of the started simulator that writes it (e.g. to point a drill hook at it). */
  plan: string | ((sim: SimHandle) => string);
  /** The simulator's seed. */
  simSeed: number;
  formats: ("csv" | "parquet")[];
  /** The simulator profile; data/sim/fast.json when absent. */
  profile?: SimProfile;
  /** Called with the started simulator just before the run begins. */
  onStart?: (sim: SimHandle) => void;
  /** Also write outputs.jsonl (`--save-outputs`). @default false */
  saveOutputs?: boolean;
}

/**
 * Runs the design-v1 workload under `plan` against a fresh in-process simulator
 * (conditions data/conditions/sim-demo.json), writes the run under `<dir>/out`
 * and stops the simulator whatever happens.
 */
export async function runDesignV1OnSim(dir: string, o: SimRunOptions): Promise<RunResult> {
  const { workload } = await loadWorkload(DESIGN_V1);
  const profile = o.profile ?? await loadSimProfile(join(ROOT, "data/sim/fast.json"));
  const sim = await startSim({ port: 0, profile, workload, seed: o.simSeed, quiet: true });
  try {
    o.onStart?.(sim);
    return await runLoadTest({
      workload: DESIGN_V1,
      plan: typeof o.plan === "string" ? o.plan : o.plan(sim),
      target: sim.url,
      out: join(dir, "out"),
      formats: o.formats,
      conditions: join(ROOT, "data/conditions/sim-demo.json"),
      progress: false,
      ...(o.saveOutputs ? { saveOutputs: true } : {}),
    });
  } finally {
    await sim.stop();
  }
}

/** Writes `<dir>/<file>`: a staged plan of `stages`, with `drain_s` after each; returns its path. */
export function stagedPlan(
  dir: string,
  head: { name: string; seed: number; drain_s: number },
  stages: object[],
  file = "plan.json",
): string {
  return writeJson(dir, file, {
    name: head.name,
    seed: head.seed,
    arrivals: { process: "staged", drain_s: head.drain_s, stages },
  });
}
