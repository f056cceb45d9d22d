/**
 * `deno task samples-engine`: regenerates the sample runs that put a real engine beside the simulated routes, one
 * schedule (`data/plans/engine-routes.json`, the engine-validation short chats with `--cache-bust`) on three routes:
 *
 * - `route-engine/`: self-hosted (real engine), llama.cpp's llama-server with the tiny generated model as
 *   `deno task engine --size tiny` starts it (data/routes/self-hosted-engine.json), its conditions from the engine;
 * - `route-engine-selfhosted-sim/` and `route-engine-hosted-sim/`: the simulator routes of data/routes/selfhosted.json
 *   and hosted.json, each against a fresh simulator.
 *
 * Compare them with `npx deno task compare … --prices data/prices/engine-vs-sim.json`. Writes its own block of
 * data/runs/README.md (how the runs were made: date, machine load). About 4 minutes once the engine is built.
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { defaultThreads, startEngine, stopEngine } from "../engine/engine.ts";
import { type CommandSpec, type ParsedCommand, runCommand } from "../lib/command.ts";
import { runLoadTest, type RunResult } from "../runner/run.ts";
import { loadJsonFile } from "../schema/load.ts";
import { PlanSpec } from "../schema/plan.ts";
import { ENGINE_BLOCK, withReadmeBlock } from "./_readme_block.ts";
import { runSimRoute } from "./_route_runs.ts";
import { SAMPLES_OUT_FLAG } from "./_sample_flags.ts";
import { SimPool } from "./_sim_process.ts";
import { startLoadSampler } from "./_load_average.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** What the three runs share, and how the engine is started. */
export const ENGINE_SAMPLE = {
  workload: "data/workloads/engine-validation",
  plan: "data/plans/engine-routes.json",
  routes: "data/routes/self-hosted-engine.json",
  route: "self-hosted-engine",
  prices: "data/prices/engine-vs-sim.json",
  engine: { size: "tiny", seed: 1, parallel: 4, ctx: 16384 },
  runs: { engine: "route-engine", selfhosted: "route-engine-selfhosted-sim", hosted: "route-engine-hosted-sim" },
} as const;

/** `npx deno task samples-engine`: its flags and help (lib/command.ts). */
export const SAMPLES_ENGINE_COMMAND = {
  name: "samples-engine",
  invocation: "npx deno task samples-engine",
  summary: `regenerates the sample runs ${ENGINE_SAMPLE.runs.engine} (a real engine: llama-server, tiny generated ` +
    `model), ${ENGINE_SAMPLE.runs.selfhosted} and ${ENGINE_SAMPLE.runs.hosted} (the simulated routes) on one ` +
    "schedule, about 4 minutes",
  details: [
    "Starts the engine as `npx deno task engine --size tiny` does (building it first when no build is cached: " +
    `minutes) and stops it after its run. Schedule: \`${ENGINE_SAMPLE.plan}\` over \`${ENGINE_SAMPLE.workload}\`, ` +
    "with `--cache-bust`. It deletes and rewrites these three folders and its block of the README only.",
  ],
  flags: {
    out: SAMPLES_OUT_FLAG,
    port: {
      type: "number",
      arg: "P",
      rule: { min: 1, max: 65535, integer: true },
      default: 8788,
      description:
        "the engine's loopback port (data/routes/self-hosted-engine.json names 8788; another port replaces its URL)",
    },
  },
  examples: ["npx deno task samples-engine", "npx deno task samples-engine --out /tmp/samples --port 18788"],
} as const satisfies CommandSpec;

