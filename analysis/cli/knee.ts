import { z } from "zod";
import { loadJsonFile } from "../../schema/load.ts";
import { InputError } from "../../schema/errors.ts";
import { formatKnee } from "../knee/format_knee.ts";
import { formatRecovery, type RecoveryParts } from "../recovery/format_recovery.ts";
import { coldStart } from "../recovery/cold_start.ts";
import { recovery } from "../recovery/recovery.ts";
import { retries } from "../recovery/retries.ts";
import { isRunnerRun } from "../run/imported_run.ts";
import { BLOCK_TEST_RULE, type Tolerance } from "../knee/departure.ts";
import { supportRuleText } from "../latency/early_stopping.ts";
import { KNEE_PERCENTILES, percentileNeedText } from "../../lib/percentile_support.ts";
import { knee, KNEE_DEFAULTS, type KneeOptions, type KneeResult } from "../knee/knee.ts";
import { PERSISTENCE_RULE } from "../knee/persistence.ts";
import { SIGNALS } from "../knee/levels.ts";
import { limitFromKnee, type ProductionLimit } from "../knee/limit.ts";
import { KNEE_VERDICT_RULES, OBSERVED_LEVELS_RULE } from "../knee/verdicts.ts";
import { caveatDetailText, firstScreenText, kneeHeadline, linesCaveats, verdictOf } from "../report/first_screen.ts";
import { type CommandSpec, type ParsedCommand, runCommand } from "../../lib/command.ts";
import {
  checkSheetRoutes,
  HEADROOM_FLAG,
  JSON_FLAG,
  loadRuns,
  OPEN_FLAGS,
  openOptions,
  PRICE_FLAGS,
  priceSheets,
  runArgument,
  SLO_FLAG,
  sloPolicyFor,
  underPolicy,
} from "./_args.ts";

/** `npx deno task knee`: its flags, arguments and help (lib/command.ts). */
export const KNEE_COMMAND = {
  name: "knee",
  invocation: "npx deno task knee",
  summary: "where capacity ends in a load sweep (the knee), the production limit at a headroom, and recovery, " +
    "autoscaling, retries and cold start of each run",
  details: [
    "Several RUN folders are repeats of one plan, pooled per level (docs/knee.md).",
  ],
  positionals: [runArgument(1)],
  flags: {
    ...SLO_FLAG,
    ...HEADROOM_FLAG,
    tolerances: {
      type: "string",
      arg: "FILE",
      defaultText: "the built-in tolerance of each signal (`DEFAULT_TOLERANCES`, docs/knee.md)",
      description: 'JSON `{"<signal>": {"rel": R, "abs": A}}`: how far a signal may move from the baseline before ' +
        "it counts as degraded",
    },
    "baseline-levels": {
      type: "number",
      arg: "N",
      rule: { min: 1, integer: true },
      default: KNEE_DEFAULTS.baselineLevels,
      description: "how many of the lowest levels are pooled into the baseline",
    },
    alpha: {
      type: "number",
      arg: "A",
      rule: { above: 0, below: 0.5 },
      default: KNEE_DEFAULTS.alpha,
      description: "the significance level (one-sided) of the guards that confirm a departure",
    },
    "acceptance-floor": {
      type: "number",
      arg: "F",
      rule: { min: 0, max: 1 },
      defaultText: "none: levels are not judged against a floor",
      description: "an acceptance rate each level is judged against",
    },
    ...PRICE_FLAGS,
    ...JSON_FLAG,
    ...OPEN_FLAGS,
  },
  examples: [
    "npx deno task knee data/runs/explore",
    "npx deno task knee data/runs/explore --headroom 0.2 --prices data/prices/selfhosted-sim.json",
  ],
} as const satisfies CommandSpec;

const TolerancesFile = z.record(
  z.string(),
  z.object({ rel: z.number().nonnegative().default(0), abs: z.number().nonnegative().default(0) }).strict(),
);

