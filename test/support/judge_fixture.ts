/**
 * Shared pieces of the judge's tests: a short design-v1 run against the simulator with its outputs saved, a
 * simulator in judge mode with the design-v1 rubrics, and the judge's options with test defaults.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { JudgeRunOptions } from "../../runner/judge/judge_run.ts";
import { loadSimProfile } from "../../schema/sim_profile.ts";
import type { SimJudgeMode } from "../../schema/sim_profile.ts";
import { loadWorkload } from "../../schema/workload_file.ts";
import { type SimHandle, startSim } from "../../sim/mod.ts";
import { writeJson } from "../../testing/tiny_workload.ts";
import { runDesignV1OnSim } from "./sim_run.ts";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const DESIGN_V1 = join(ROOT, "data/workloads/design-v1");

/**
 * A finished design-v1 run with saved outputs under `dir`: `rps` requests a second for `seconds`, drawn from
 * long_summary and rag_answer (rubrics) and short_qa (none), against the fast simulator. Returns the run folder.
 */
export async function savedOutputRun(
  dir: string,
  o: { rps?: number; seconds?: number; seed?: number; formats?: ("csv" | "parquet")[] } = {},
) {
  const plan = writeJson(dir, "plan.json", {
    name: "judge-fixture",
    seed: o.seed ?? 5,
    arrivals: { process: "constant", rate_rps: o.rps ?? 30, duration_s: o.seconds ?? 1 },
    mix: { class_weights: { long_summary: 1, rag_answer: 1, short_qa: 1 } },
  });
  const run = await runDesignV1OnSim(dir, {
    plan,
    simSeed: o.seed ?? 5,
    formats: o.formats ?? ["csv"],
    saveOutputs: true,
  });
  return run.dir;
}

/** A simulator (data/sim/fast.json unless `profileFile`) with design-v1 and its rubrics, in judge mode. */
export async function judgeSim(mode: SimJudgeMode, profileFile = "data/sim/fast.json"): Promise<SimHandle> {
  const profile = await loadSimProfile(join(ROOT, profileFile));
  const loaded = await loadWorkload(DESIGN_V1);
  return await startSim({ port: 0, profile: { ...profile, judge: mode }, workload: loaded, seed: 1, quiet: true });
}

/** The judge's options for a test: fast, quiet, no key. */
export function judgeOptions(runDir: string, target: string, o: Partial<JudgeRunOptions> = {}): JudgeRunOptions {
  return {
    runDir,
    target,
    model: "sim-judge",
    key: null,
    ratePerS: 200,
    maxInFlight: 16,
    retries: 2,
    retryBudget: 0.2,
    timeoutS: 30,
    maxTokens: 512,
    format: "csv",
    limit: null,
    replace: false,
    progress: false,
    ...o,
  };
}

/** Copies a run folder (flat, and its quality/ folder). */
export function copyRun(from: string, to: string): string {
  Deno.mkdirSync(to, { recursive: true });
  for (const e of Deno.readDirSync(from)) {
    if (e.isDirectory) copyRun(join(from, e.name), join(to, e.name));
    else Deno.copyFileSync(join(from, e.name), join(to, e.name));
  }
  return to;
}
