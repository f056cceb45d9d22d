/**
 * `deno task demo`: the whole tool in about four minutes, on loopback only.
 *
 * 1. The timeline run: `data/plans/demo-timeline.json` (warm-up, steps from 4
 *    to 14 req/s across the capacity, a 20 req/s burst, a recovery stage with
 *    a 5-s 503 outage) against the simulator with `data/sim/demo.json`.
 * 2. Three route runs of `data/plans/routes-compare.json` (5, 9, 14 req/s),
 *    each against its own simulators: hosted (`data/sim/hosted.json`, its
 *    quota bites at 9 req/s), self-hosted (`data/sim/selfhosted.json`, sheds
 *    at 14 req/s) and hybrid (both: self-hosted first, hosted on 429/timeout/error).
 * 3. The timeline run's open-ended answers (saved with `--save-outputs`) judged by rubric by the simulator's judge
 *    (`data/sim/judge.json`, `deno task judge`'s code): a quality table beside the run, which the report shows.
 * 4. The analysis, as the CLIs print it, each CLI's output in a file of the
 *    timeline run's folder (`analyze.txt`, `knee.txt`, `compare.txt`,
 *    `report.txt`, and each run's `run-summary.txt`): the timeline run's
 *    goodput summary, its knee and recovery, the route comparison with the
 *    cost per accepted task of each route, and the timeline run's HTML report
 *    with knee/limits, outages, ledger waterfall and route comparison.
 *
 * It ends with one screen: the report's first screen (verdict, goodput, knee
 * and limit, cost per accepted task, one line per caveat), the comparison's
 * (one line per route), the files and the report's path.
 *
 * Every simulator is its own process on a free port and is stopped at the
 * end, on error and on Ctrl-C (the run in progress still writes its log).
 *
 * @module
 */
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type CommandSpec, type ParsedCommand, runCommand } from "../lib/command.ts";
import { loadSimProfile } from "../schema/sim_profile.ts";
import { loadWorkload } from "../schema/workload_file.ts";
import { buildSchedule, loadPlan } from "../runner/schedule.ts";
import { formatRunSummary } from "../runner/run_summary.ts";
import { runLoadTest, type RunResult } from "../runner/run.ts";
import { JUDGE_RUN_DEFAULTS, runJudge } from "../runner/judge/judge_run.ts";
import { analysisCli } from "./_analysis_cli.ts";
import { demoReportExtras } from "./_report_extras.ts";
import { routeRunId, runSimRoute, SIM_ROUTES, type SimRoute } from "./_route_runs.ts";
import { SimPool } from "./_sim_process.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const WORKLOAD = "data/workloads/design-v1";
const PRICES = "data/prices/routes-sim.json";
/** The timeline run's route is "self-hosted-sim" (data/conditions/sim-demo.json): priced by the sheet's "*" entry. */
const TIMELINE_PRICES = "data/prices/selfhosted-sim.json";
const OVERHEADS = "data/prices/overheads-default.json";
/** The planned volume the demo costs its routes at (within what the route runs measure on the hosted route). */
const DEMO_DEMAND = ["--demand", "5/s", "--monthly", "5M"];
/** The simulator profile whose judge mode scores the timeline run's open-ended answers (known error rates). */
const JUDGE_PROFILE = "data/sim/judge.json";

/** `npx deno task demo`: its flags and help (lib/command.ts). */
export const DEMO_COMMAND = {
  name: "demo",
  invocation: "npx deno task demo",
  summary: "the whole tool in about four minutes on loopback: a timeline run and three route runs against the " +
    "simulator, their analysis, a route comparison and the HTML report",
  details: [
    "Also `npm run demo` (it installs the dependencies first). What it runs and prints: docs/demo.md.",
  ],
  flags: {
    out: {
      type: "string",
      arg: "DIR",
      default: "out",
      description:
        "where the runs go (`DIR/<run_id>/`, the route runs in `DIR/<run_id>-routes/<run_id>-route-<route>/`)",
    },
    seed: {
      type: "number",
      arg: "N",
      rule: { min: 0, integer: true },
      default: 1,
      description: "the seed of the plans and the simulators",
    },
    headroom: {
      type: "number",
      arg: "H",
      rule: { min: 0, below: 1 },
      default: 0.2,
      description: "the headroom of the production limit (knee × (1 − H)) in the knee, comparison and report",
    },
    plan: {
      type: "string",
      arg: "F",
      default: "data/plans/demo-timeline.json",
      description: "the timeline run's plan",
    },
    profile: {
      type: "string",
      arg: "F",
      default: "data/sim/demo.json",
      description: "the timeline run's simulator profile",
    },
    "routes-plan": {
      type: "string",
      arg: "F",
      default: "data/plans/routes-compare.json",
      description: "the plan each of the three route runs follows",
    },
  },
  examples: ["npx deno task demo", "npx deno task demo --out /tmp/demo --seed 2 --headroom 0.3"],
} as const satisfies CommandSpec;