const TolerancesWithSignals = TolerancesFile.superRefine((t, ctx) => {
  for (const k of Object.keys(t)) {
    if (!(k in SIGNALS)) {
      ctx.addIssue({
        code: "custom",
        path: [k],
        message: `unknown signal (known: ${Object.keys(SIGNALS).join(", ")})`,
      });
    }
  }
});

const readTolerances = (file: string): Promise<Record<string, Tolerance>> =>
  loadJsonFile(file, TolerancesWithSignals, "tolerances");

/** The JSON document: the knee's offered rate, the first degrading signal and the limit(s) first, then the evidence. */
export function kneeJson(
  report: KneeResult,
  limit: ProductionLimit,
  sloFile: string,
  recovery: (RecoveryParts & { run_id: string })[] = [],
): Record<string, unknown> {
  const point = (p: KneeResult["levels"][number]["pooled"]) => ({
    parts: p.parts,
    planned_rps: p.planned_rps,
    offered_rps: p.offered_rps,
    seconds: p.seconds,
    offered: p.offered,
    accepted: p.accepted,
    accepted_goodput: p.accepted_goodput,
    signals: p.signals,
  });
  const caveats = linesCaveats(report.verdicts);
  return {
    verdict: verdictOf(caveats),
    caveats,
    verdicts: report.verdicts,
    no_capacity: report.no_capacity,
    knee_offered_rps: report.knee?.offered_rps ?? null,
    knee_source: report.knee?.source ?? null,
    first_degrading_signal: report.first_degrading?.signals[0] ?? null,
    first_degrading: report.first_degrading,
    transients: report.transients,
    limit,
    disclosure: {
      runs: report.runs,
      slo_file: sloFile,
      repeat_basis: report.repeat_basis,
      warnings: report.warnings,
      run_ends: report.run_ends,
      skipped: report.skipped,
      excluded_levels: report.excluded,
      exclusion_rules: KNEE_VERDICT_RULES,
      level_basis: report.level_basis,
      levels_rule:
        "a level is every steady or burst stage with one planned offered_rps (repeats grouped, warmup and drain excluded); " +
        "offered_rps = requests offered in the stages / their seconds; tested values pool the repeats' requests" +
        (report.level_basis === "observed" ? `; ${OBSERVED_LEVELS_RULE}` : ""),
      baseline: { planned_rps: report.baseline.planned_rps, rule: "the lowest level(s), pooled" },
      departure_rule: "degraded = beyond baseline·(1 ± rel) ± abs in the worse direction AND the guard confirms; " +
        "beyond tolerance without confirmation, or repeats on both sides of the threshold = undecidable",
      persistence_rule: PERSISTENCE_RULE,
      guards: {
        proportion: `rates (Σ hits / Σ requests): ${BLOCK_TEST_RULE}; α = ${report.alpha}`,
        percentile: "nearest-rank percentiles, tested only when both sides' n support the percentile " +
          `(lib/percentile_support.ts: ${percentileNeedText(KNEE_PERCENTILES)}; the rule the runner's plan-length ` +
          `warning applies): ${BLOCK_TEST_RULE}; α = ${report.alpha}; a percentile signal's lower/upper are its ` +
          "distribution-free CI under independence, shown for reference",
        percentile_supported: `each percentile signal's "supported": ${supportRuleText(KNEE_PERCENTILES)}`,
        bootstrap: `tokens_per_accepted (Σ tokens / Σ accepted): ${BLOCK_TEST_RULE}; α = ${report.alpha}; its ` +
          "lower/upper are the block bootstrap's 95 % interval (seed 1)",
        none: "server timeline signals and cost_per_accepted: tolerance only (the reason in each departure's guard)",
      },
      alpha: report.alpha,
      tolerances: report.tolerances,
      unit_cost: report.unit_cost,
      signal_definitions: report.unit_cost.signal === "cost_per_accepted"
        ? SIGNALS
        : Object.fromEntries(Object.entries(SIGNALS).filter(([k]) => k !== "cost_per_accepted")),
      knee_rule: "knee = the lower of the measured offered rate of the first degraded departure that persists " +
        "(persistence_rule) and the Kneedle knee of accepted goodput vs offered rate, read without the levels " +
        "whose goodput dips below a lower level's while a higher level is back at or above it (kneedle.excluded)",
    },
    levels: report.levels.map((l) => ({ ...point(l.pooled), repeats: l.repeats.map(point) })),
    baseline: point(report.baseline.point),
    departures: report.signals,
    undecidable: report.undecidable,
    kneedle: report.kneedle,
    kneedle_by_run: report.kneedle_by_run,
    acceptance_floor: report.acceptance_floor,
    /** Per run: recovery after each burst and detected outage, autoscaling, retries, cold start vs steady state. */
    recovery,
  };
}

