/**
 * `deno task samples`: regenerates the sample runs under `data/runs/` from
 * scratch with the project's own runner against the embedded simulator
 * (deterministic seeds, fixed run ids, Parquet only):
 *
 * - `explore/`: `data/plans/explore.json` (≈80 s: rising steps 4–12 req/s, a
 *   20 req/s burst, a recovery stage) over `data/sim/demo.json` with its 503
 *   outage moved to 86–90 s of the run (the derived profile is saved as
 *   `explore/sim-profile.json`): knee, drain and recovery in one run.
 * - `route-hosted/`, `route-selfhosted/`, `route-hybrid/`:
 *   `data/plans/routes-compare.json` on each simulator route, comparable with
 *   `deno task compare`.
 * - `route-selfhosted-alone-safety/`: the safety class alone at its share of
 *   the same rates on the self-hosted route, for `compare --single`.
 *
 * Every simulator is its own process on a free loopback port and is stopped
 * at the end, on error and on Ctrl-C. About 4 minutes.
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type CommandSpec, type ParsedCommand, runCommand } from "../lib/command.ts";
import { runLoadTest, type RunResult } from "../runner/run.ts";
import { ENGINE_BLOCK, PRODUCTION_BLOCK, QUALITY_BLOCK, readmeBlock } from "./_readme_block.ts";
import { runSimRoute, type SimRoute } from "./_route_runs.ts";
import { SAMPLES_OUT_FLAG } from "./_sample_flags.ts";
import { SimPool } from "./_sim_process.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const WORKLOAD = "data/workloads/design-v1";
const EXPLORE_OUTAGE = { start_ms: 86_000, end_ms: 90_000, mode: "503" } as const;

/** The runs this script makes, in order. */
export const SAMPLE_RUNS = [
  "explore",
  "route-hosted",
  "route-selfhosted",
  "route-hybrid",
  "route-selfhosted-alone-safety",
] as const;

/** `npx deno task samples`: its flags and help (lib/command.ts). */
export const SAMPLES_COMMAND = {
  name: "samples",
  invocation: "npx deno task samples",
  summary: `regenerates the sample runs (${SAMPLE_RUNS.join(", ")}) from scratch against the simulator, about 4 ` +
    "minutes",
  details: [
    "It deletes and rewrites these folders (and their README.md, keeping the blocks of `deno task " +
    "samples-production`, `deno task samples-engine` and `deno task samples-quality`) only; seeds and run ids are fixed (docs/demo.md).",
  ],
  flags: {
    out: SAMPLES_OUT_FLAG,
  },
  examples: ["npx deno task samples", "npx deno task samples --out /tmp/samples"],
} as const satisfies CommandSpec;

async function main({ values: v, check }: ParsedCommand<typeof SAMPLES_COMMAND>): Promise<number> {
  check.throwIfAny();
  Deno.chdir(ROOT); // Paths in run.json stay relative to the repository.
  const out = v.out;
  const tmpDir = await Deno.makeTempDir({ prefix: "goodput-samples-" });
  const pool = new SimPool();
  const started = Date.now();
  try {
    for (const id of SAMPLE_RUNS) await Deno.remove(join(out, id), { recursive: true }).catch(notFoundOk);
    await Deno.mkdir(out, { recursive: true });
    const results: RunResult[] = [];
    phase(started, "explore: data/plans/explore.json over data/sim/demo.json (outage at 86–90 s), ≈100 s");
    results.push(await exploreRun(pool, out, tmpDir));
    const routeRuns: [string, SimRoute, string][] = [
      ["route-hosted", "hosted", "data/plans/routes-compare.json"],
      ["route-selfhosted", "selfhosted", "data/plans/routes-compare.json"],
      ["route-hybrid", "hybrid", "data/plans/routes-compare.json"],
      ["route-selfhosted-alone-safety", "selfhosted", "data/plans/routes-compare-alone-safety.json"],
    ];
    for (const [runId, route, plan] of routeRuns) {
      pool.throwIfInterrupted();
      phase(started, `${runId}: ${plan} on route ${route}, ≈35 s`);
      results.push(
        await runSimRoute(pool, route, { root: ROOT, workload: WORKLOAD, plan, out, runId, seed: 7, tmpDir }),
      );
    }
    pool.throwIfInterrupted();
    // The other scripts' blocks (deno task samples-production, samples-engine, samples-quality) are kept as they are.
    const readmeFile = join(out, "README.md");
    const old = await Deno.readTextFile(readmeFile).catch((e) => (notFoundOk(e), ""));
    const kept = [PRODUCTION_BLOCK, ENGINE_BLOCK, QUALITY_BLOCK].map((b) => readmeBlock(old, b)).filter((b) =>
      b !== null
    );
    const fresh = readme(results, (Date.now() - started) / 1000);
    await Deno.writeTextFile(readmeFile, [fresh, ...kept].join("\n") + (kept.length ? "\n" : ""));
    phase(started, `done: ${results.map((r) => r.dir).join(", ")} and ${join(out, "README.md")}`);
  } finally {
    await pool.stopAll();
    await Deno.remove(tmpDir, { recursive: true });
  }
  return 0;
}

