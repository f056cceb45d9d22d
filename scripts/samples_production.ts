/**
 * `deno task samples-production`: regenerates the two sample runs that compare a production recording with a load
 * test of the same workload (notebooks/05_production_vs_test.ipynb):
 *
 * - `production-chat/`: the example chat app (examples/chat) recorded on both sides while headless Chromium clicks
 *   Send at the Poisson rate, for the duration and with the seed of `data/plans/chat-example.json`
 *   (examples/chat/drive.ts), the simulator on `data/sim/default.json` answering from the chat-example workload;
 * - `production-chat-loadtest/`: the runner sending that workload (`data/workloads/chat-example`, built from the app's
 *   code) straight to a fresh simulator of the same profile, workload and seed, under the same plan.
 *
 * Both simulators are up for at least the profile's cold start before the first arrival. Writes its own block of
 * data/runs/README.md (how each run was made: command, seed, date, machine load). About 3 minutes.
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CHAT_WORKLOAD, driveChat, type DriveResult } from "../examples/chat/drive.ts";
import { RETRIEVAL_MS } from "../examples/chat/retrieval.ts";
import { type CommandSpec, type ParsedCommand, runCommand } from "../lib/command.ts";
import { runLoadTest, type RunResult } from "../runner/run.ts";
import { loadJsonFile } from "../schema/load.ts";
import { PlanSpec } from "../schema/plan.ts";
import { SimProfile } from "../schema/sim_profile.ts";
import { PRODUCTION_BLOCK, withReadmeBlock } from "./_readme_block.ts";
import { SAMPLES_OUT_FLAG } from "./_sample_flags.ts";
import { SimPool } from "./_sim_process.ts";
import { startLoadSampler } from "./_load_average.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** What both runs share: the plan (rate, duration, seed, class mix), the simulator's profile, the app's settings. */
export const PRODUCTION_SAMPLE = {
  plan: "data/plans/chat-example.json",
  workload: CHAT_WORKLOAD,
  profile: "data/sim/default.json",
  conditions: "data/conditions/sim-chat-example.json",
  pages: 3,
  concurrency: 4,
  wait_s: 30,
  production: "production-chat",
  loadtest: "production-chat-loadtest",
} as const;

/** `npx deno task samples-production`: its flags and help (lib/command.ts). */
export const SAMPLES_PRODUCTION_COMMAND = {
  name: "samples-production",
  invocation: "npx deno task samples-production",
  summary: `regenerates the sample runs ${PRODUCTION_SAMPLE.production} (the chat example recorded while headless ` +
    `Chromium clicks) and ${PRODUCTION_SAMPLE.loadtest} (a load test of the same workload, plan and simulator), ` +
    "about 3 minutes",
  details: [
    `Needs Chromium (Debian's \`chromium\`, or $CHROMIUM). Rate, duration, seed and class mix: ` +
    `\`${PRODUCTION_SAMPLE.plan}\`. It deletes and rewrites these two folders and its block of the README only.`,
  ],
  flags: {
    out: SAMPLES_OUT_FLAG,
  },
  examples: ["npx deno task samples-production", "npx deno task samples-production --out /tmp/samples"],
} as const satisfies CommandSpec;