async function main({ values: v, check }: ParsedCommand<typeof SAMPLES_ENGINE_COMMAND>): Promise<number> {
  check.throwIfAny();
  Deno.chdir(ROOT); // Paths in run.json stay relative to the repository.
  const s = ENGINE_SAMPLE;
  const plan = await loadJsonFile(s.plan, PlanSpec, "plan");
  const out = v.out;
  const started = Date.now();
  const log = (what: string) => console.log(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${what}`);
  for (const id of Object.values(s.runs)) await Deno.remove(join(out, id), { recursive: true }).catch(notFoundOk);
  await Deno.mkdir(out, { recursive: true });
  const tmpDir = await Deno.makeTempDir({ prefix: "goodput-samples-engine-" });
  const pool = new SimPool();
  const results: RunResult[] = [];
  const loadSampler = startLoadSampler();
  try {
    log(`${s.runs.engine}: ${s.plan} on llama-server (${s.engine.size} model, ${s.engine.parallel} slots)`);
    const engine = await startEngine({ ...s.engine, port: v.port, threads: defaultThreads() });
    try {
      results.push(
        await runLoadTest({
          workload: s.workload,
          plan: s.plan,
          routes: s.routes,
          routeUrls: { [s.route]: engine.url },
          conditions: engine.conditionsFile,
          out,
          runId: s.runs.engine,
          formats: ["parquet"],
          cacheBust: true,
          seed: plan.seed,
          progress: false,
          signal: pool.signal,
        }),
      );
    } finally {
      if (!engine.reused) await stopEngine(v.port);
    }
    for (const route of ["selfhosted", "hosted"] as const) {
      pool.throwIfInterrupted();
      log(`${s.runs[route]}: ${s.plan} on the ${route} simulator route`);
      results.push(
        await runSimRoute(pool, route, {
          root: ROOT,
          workload: s.workload,
          plan: s.plan,
          out,
          runId: s.runs[route],
          seed: plan.seed,
          tmpDir,
          cacheBust: true,
        }),
      );
    }
  } finally {
    loadSampler.stop();
    await pool.stopAll();
    await Deno.remove(tmpDir, { recursive: true });
  }
  const readme = join(out, "README.md");
  const text = await Deno.readTextFile(readme).catch((e) => (notFoundOk(e), "# Sample runs\n"));
  await Deno.writeTextFile(
    readme,
    withReadmeBlock(text, ENGINE_BLOCK, block(results, plan.seed, (Date.now() - started) / 1000, loadSampler.text())),
  );
  log(`done: ${results.map((r) => r.dir).join(", ")} and ${readme}`);
  return 0;
}

function notFoundOk(e: unknown): void {
  if (!(e instanceof Deno.errors.NotFound)) throw e;
}

function block(results: RunResult[], seed: number, seconds: number, load: string): string {
  const s = ENGINE_SAMPLE;
  const date = new Date().toISOString().slice(0, 10);
  const machine = `${navigator.hardwareConcurrency}-core machine (${Deno.build.os}/${Deno.build.arch}, Deno ` +
    `${Deno.version.deno})`;
  const rows = results.map((r) => {
    const m = r.manifest;
    const status = m.result.status +
      (m.result.client_limited ? `, client-limited: ${m.result.client_limit_reason}` : "");
    return `| \`${m.run_id}/\` | ${m.routing?.name ?? m.conditions.route} | ${m.conditions.provider} | ` +
      `${r.summary.offered} | ${status} |`;
  });
  return `## A real engine beside the simulated routes

Made by \`npx deno task samples-engine\` (\`scripts/samples_engine.ts\`) on ${date}, in ${seconds.toFixed(0)} s, on a
shared ${machine} while other work ran (${load}). **\`${s.runs.engine}/\` is a real engine**, not the simulator:
llama.cpp's llama-server (\`npx deno task engine --size ${s.engine.size}\`, ${s.engine.parallel} slots, niced) serving a
model generated here with random weights (docs/engine.md), so its latencies and its saturation are measured, and its
answers are noise. The other two are the simulator routes of \`data/routes/selfhosted.json\` and \`hosted.json\`. All
three ran \`${s.plan}\` (seed ${seed}) over \`${s.workload}\` (its short chats) with \`--cache-bust\`.

| run | route | provider | offered | status |
| --- | ----- | -------- | ------- | ------ |
${rows.join("\n")}

Compare them (latency and validity only: \`data/slo/engine-validation.json\`):
\`npx deno task compare data/runs/${s.runs.engine} data/runs/${s.runs.selfhosted} data/runs/${s.runs.hosted} --slo data/slo/engine-validation.json --prices ${s.prices}\`.
The engine's price there is a stated assumption (0.10 USD per machine-hour, \`${s.prices}\`). Regenerate the three with
\`npx deno task samples-engine\` (it deletes and rewrites these three folders and this block only).`;
}

if (import.meta.main) await runCommand(SAMPLES_ENGINE_COMMAND, main);