async function main({ values: v, positionals, check }: ParsedCommand<typeof KNEE_COMMAND>): Promise<void> {
  // Every flag, then every file: all problems named at once before the analysis starts.
  const headroom = v.headroom;
  const options: KneeOptions = { alpha: v.alpha, baselineLevels: v["baseline-levels"] };
  if (v["acceptance-floor"] !== undefined) options.acceptanceFloor = v["acceptance-floor"];
  const tolerances = v.tolerances === undefined ? undefined : await check.load(() => readTolerances(v.tolerances!));
  if (tolerances) options.tolerances = tolerances;
  const { prices, overheads } = await priceSheets(check, v);
  const read = await loadRuns(check, positionals, openOptions(v));
  const slo = await sloPolicyFor(check, read, v.slo);
  const runs = await underPolicy(read, slo);
  checkSheetRoutes(check, runs, v.prices!, prices);
  check.throwIfAny();
  const { file: sloFile, policy } = slo!;
  if (prices) {
    options.prices = prices;
    options.overheads = overheads ?? null;
  }
  let report: KneeResult;
  try {
    report = knee(runs!, policy, options);
  } catch (e) {
    if (e instanceof RangeError) throw new InputError(e.message, [], { cause: e });
    throw e;
  }
  const tested = Math.max(...report.levels.map((l) => l.pooled.offered_rps));
  const limit = limitFromKnee(report, headroom, { highestTestedRps: tested });
  const recoveries = runs!.map((run) => ({
    run_id: run.manifest.run_id,
    recovery: recovery(run, policy),
    // An imported run made one call per request under no retry policy of ours, and a recording's retries are the
    // app's: no retry analysis (it reads the runner's policy and budget).
    ...(isRunnerRun(run.manifest) ? { retries: retries(run) } : {}),
    cold_start: coldStart(run, policy),
  }));
  if (v.json) console.log(JSON.stringify(kneeJson(report, limit, sloFile, recoveries), null, 2));
  else {
    // The first screen: the verdict, the knee and the limit, one line per caveat; the verdicts' whole text at the end.
    const caveats = linesCaveats(report.verdicts);
    const k = report.knee
      ? { offered_rps: report.knee.offered_rps, signal: report.first_degrading?.signals[0] ?? report.knee.source }
      : null;
    const none = report.no_capacity ?? "none in the tested range";
    console.log(firstScreenText(caveats, [kneeHeadline(k, limit, none)]).join("\n"));
    console.log(`\n${formatKnee({ ...report, verdicts: [] }, limit, { header: [`SLO policy: ${sloFile}`] })}`);
    for (const r of recoveries) {
      console.log(`\nrun ${r.run_id}: recovery, autoscaling, retries, cold start\n${formatRecovery(r)}`);
    }
    for (const line of caveatDetailText(caveats)) console.log(line);
  }
}

if (import.meta.main) await runCommand(KNEE_COMMAND, main);