async function main({ values: v, check }: ParsedCommand<typeof SAMPLES_PRODUCTION_COMMAND>): Promise<number> {
  check.throwIfAny();
  Deno.chdir(ROOT); // Paths in run.json stay relative to the repository.
  const s = PRODUCTION_SAMPLE;
  const plan = await loadJsonFile(s.plan, PlanSpec, "plan");
  if (plan.arrivals.process !== "poisson") throw new Error(`${s.plan}: the example clicks at Poisson times only`);
  const arrivals = plan.arrivals;
  const profile = await loadJsonFile(s.profile, SimProfile, "simulator profile");
  const coldMs = profile.cold_start.warmup_ms;
  const out = v.out;
  const started = Date.now();
  const log = (what: string) => console.log(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${what}`);
  for (const id of [s.production, s.loadtest]) await Deno.remove(join(out, id), { recursive: true }).catch(notFoundOk);
  await Deno.mkdir(out, { recursive: true });

  const loadSampler = startLoadSampler();
  log(`${s.production}: the chat app clicked in Chromium, ${arrivals.rate_rps}/s for ${arrivals.duration_s} s`);
  let drove: DriveResult;
  let ran: RunResult;
  try {
    drove = await driveChat({
      rate: arrivals.rate_rps,
      duration_s: arrivals.duration_s,
      pages: s.pages,
      seed: plan.seed,
      dir: join(out, s.production),
      run_id: s.production,
      profile: s.profile,
      workload: s.workload,
      concurrency: s.concurrency,
      sample: 1,
      wait_s: s.wait_s,
      log,
    });
    if (drove.problems.length) throw new Error(`the pages reported: ${drove.problems.map((p) => p.text).join("; ")}`);
    if (drove.sim_age_ms < coldMs) {
      throw new Error(
        `the first click came ${drove.sim_age_ms.toFixed(0)} ms after the simulator started, within ` +
          `its ${coldMs} ms cold start: the two runs would not meet the same simulator`,
      );
    }
    log(`${s.loadtest}: the runner, ${s.plan} on ${s.workload}`);
    ran = await loadTest(out, plan.seed, coldMs);
  } finally {
    loadSampler.stop();
  }
  const readme = join(out, "README.md");
  const text = await Deno.readTextFile(readme).catch((e) => (notFoundOk(e), "# Sample runs\n"));
  const seconds = (Date.now() - started) / 1000;
  await Deno.writeTextFile(
    readme,
    withReadmeBlock(
      text,
      PRODUCTION_BLOCK,
      block(drove, ran, { ...arrivals, seed: plan.seed }, seconds, loadSampler.text()),
    ),
  );
  log(`done: ${join(out, s.production)}, ${ran.dir} and ${readme}`);
  return 0;
}

/** The load test: a fresh simulator, up for its cold start, then the runner under the plan. */
async function loadTest(out: string, seed: number, coldMs: number): Promise<RunResult> {
  const s = PRODUCTION_SAMPLE;
  const pool = new SimPool();
  try {
    const sim = await pool.start({ root: ROOT, profile: s.profile, workload: s.workload, seed });
    const up = performance.now();
    const result = runLoadTest({
      workload: s.workload,
      plan: s.plan,
      target: sim.url,
      out,
      runId: s.loadtest,
      formats: ["parquet"],
      conditions: s.conditions,
      seed,
      progress: false,
      signal: pool.signal,
      atStart: async () => {
        await new Promise((r) => setTimeout(r, Math.max(0, up + coldMs - performance.now())));
        await sim.reset(); // its PRNG restarts from the seed at ms 0, as the app's simulator's did at its start
      },
    });
    return await result;
  } finally {
    await pool.stopAll();
  }
}

function notFoundOk(e: unknown): void {
  if (!(e instanceof Deno.errors.NotFound)) throw e;
}

function block(
  d: DriveResult,
  r: RunResult,
  p: { rate_rps: number; duration_s: number; seed: number },
  seconds: number,
  load: string,
): string {
  const s = PRODUCTION_SAMPLE;
  const m = r.manifest;
  const date = new Date().toISOString().slice(0, 10);
  const machine = `${navigator.hardwareConcurrency}-core machine (${Deno.build.os}/${Deno.build.arch}, Deno ` +
    `${Deno.version.deno})`;
  return `## Production recording and its load test

Made by \`npx deno task samples-production\` (\`scripts/samples_production.ts\`) on ${date}, in ${seconds.toFixed(0)} s,
on a shared ${machine} while other work ran (${load}). Both runs share \`${s.plan}\`
(Poisson ${p.rate_rps} arrivals/s for ${p.duration_s} s, seed ${p.seed}, classes question : order = 6 : 3 as the driver
draws them) and a simulator on \`${s.profile}\` that knows \`${s.workload}\` (seed ${p.seed}, each up for its cold start
before the first arrival).

| run | what sent the requests | offered | notes |
| --- | ---------------------- | ------- | ----- |
| \`${s.production}/\` | headless Chromium clicking Send in ${s.pages} pages of the chat app (recorder on page and server, app concurrency ${s.concurrency}) | ${d.clicks} clicks of ${d.scheduled} scheduled | simulator up ${
    (d.sim_age_ms / 1000).toFixed(1)
  } s before the clicks' clock started; click lag p50 ${d.lag_ms.p50.toFixed(1)} ms, max ${
    d.lag_ms.max.toFixed(1)
  } ms; ${d.pages.answered} answered, ${d.pages.failed} failed; ${d.pages.posted} page records posted, ${d.pages.dropped} dropped |
| \`${s.loadtest}/\` | the runner, straight to the simulator | ${r.summary.offered} | ${m.result.status}${
    m.result.client_limited ? ", client-limited: " + m.result.client_limit_reason : ""
  } |

The arrival times are the same process at the same rate, not the same draws (the driver's and the runner's seeded
generators differ), and the questions are drawn alike (uniform over the nine). The load test sends each question's
prompt byte for byte as the app sends it (\`data/workloads/chat-example\`, built from the app's code by
\`scripts/make_chat_workload.ts\`) and waits the app's ${RETRIEVAL_MS} ms retrieval stand-in; it does not see the page, the network
between page and app, the app's queue, the order tool or the rendering. Compare them in
\`notebooks/05_production_vs_test.ipynb\`; regenerate both with \`npx deno task samples-production\` (it deletes and
rewrites these two folders and this block only; timings differ from one regeneration to the next).`;
}

if (import.meta.main) await runCommand(SAMPLES_PRODUCTION_COMMAND, main);
