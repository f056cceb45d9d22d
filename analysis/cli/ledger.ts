import type { SloPolicy } from "../../schema/slo.ts";
import { formatLedger } from "../cost/format_ledger.ts";
import { ledger } from "../cost/ledger.ts";
import { qualityLedger } from "../cost/quality_ledger.ts";
import { runWindow } from "../goodput/policy.ts";
import { inlineQualityPolicy, measuredQualityEntries } from "../goodput/quality_source.ts";
import { qualityCaveats } from "../report/quality_caveats.ts";
import { runVerdicts } from "../knee/verdicts.ts";
import { reportCaveats } from "../report/caveats.ts";
import { caveatDetailText, firstScreenText, verdictOf } from "../report/first_screen.ts";
import { DEFAULT_SUPPORT_CONFIDENCE } from "../latency/early_stopping.ts";
import { fixed, sig } from "../../lib/number_format.ts";
import { type CommandSpec, type ParsedCommand, runCommand } from "../../lib/command.ts";
import {
  checkSheetRoutes,
  DENOMINATOR_FLAG,
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

/** `npx deno task ledger`: its flags, arguments and help (lib/command.ts). */
export const LEDGER_COMMAND = {
  name: "ledger",
  invocation: "npx deno task ledger",
  summary: "the cost ledger of one run: cost per accepted task with every line item, beside the naive cost per " +
    "request",
  details: [
    "Failed calls, retries, a model judge's recorded tokens and human review (the minutes the run's quality table " +
    "records, else the overheads sheet's expected counts) in the numerator, only accepted tasks in the denominator " +
    "(docs/cost.md, docs/quality_cost.md).",
    "When the SLO policy takes a class's quality from a measured source (quality_source judge, human or " +
    "calibrated-judge), the accepted tasks are counted or estimated from the run's quality table as analyze does, " +
    "every cost line unchanged; an estimate gives the cost per accepted task an interval (docs/quality_cost.md).",
  ],
  positionals: [runArgument(1, 1)],
  flags: {
    prices: { ...PRICE_FLAGS.prices, required: true, defaultText: "required" },
    overheads: PRICE_FLAGS.overheads,
    ...SLO_FLAG,
    ...DENOMINATOR_FLAG,
    ...JSON_FLAG,
    ...OPEN_FLAGS,
  },
  examples: [
    "npx deno task ledger data/runs/explore --prices data/prices/selfhosted-sim.json " +
    "--overheads data/prices/overheads-default.json",
  ],
} as const satisfies CommandSpec;

async function main({ values: v, positionals, check }: ParsedCommand<typeof LEDGER_COMMAND>): Promise<void> {
  // Every flag, then every file: all problems named at once before the ledger is built.
  const den = v.denominator;
  const sheets = await priceSheets(check, v);
  const read = await loadRuns(check, positionals, openOptions(v));
  const slo = await sloPolicyFor(check, read, v.slo);
  const runs = await underPolicy(read, slo);
  checkSheetRoutes(check, runs, v.prices!, sheets.prices);
  check.throwIfAny();
  const run = runs![0]!;
  const { file: sloFile, policy } = slo!;
  const prices = sheets.prices!;
  const overheads = sheets.overheads ?? null;
  const effective: SloPolicy = den ? { ...policy, denominator: den } : policy;
  // A measured quality source (judge, human, calibrated-judge) changes the accepted count only: qualityLedger prices
  // every line as inline and takes the denominator from the run's quality table (read once, with the run).
  const measured = measuredQualityEntries(effective).length > 0;
  const result = measured
    ? qualityLedger(run, effective, prices, { overheads })
    : ledger(run, effective, prices, { overheads });
  const counting = measured ? inlineQualityPolicy(effective) : effective;
  const verdicts = runVerdicts(run, runWindow(run, effective.window), { overall: result.overall, policy: counting });
  const reported = reportCaveats({
    run,
    verdicts,
    disclosure: result.disclosure,
    supportConfidence: DEFAULT_SUPPORT_CONFIDENCE,
  });
  // The quality caveats (quality unknown, estimated, judge uncalibrated) join them by level, as in analyze.
  const rank = { INVALID: 0, WARNING: 1, NOTE: 2 } as const;
  const caveats = "quality" in result
    ? [...reported, ...qualityCaveats(result.quality.disclosure)].map((c, i) => ({ c, i }))
      .sort((a, b) => rank[a.c.level] - rank[b.c.level] || a.i - b.i).map((x) => x.c)
    : reported;
  if (v.json) {
    const files = { prices: v.prices, overheads: v.overheads ?? null, slo: sloFile };
    console.log(JSON.stringify({ verdict: verdictOf(caveats), caveats, verdicts, files, ...result }, null, 2));
  } else {
    const policyLine = `SLO policy: ${sloFile}${den ? ` (denominator overridden by --denominator ${den})` : ""}`;
    const o = result.overall, d = result.disclosure;
    const q = "quality" in result ? result.quality.overall : null;
    const cost = o.cost_per_accepted_task === null
      ? "cost per accepted task: none (nothing accepted)"
      : q && q.level !== null
      ? `cost per accepted task ≈${sig(o.cost_per_accepted_task)} ${result.currency} = ${sig(o.total)} ` +
        `${result.currency} / ≈${fixed(o.accepted, 1)} accepted, ${q.level * 100} % interval [${
          sig(q.cost_per_accepted_task_low)
        }, ${q.unbounded_above ? "no upper bound" : sig(q.cost_per_accepted_task_high)}] from the accepted ` +
        `count's [${fixed(q.accepted_low!, 1)}, ${fixed(q.accepted_high!, 1)}] (window ${d.window.stages.join("+")}; ` +
        `${o.offered} offered)`
      : `cost per accepted task ${sig(o.cost_per_accepted_task)} ${result.currency} = ${sig(o.total)} ` +
        `${result.currency} / ${o.accepted} accepted (window ${d.window.stages.join("+")}; ${o.offered} offered)`;
    console.log(firstScreenText(caveats, [cost]).join("\n"));
    console.log(`\n${formatLedger(result, { verdicts: [], header: [policyLine] })}`);
    for (const line of caveatDetailText(caveats)) console.log(line);
  }
}

if (import.meta.main) await runCommand(LEDGER_COMMAND, main);