/** The knee/drain/recovery run: the demo profile with its outage moved into this plan's recovery stage. */
async function exploreRun(pool: SimPool, out: string, tmpDir: string): Promise<RunResult> {
  const base = JSON.parse(await Deno.readTextFile("data/sim/demo.json"));
  const profile = {
    ...base,
    name: "explore",
    description: `data/sim/demo.json with its 503 outage moved to ${EXPLORE_OUTAGE.start_ms / 1000}–` +
      `${EXPLORE_OUTAGE.end_ms / 1000} s after the last POST /sim/reset (ms 0 of the run): 12 s after the burst of ` +
      "data/plans/explore.json ends, inside its recovery stage (76–96 s).",
    faults: { ...base.faults, outages: [EXPLORE_OUTAGE] },
  };
  const profileFile = join(tmpDir, "sim-profile.json");
  await Deno.writeTextFile(profileFile, JSON.stringify(profile, null, 2) + "\n");
  const conditions = join(tmpDir, "conditions-explore.json");
  const demoConditions = JSON.parse(await Deno.readTextFile("data/conditions/sim-demo.json"));
  await Deno.writeTextFile(
    conditions,
    JSON.stringify({
      ...demoConditions,
      model_version: "simulator profile data/sim/demo.json, outage moved (sim-profile.json in this run's folder)",
    }),
  );
  const sim = await pool.start({ root: ROOT, profile: profileFile, workload: WORKLOAD, seed: 1 });
  try {
    const result = await runLoadTest({
      workload: WORKLOAD,
      plan: "data/plans/explore.json",
      target: sim.url,
      out,
      runId: "explore",
      formats: ["parquet"],
      conditions,
      seed: 1,
      progress: false,
      signal: pool.signal,
      atStart: () => sim.reset(),
    });
    // Beside the log, not in it: run.json's file hashes cover the log only.
    await Deno.copyFile(profileFile, join(result.dir, "sim-profile.json"));
    return result;
  } finally {
    await pool.stop(sim);
  }
}

function phase(started: number, what: string): void {
  console.log(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${what}`);
}

function notFoundOk(e: unknown): void {
  if (!(e instanceof Deno.errors.NotFound)) throw e;
}

function readme(results: RunResult[], seconds: number): string {
  const rows = results.map((r) => {
    const m = r.manifest;
    const route = m.routing?.name ?? m.conditions.route;
    return `| \`${m.run_id}/\` | \`${m.plan.path}\` (seed ${m.plan.seed}) | ${route} | ${r.summary.offered} | ` +
      `${m.result.status}${m.result.client_limited ? ", client-limited: " + m.result.client_limit_reason : ""} |`;
  });
  return `# Sample runs

**These are simulator runs, not measurements of a real service.** Every number in them describes the embedded
simulator (\`sim/\`) under the profiles named below, driven by this project's own runner on one machine over loopback.
They exist so that the notebooks, tests and examples have real event logs (schema version 1) to read.

Made by \`npx deno task samples\` (\`scripts/samples.ts\`) on ${new Date().toISOString().slice(0, 10)}, in ${
    seconds.toFixed(0)
  } s, on a
shared 2-core machine (${Deno.build.os}/${Deno.build.arch}, Deno ${Deno.version.deno}) while other work ran: send lag and
latencies carry that noise, and the runner says so in each \`run.json\` (\`result.client_limited\`). Arrival schedules
are seeded and identical on every regeneration (\`plan.schedule_sha256\`); the simulator is seeded too, but timings
(and so the latencies, queueing and which requests are shed) differ from one regeneration to the next.

| run | plan | route | offered | status |
| --- | ---- | ----- | ------- | ------ |
${rows.join("\n")}

- \`explore/\`: rising steps 4–12 req/s over \`data/sim/demo.json\` (one replica, ≈8 req/s of the design-v1 mix), a
  settle stage at 3 req/s (the steps' backlog drains before the burst), a 20 req/s gamma burst and a 4 req/s
  recovery stage with a 4-s 503 outage at 86–90 s (\`explore/sim-profile.json\`
  is the profile the simulator ran). Knee: \`npx deno task knee data/runs/explore\`.
- \`route-hosted/\`, \`route-selfhosted/\`, \`route-hybrid/\`: one schedule (\`data/plans/routes-compare.json\`: 5, 9
  and 14 req/s steps) on the three simulator routes of \`data/routes/\` (\`data/sim/hosted.json\`: quota 480 req/min
  and 1.5 M tokens/min, which bites at 9 req/s; \`data/sim/selfhosted.json\`: 2 replicas that shed at 14 req/s;
  hybrid: self-hosted first, hosted on 429/timeout/error). Compare them:
  \`npx deno task compare data/runs/route-hosted data/runs/route-selfhosted data/runs/route-hybrid --prices data/prices/routes-sim.json --overheads data/prices/overheads-default.json\`.
- \`route-selfhosted-alone-safety/\`: the safety class alone (\`data/plans/routes-compare-alone-safety.json\`, the
  same stages at the class's one-sixth share of each rate) on the self-hosted route, for the crowding-out test:
  add \`--single data/runs/route-selfhosted-alone-safety\` to the compare command.

Each folder holds \`run.json\` (conditions, plan, stages, sha256 of every log file), \`schedule.csv\` and
\`requests/attempts/tools/server.parquet\`. Regenerate all of them with \`npx deno task samples\` (about 4 minutes; it
deletes and rewrites these folders only).
`;
}

if (import.meta.main) await runCommand(SAMPLES_COMMAND, main);