async function main({ values: v, check }: ParsedCommand<typeof DEMO_COMMAND>): Promise<number> {
  // Every flag and file, all problems named at once, before a simulator starts.
  const { seed, headroom } = v;
  Deno.chdir(ROOT); // Paths in run.json stay relative to the repository (and so do the flags' paths).
  const { workload } = await loadWorkload(WORKLOAD);
  for (const flag of ["plan", "routes-plan"] as const) {
    // Each plan is built against the workload now, so that a bad one fails before the first run, not after it.
    await check.load(async () => {
      const plan = await loadPlan(v[flag]);
      await buildSchedule(plan.spec, workload, { planDir: plan.planDir, planFile: plan.planFile });
    });
  }
  await check.load(() => loadSimProfile(v.profile));
  check.throwIfAny();
  const started = Date.now();
  const phase = (what: string) =>
    console.log(`\n[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${what}`);
  const pool = new SimPool();
  const tmpDir = await Deno.makeTempDir({ prefix: "goodput-demo-" });
  try {
    phase(`1/7 timeline run: ${v.plan} against the simulator (${v.profile}), about 2 minutes`);
    const timeline = await timelineRun(pool, { plan: v.plan, profile: v.profile, out: v.out, seed });
    const runDir = timeline.dir;
    // Each step's full output goes to a file; the terminal keeps one line per step and the summary at the end.
    const saved: string[] = [];
    const save = async (file: string, text: string) => {
      await Deno.writeTextFile(file, text.endsWith("\n") ? text : `${text}\n`);
      saved.push(file);
      return file;
    };
    console.log(
      `run written to ${runDir} (per-stage counts: ${await save(
        join(runDir, "run-summary.txt"),
        formatRunSummary(timeline.manifest, timeline.summary),
      )})`,
    );
    const routeDirs: string[] = [];
    for (const [i, route] of (Object.keys(SIM_ROUTES) as SimRoute[]).entries()) {
      pool.throwIfInterrupted();
      phase(`${2 + i}/7 route run "${route}": ${v["routes-plan"]} against ${describeRoute(route)}, about 35 s`);
      const r = await runSimRoute(pool, route, {
        root: ROOT,
        workload: WORKLOAD,
        plan: v["routes-plan"],
        out: `${runDir}-routes`,
        runId: routeRunId(route, timeline.manifest.run_id),
        seed: seed,
        tmpDir,
        progress: true,
      });
      console.log(
        `run written to ${r.dir} (per-stage counts: ${await save(
          join(r.dir, "run-summary.txt"),
          formatRunSummary(r.manifest, r.summary),
        )})`,
      );
      routeDirs.push(r.dir);
    }
    pool.throwIfInterrupted();
    await pool.stopAll();
    phase(
      `5/7 quality: the timeline run's open-ended answers judged by rubric by the simulator's judge (${JUDGE_PROFILE})`,
    );
    const quality = await judgeTimeline(pool, runDir, seed);
    console.log(quality);
    pool.throwIfInterrupted();
    phase(`6/7 analysis of the timeline run ${runDir}: goodput, latency, knee, recovery`);
    await save(join(runDir, "analyze.txt"), await analysisCli(ROOT, "analyze", [runDir]));
    const kneeArgs = [runDir, "--headroom", String(headroom)];
    await save(join(runDir, "knee.txt"), await analysisCli(ROOT, "knee", kneeArgs));
    phase("7/7 route comparison (same schedule and workload on each route) and the HTML report");
    // A buyer's question: at a planned 5 accepted tasks/s peak and 5 million a month, which route, how sure, at what
    // cost, and what would change the answer (docs/routes.md, docs/cost.md).
    const compareArgs = [
      ...routeDirs,
      "--prices",
      PRICES,
      "--overheads",
      OVERHEADS,
      "--headroom",
      String(headroom),
      ...DEMO_DEMAND,
    ];
    const comparePage = join(runDir, "compare.html");
    const compared = await analysisCli(ROOT, "compare", [...compareArgs, "--html", comparePage]);
    await save(join(runDir, "compare.txt"), compared);
    const extras = demoReportExtras(
      JSON.parse(await analysisCli(ROOT, "knee", [...kneeArgs, "--json"])),
      JSON.parse(
        await analysisCli(ROOT, "ledger", [runDir, "--prices", TIMELINE_PRICES, "--overheads", OVERHEADS, "--json"]),
      ),
      JSON.parse(await analysisCli(ROOT, "compare", [...compareArgs, "--json"])),
    );
    const extrasFile = join(runDir, "report-extras.json");
    await Deno.writeTextFile(extrasFile, JSON.stringify(extras, null, 2) + "\n");
    const reportFile = join(runDir, "report.html");
    const reported = await analysisCli(ROOT, "report", [runDir, "--extras", extrasFile, "--out", reportFile]);
    await save(join(runDir, "report.txt"), reported);
    phase(`done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    console.log(
      demoSummary({
        runDir,
        headroom,
        report: reported,
        compare: compared,
        routeDirs,
        files: saved,
        reportFile: resolve(ROOT, reportFile),
        comparePage: resolve(ROOT, comparePage),
        quality,
      }).join("\n"),
    );
  } finally {
    await pool.stopAll();
    await Deno.remove(tmpDir, { recursive: true });
  }
  return 0;
}

/** The timeline run: one simulator, its outage clock reset at ms 0 of the run. */
async function timelineRun(pool: SimPool, run: { plan: string; profile: string; out: string; seed: number }) {
  const { plan, profile, out, seed } = run;
  const sim = await pool.start({ root: ROOT, profile, workload: WORKLOAD, seed });
  try {
    return await runLoadTest({
      workload: WORKLOAD,
      plan,
      target: sim.url,
      out,
      formats: ["csv", "parquet"],
      conditions: "data/conditions/sim-demo.json",
      seed,
      signal: pool.signal,
      // The answers, for the judge and for a blinded review (docs/quality.md).
      saveOutputs: true,
      // The profile's outage windows count from the simulator's last reset: make that ms 0 of the run.
      atStart: () => sim.reset(),
    }) satisfies RunResult;
  } finally {
    await pool.stop(sim);
  }
}

/**
 * Judges the timeline run's open-ended answers with the simulator's judge (its own process, the design workload and its
 * rubrics) and returns one line saying what the quality table now holds.
 */
async function judgeTimeline(pool: SimPool, runDir: string, seed: number): Promise<string> {
  const sim = await pool.start({ root: ROOT, profile: JUDGE_PROFILE, workload: WORKLOAD, seed });
  try {
    const r = await runJudge({
      ...JUDGE_RUN_DEFAULTS,
      runDir,
      target: sim.url,
      model: "sim-judge",
      ratePerS: 50,
      timeoutS: 60,
      signal: pool.signal,
    });
    const d = r.details ?? {};
    const n = (v: unknown) => typeof v === "number" ? v.toLocaleString("en-US") : "?";
    return `quality: ${r.judged} of ${r.items} open-ended answers judged by sim-judge (${n(d.calls)} calls, ` +
      `${n(d.input_tokens)} input and ${n(d.output_tokens)} output tokens) into ${join(runDir, "quality")}; ` +
      "not calibrated: no human review yet (npx deno task review sample; docs/quality.md)";
  } finally {
    await pool.stop(sim);
  }
}

/** A CLI's first screen: its lines up to the first blank line (verdict, headline, one line per caveat). */
export function firstScreen(stdout: string): string[] {
  const lines = stdout.split("\n");
  const end = lines.indexOf("");
  return lines.slice(0, end < 0 ? lines.length : end);
}

/**
 * The demo's last screen: the timeline run's first screen as the report states it (verdict, goodput, knee and limit,
 * cost per accepted task, caveats), the route comparison's (verdict, one line per route with its cost per accepted
 * task, caveats), where every CLI's full output went and the report's path.
 */
export function demoSummary(x: {
  runDir: string;
  headroom: number;
  report: string;
  compare: string;
  routeDirs: string[];
  files: string[];
  reportFile: string;
  /** The route comparison's page (`compare --html`). */
  comparePage?: string;
  /** One line on the run's quality table (the judge's pass). */
  quality?: string;
}): string[] {
  const indent = (ls: string[]) => ls.map((l) => `  ${l}`);
  return [
    `timeline run ${x.runDir} (headroom ${x.headroom}, chosen by the demo: pass --headroom to choose yours):`,
    ...indent(firstScreen(x.report)),
    `route runs ${x.routeDirs.join(", ")} (same schedule and workload; cost per accepted task per route):`,
    ...indent(firstScreen(x.compare)),
    ...(x.quality ? [x.quality] : []),
    "each command's full output:",
    ...indent(byFolder(x.files)),
    `HTML report: ${x.reportFile} (open it in a browser)`,
    ...(x.comparePage ? [`route comparison page: ${x.comparePage}`] : []),
  ];
}

/** Files grouped by folder, one line per folder: `dir/: a.txt, b.txt`. */
function byFolder(files: string[]): string[] {
  const groups = new Map<string, string[]>();
  for (const f of files) groups.set(dirname(f), [...(groups.get(dirname(f)) ?? []), basename(f)]);
  return [...groups].map(([d, names]) => `${d}/: ${names.join(", ")}`);
}

function describeRoute(route: SimRoute): string {
  return Object.entries(SIM_ROUTES[route].sims).map(([name, file]) => `${name} (${file})`).join(" + ");
}

if (import.meta.main) await runCommand(DEMO_COMMAND, main);
