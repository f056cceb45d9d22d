/**
 * `npx deno task compare RUN RUN... [flags]`: routes side by side on the same
 * work — accepted goodput, acceptance, tail latency per class, knee and limit,
 * cost per accepted task. Its flags: {@linkcode COMPARE_COMMAND}.
 */
import type { OverheadSheet, PriceSheet } from "../../schema/prices.ts";
import type { SloPolicy } from "../../schema/slo.ts";
import { compare } from "../compare/compare.ts";
import { decision } from "../compare/decision.ts";
import { DECISION_FLAGS, decisionOptions } from "../compare/decision_flags.ts";
import { formatDecision } from "../compare/format_decision.ts";
import type { DecisionResult } from "../compare/decision_result.ts";
import { compareRouteCosts, type RouteCostResult } from "../compare/route_costs.ts";
import { volumeCosts, type VolumeResult } from "../compare/volume.ts";
import { parseVolumeFlags, type PlannedDemand, VOLUME_FLAGS } from "../compare/volume_demand.ts";
import { formatVolume } from "../compare/format_volume.ts";
import { DEFAULT_RANGE_FACTOR, sensitivity, type SensitivityResult } from "../compare/sensitivity.ts";
import { parseRangeFactor, parseRangeFlag, type RangeSpec } from "../compare/sensitivity_lines.ts";
import { formatSensitivity } from "../compare/format_sensitivity.ts";
import { verdictLine } from "../compare/format_decision.ts";
import { buildComparePage } from "../report/compare_page.ts";
import { policySourceLabel } from "../report/policy_source.ts";
import { formatCompare } from "../compare/format_compare.ts";
import { knee } from "../knee/knee.ts";
import { ledger } from "../cost/ledger.ts";
import { limitFromKnee } from "../knee/limit.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import { type CommandSpec, type ParsedCommand, runCommand } from "../../lib/command.ts";
import { isRunnerRun } from "../run/imported_run.ts";
import { InputError } from "../../schema/errors.ts";
import { runWindow } from "../goodput/policy.ts";
import { runVerdicts } from "../knee/verdicts.ts";
import { caveatDetailText, firstScreenText, linesCaveats, verdictOf } from "../report/first_screen.ts";
import { sig } from "../../lib/number_format.ts";
import { roundDown } from "../latency/round_display.ts";
import {
  checkSheetRoutes,
  CONFIDENCE_FLAG,
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

/** `npx deno task compare`: its flags, arguments and help (lib/command.ts). */
export const COMPARE_COMMAND = {
  name: "compare",
  invocation: "npx deno task compare",
  summary: "routes side by side on the same schedule: accepted goodput, acceptance, tail latency per class, knee, " +
    "limit and cost per accepted task",
  details: [
    "Runs that differ in what they ran (workload, schedule, output cap, mode) are refused, naming each difference, " +
    "unless `--force` (docs/routes.md).",
  ],
  positionals: [runArgument(2)],
  flags: {
    ...SLO_FLAG,
    ...PRICE_FLAGS,
    single: {
      type: "string",
      arg: "RUN",
      multiple: true,
      description: "a run of one class alone on a route, at its share of the same rates: its acceptance beside the " +
        "class's in the mix (crowding out)",
    },
    ...HEADROOM_FLAG,
    force: {
      type: "boolean",
      description: "compare runs that differ in what they ran (the differences are still listed)",
    },
    ...CONFIDENCE_FLAG,
    ...DECISION_FLAGS,
    ...VOLUME_FLAGS,
    range: {
      type: "string",
      arg: "LINE=LOW:HIGH",
      multiple: true,
      description: "the range one price line is varied over in the sensitivity (its id, or a unique end of it, e.g. " +
        "`gpu_hour=1.5:6`); it must contain the line's price",
    },
    "range-factor": {
      type: "string",
      arg: "LOW:HIGH",
      defaultText: `${DEFAULT_RANGE_FACTOR.low}:${DEFAULT_RANGE_FACTOR.high}`,
      description: "the range of every other price line, as factors of its price (must contain 1)",
    },
    html: {
      type: "string",
      arg: "FILE",
      description: "also write the comparison as one self-contained HTML page: the verdict first, the ranked routes " +
        "with their intervals, the cost at the planned volume, what would change the answer, classes side by side, " +
        "knees and limits, every rule",
    },
    ...JSON_FLAG,
    ...OPEN_FLAGS,
  },
  examples: [
    "npx deno task compare data/runs/route-hosted data/runs/route-selfhosted data/runs/route-hybrid " +
    "--prices data/prices/routes-sim.json --overheads data/prices/overheads-default.json",
    "npx deno task compare data/runs/route-hosted data/runs/route-selfhosted " +
    "--single data/runs/route-selfhosted-alone-safety",
  ],
} as const satisfies CommandSpec;

/** Knee, limit and cost per accepted task of one run, as extra comparison columns. */
function runExtras(
  policy: SloPolicy,
  prices: PriceSheet | null,
  overheads: OverheadSheet | null,
  headroom: number | undefined,
) {
  const limitKey = headroom === undefined ? "limit_rps (no headroom given)" : `limit_rps @${headroom}`;
  return (run: LoadedRun): Record<string, number | string | null> => {
    let out: Record<string, number | string | null>;
    try {
      const k = knee([run], policy);
      const limit = limitFromKnee(k, headroom);
      out = {
        knee_rps: k.knee?.offered_rps ?? null,
        knee_signal: k.first_degrading?.signals[0] ??
          (k.knee ? k.knee.source : k.no_capacity ? "no capacity" : "none in tested range"),
        [limitKey]: limit.limit_rps,
      };
    } catch (e) {
      // An imported run (closed loop, durations only) or a production recording may have no load level: no knee, said why.
      if (!(e instanceof InputError) || isRunnerRun(run.manifest)) throw e;
      out = { knee_rps: null, knee_signal: `no knee: ${e.message}`, [limitKey]: null };
    }
    if (prices) {
      const l = ledger(run, policy, prices, { overheads });
      out[`cost/accepted ${l.currency}`] = l.overall.cost_per_accepted_task;
      out[`naive/request ${l.currency}`] = l.overall.naive.per_request;
    }
    return out;
  };
}

async function main({ values: v, positionals, check }: ParsedCommand<typeof COMPARE_COMMAND>): Promise<void> {
  // Every flag, then every file: all problems named at once before the comparison starts.
  const open = openOptions(v);
  const headroom = v.headroom;
  const supportConfidence = v.confidence;
  const sheets = await priceSheets(check, v);
  const loaded = await loadRuns(check, positionals, open);
  const loadedSingles = await loadRuns(check, v.single, open);
  let resampling: ReturnType<typeof decisionOptions> | null = null;
  try {
    resampling = decisionOptions(v);
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    check.problems.push(...(e.problems.length ? e.problems : [e.message]));
  }
  // Cost at a planned volume: only when one is asked for (--demand, --monthly or --profile), and then priced.
  let demand: PlannedDemand | null = null;
  if (v.demand !== undefined || v.monthly !== undefined || v.profile !== undefined) {
    try {
      demand = parseVolumeFlags(v);
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      check.problems.push(...(e.problems.length ? e.problems : [e.message]));
    }
    check.require(!v.prices, "--demand (a volume) needs --prices: the cost at a volume is priced");
  } else check.require(v.extrapolate || v.redundancy !== undefined, "--extrapolate and --redundancy need --demand");
  const ranges: RangeSpec[] = [];
  let rangeFactor: { low: number; high: number } | undefined;
  try {
    for (const r of v.range) ranges.push(parseRangeFlag(r));
    if (v["range-factor"] !== undefined) rangeFactor = parseRangeFactor(v["range-factor"]);
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    check.problems.push(e.message);
  }
  check.require((v.range.length > 0 || v["range-factor"] !== undefined) && !v.prices, "--range needs --prices");
  check.outputFolder("html", v.html);
  const slo = await sloPolicyFor(check, loaded && loadedSingles ? [...loaded, ...loadedSingles] : undefined, v.slo);
  if (loaded && loadedSingles) checkSheetRoutes(check, [...loaded, ...loadedSingles], v.prices!, sheets.prices);
  check.throwIfAny();
  const runs = (await underPolicy(loaded, slo))!;
  const singles = (await underPolicy(loadedSingles, slo))!;
  const { file: sloFile, policy } = slo!;
  const prices = sheets.prices ?? null;
  const overheads = sheets.overheads ?? null;
  const result = compare(runs, policy, {
    force: v.force,
    singleClassRuns: singles.length ? singles : undefined,
    extras: runExtras(policy, prices, overheads, headroom),
    supportConfidence,
  });
  // Each run's verdicts (how it ended, nothing accepted, the client's limits), named by run: the first screen's caveats.
  const verdicts = runs.map((run, i) => {
    const o = result.routes[i]!.overall;
    return {
      run_id: run.manifest.run_id,
      lines: runVerdicts(run, runWindow(run, policy.window), { overall: o, policy }).lines,
    };
  });
  const caveats = linesCaveats(verdicts.flatMap((v) => v.lines.map((l) => `${v.run_id}: ${l}`)));
  // The answer for a buyer (docs/routes.md, docs/cost.md), on priced routes only, two or more of them: the ranked
  // verdict with its intervals, the cost at the planned volume, and what would change the answer.
  const priced = prices !== null && runs.length >= 2;
  // Knees, limits and ledgers per route: for the volume, and for the page's knee figures.
  const routeCosts: RouteCostResult | null = priced && (demand || v.html !== undefined)
    ? compareRouteCosts(runs, policy, { prices, overheads, headroom, supportConfidence })
    : null;
  const knees = routeCosts?.routes.map((r) => ({ run_id: r.run_id, knee: r.knee, limit: r.limit }));
  const ranked: DecisionResult | null = priced
    ? decision(runs, policy, {
      ...resampling!,
      prices,
      overheads,
      headroom,
      sloLabel: sloFile,
      ...(knees ? { knees } : {}),
    })
    : null;
  const volume: VolumeResult | null = routeCosts && demand
    ? volumeCosts(runs, routeCosts, policy, prices!, demand)
    : null;
  const extrapolated = volume?.routes.filter((r) => r.extrapolated) ?? [];
  const sens: SensitivityResult | null = priced
    ? sensitivity(runs, policy, prices!, {
      overheads,
      ranges,
      ...(rangeFactor ? { rangeFactor } : {}),
      otherAssumptions: extrapolated.map((r) => ({
        name: `the volume on ${r.route}`,
        reason: `EXTRAPOLATION: ${r.extrapolation.join("; ")}`,
      })),
    })
    : null;
  const pricing = prices
    ? {
      price_sheet: { name: prices.name, as_of: prices.as_of, source: prices.source },
      overheads: overheads?.name ?? null,
    }
    : null;
  if (v.html !== undefined) {
    const page = buildComparePage({
      compare: result,
      routeCosts,
      decision: ranked,
      volume,
      sensitivity: sens,
      caveats,
      policy_source: await policySourceLabel(sloFile),
      pricing,
    });
    await Deno.writeTextFile(v.html, page.html);
    console.error(`comparison page written to ${v.html} (${page.figures.length} figures)`);
  }
  if (v.json) {
    // slo_source names the policy file as a report does (name and sha256, not the folder): reports take it from here.
    const sloSource = await policySourceLabel(sloFile);
    const first = { verdict: verdictOf(caveats), caveats, verdicts };
    console.log(
      JSON.stringify(
        {
          ...first,
          slo_file: sloFile,
          slo_source: sloSource,
          pricing,
          ...result,
          decision: ranked,
          volume,
          sensitivity: sens,
        },
        null,
        2,
      ),
    );
  } else {
    // The buyer's answer leads: the ranked verdict line, then each route's headline.
    const answer = ranked ? [verdictLine(ranked, ranked.verdict)] : [];
    console.log(firstScreenText(caveats, [...answer, ...result.routes.map(routeHeadline)]).join("\n"));
    console.log(`\nSLO policy: ${sloFile}`);
    if (prices) {
      console.log(
        `prices: ${prices.name} (as of ${prices.as_of}); overheads: ${overheads?.name ?? "not priced"}; ` +
          "cost per accepted task = whole ledger / accepted tasks (npx deno task ledger RUN for the line items)",
      );
    } else console.log("prices: none given (--prices FILE adds cost per accepted task)");
    console.log(formatCompare(result));
    if (ranked) console.log(`\n${formatDecision(ranked).join("\n")}`);
    else if (!prices) console.log("\nranked verdict: none without prices (--prices FILE ranks the routes by cost)");
    if (volume) console.log(`\n${formatVolume(volume).join("\n")}`);
    else if (priced) {
      console.log("\ncost at a volume: none asked for (--demand RATE --monthly N costs each route at it)");
    }
    if (sens) console.log(`\n${formatSensitivity(sens).join("\n")}`);
    for (const line of caveatDetailText(caveats)) console.log(line);
  }
}

/** One route in one line: goodput with its n, the knee and the limit, the cost per accepted task. */
function routeHeadline(r: ReturnType<typeof compare>["routes"][number]): string {
  const o = r.overall, e = r.extras;
  const rate = (v: unknown) => (typeof v === "number" ? `${roundDown(v)} req/s` : "none");
  const limitKey = Object.keys(e).find((k) => k.startsWith("limit_rps"));
  const costKey = Object.keys(e).find((k) => k.startsWith("cost/accepted "));
  const cost = costKey
    ? `; cost/accepted ${typeof e[costKey] === "number" ? sig(e[costKey] as number) : "-"} ` +
      costKey.slice("cost/accepted ".length)
    : "";
  return `${r.route}: goodput ${sig(o.accepted_goodput)} tasks/s (${o.accepted}/${o.offered} accepted); knee ` +
    `${rate(e.knee_rps)}; limit ${limitKey && e[limitKey] !== null ? rate(e[limitKey]) : "none"}${cost}`;
}

if (import.meta.main) await runCommand(COMPARE_COMMAND, main);
