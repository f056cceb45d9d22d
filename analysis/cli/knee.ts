import { z } from "zod";
import { loadJsonFile } from "../../schema/load.ts";
import { InputError } from "../../schema/errors.ts";
import { formatKnee } from "../knee/format_knee.ts";
import { formatRecovery, type RecoveryParts } from "../recovery/format_recovery.ts";
import { coldStart } from "../recovery/cold_start.ts";
import { recovery } from "../recovery/recovery.ts";
import { retries } from "../recovery/retries.ts";
import { isImported } from "../run/imported_run.ts";
import { BLOCK_TEST_RULE, type Tolerance } from "../knee/departure.ts";
import { supportRuleText } from "../latency/early_stopping.ts";
import { knee, type KneeOptions, type KneeResult } from "../knee/knee.ts";
import { PERSISTENCE_RULE } from "../knee/persistence.ts";
import { SIGNALS } from "../knee/levels.ts";
import { limitFromKnee, type ProductionLimit } from "../knee/limit.ts";
import { KNEE_VERDICT_RULES } from "../knee/verdicts.ts";
import {
  checkSheetRoutes,
  fractionOption,
  headroomOption,
  InputCheck,
  loadRuns,
  openOptions,
  parseFlags,
  PARTIAL_SHARDS_FLAG,
  priceSheets,
  runFolders,
  runMain,
  sloPolicyFor,
} from "./_args.ts";

const USAGE = "usage: deno task knee RUN... [--slo FILE] [--headroom H] [--json] [--tolerances FILE] " +
  "[--baseline-levels N] [--alpha A] [--acceptance-floor F] [--prices FILE [--overheads FILE]] [--verify warn] [--partial-shards]";

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
  return {
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
      levels_rule:
        "a level is every steady or burst stage with one planned offered_rps (repeats grouped, warmup and drain excluded); " +
        "offered_rps = requests offered in the stages / their seconds; tested values pool the repeats' requests",
      baseline: { planned_rps: report.baseline.planned_rps, rule: "the lowest level(s), pooled" },
      departure_rule: "degraded = beyond baseline·(1 ± rel) ± abs in the worse direction AND the guard confirms; " +
        "beyond tolerance without confirmation, or repeats on both sides of the threshold = undecidable",
      persistence_rule: PERSISTENCE_RULE,
      guards: {
        proportion: `rates (Σ hits / Σ requests): ${BLOCK_TEST_RULE}; α = ${report.alpha}`,
        percentile: "nearest-rank percentiles, tested only when both sides' n support the percentile " +
          `(percentile.ts): ${BLOCK_TEST_RULE}; α = ${report.alpha}; a percentile signal's lower/upper are its ` +
          "distribution-free CI under independence, shown for reference",
        percentile_supported: `each percentile signal's "supported": ${supportRuleText([0.95, 0.99])}`,
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

async function main(args: string[]): Promise<void> {
  const { values: v, positionals } = parseFlags(
    args,
    {
      slo: { type: "string" },
      headroom: { type: "string" },
      json: { type: "boolean", default: false },
      tolerances: { type: "string" },
      "baseline-levels": { type: "string" },
      alpha: { type: "string" },
      "acceptance-floor": { type: "string" },
      verify: { type: "string" },
      ...PARTIAL_SHARDS_FLAG,
      prices: { type: "string" },
      overheads: { type: "string" },
    },
    USAGE,
    { positionals: true },
  );
  // Every flag, then every file: all problems named at once before the analysis starts.
  const check = new InputCheck();
  const dirs = runFolders(check, positionals, 1);
  const open = openOptions(check, v);
  const headroom = headroomOption(check, v.headroom);
  const options: KneeOptions = {};
  const alpha = fractionOption(check, "alpha", v.alpha, Number.MIN_VALUE, 0.5);
  if (alpha !== undefined) options.alpha = alpha;
  const floor = fractionOption(check, "acceptance-floor", v["acceptance-floor"], 0, 1.0000001);
  if (floor !== undefined) options.acceptanceFloor = floor;
  const baselineLevels = check.number("baseline-levels", v["baseline-levels"], { min: 1, integer: true });
  if (baselineLevels !== undefined) options.baselineLevels = baselineLevels;
  const tolerances = v.tolerances === undefined ? undefined : await check.load(() => readTolerances(v.tolerances!));
  if (tolerances) options.tolerances = tolerances;
  const { prices, overheads } = await priceSheets(check, v);
  const runs = await loadRuns(check, dirs, open);
  const slo = await sloPolicyFor(check, runs, v.slo);
  checkSheetRoutes(check, runs, v.prices!, prices);
  check.throwIfAny(USAGE);
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
    // An imported run made one call per request under no retry policy of ours: no retry analysis.
    ...(isImported(run.manifest) ? {} : { retries: retries(run) }),
    cold_start: coldStart(run, policy),
  }));
  if (v.json) console.log(JSON.stringify(kneeJson(report, limit, sloFile, recoveries), null, 2));
  else {
    console.log(formatKnee(report, limit, { header: [`SLO policy: ${sloFile}`] }));
    for (const r of recoveries) {
      console.log(`\nrun ${r.run_id}: recovery, autoscaling, retries, cold start\n${formatRecovery(r)}`);
    }
  }
}

if (import.meta.main) await runMain(() => main(Deno.args));
