/**
 * `npx deno task report RUN [flags]`: writes the self-contained HTML report of
 * a run (summary tables and every figure, the plotly.js bundle inlined). Its
 * flags: {@linkcode REPORT_COMMAND}.
 */
import { join } from "node:path";
import { InputError } from "../../schema/errors.ts";
import type { SloPolicy } from "../../schema/slo.ts";
import { loadReportExtras, type ReportExtras } from "../plots/extras.ts";
import { buildReport } from "../report/report.ts";
import { firstScreenText } from "../report/first_screen.ts";
import { runReportExtras } from "../report/report_extras.ts";
import { loadRunQuality } from "../quality/verdicts.ts";
import { type CommandSpec, type ParsedCommand, runCommand } from "../../lib/command.ts";
import { policySourceLabel } from "../report/policy_source.ts";
import {
  checkSheetRoutes,
  CONFIDENCE_FLAG,
  DENOMINATOR_FLAG,
  HEADROOM_FLAG,
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

/** `npx deno task report`: its flags, arguments and help (lib/command.ts). */
export const REPORT_COMMAND = {
  name: "report",
  invocation: "npx deno task report",
  summary: "writes the self-contained HTML report of one run: the verdicts, summary tables and every figure " +
    "(plotly.js inlined; opens offline)",
  details: [
    "The knee, its limits and the detected outages are computed from the run; `--extras` adds figures made from " +
    "other results, e.g. a route comparison (docs/plots.md). A run with a quality table (`RUN/quality/`) gets the " +
    'section "Quality by rubric": the raters\' agreement, the disagreement record, each judge against the people ' +
    "and acceptance by quality source (docs/quality.md).",
  ],
  positionals: [runArgument(1, 1)],
  flags: {
    out: {
      type: "string",
      arg: "FILE",
      defaultText: "`RUN/report.html`",
      description: "where the report is written (its folder must exist)",
    },
    ...SLO_FLAG,
    ...DENOMINATOR_FLAG,
    ...HEADROOM_FLAG,
    ...PRICE_FLAGS,
    extras: {
      type: "string",
      arg: "FILE",
      defaultText: "none",
      description: "report extras (JSON, `ReportExtras` in analysis/plots/extras.ts: knee, ledger, route comparison " +
        "results) to draw as well; `npx deno task demo` writes one",
    },
    ...CONFIDENCE_FLAG,
    ...OPEN_FLAGS,
  },
  examples: [
    "npx deno task report data/runs/explore",
    "npx deno task report data/runs/explore --headroom 0.2 --prices data/prices/selfhosted-sim.json " +
    "--out /tmp/explore.html",
  ],
} as const satisfies CommandSpec;

async function main({ values: v, positionals, check }: ParsedCommand<typeof REPORT_COMMAND>): Promise<void> {
  // Every flag, then every file: all problems named at once before the report is built.
  const dirs = positionals;
  const open = openOptions(v);
  const den = v.denominator;
  const headroom = v.headroom;
  const supportConfidence = v.confidence;
  check.outputFolder("out", v.out);
  const loadedExtras = v.extras ? await check.load(() => loadReportExtras(v.extras!)) : {};
  const sheets = await priceSheets(check, v);
  const read = await loadRuns(check, dirs, open);
  const slo = await sloPolicyFor(check, read, v.slo);
  const runs = await underPolicy(read, slo);
  checkSheetRoutes(check, runs, v.prices!, sheets.prices);
  check.throwIfAny();
  const dir = dirs[0]!;
  const run = runs![0]!;
  const { file: sloFile, policy } = slo!;
  const effective: SloPolicy = den ? { ...policy, denominator: den } : policy;
  const extras: ReportExtras = loadedExtras!;
  const prices = sheets.prices ?? null;
  const overheads = sheets.overheads ?? null;
  const filled = runReportExtras(run, effective, { headroom, prices, overheads }, extras);
  // A bad quality table is an InputError naming file, row and field (exit 2), as in analyze.
  const quality = await loadRunQuality(run);
  for (const n of filled.notes) console.error(n);
  const report = buildReport(run, effective, {
    policy_source: await policySourceLabel(sloFile),
    extras: filled.extras,
    supportConfidence,
    quality,
  });
  // The first screen, as at the top of the page: the verdict line, the headline, one line per caveat.
  console.log(`${firstScreenText(report.caveats, report.headline).join("\n")}\n`);
  const out = v.out ?? join(dir, "report.html");
  try {
    await Deno.writeTextFile(out, report.html);
  } catch (e) {
    throw new InputError(`--out ${out}: cannot write the report: ${(e as Error).message}`, [], { cause: e });
  }
  console.log(
    `report written to ${out} (${(report.html.length / 1e6).toFixed(1)} MB, ${report.figures.length} figures)`,
  );
  for (const f of report.figures) console.log(`  ${f.id}: ${f.data.length} traces — ${f.disclosure}`);
  for (const a of report.absent) console.log(`  absent: ${a.title}: ${a.reason}`);
  console.log('each caveat in full: the page\'s section "Verdicts and caveats in full"');
}

if (import.meta.main) await runCommand(REPORT_COMMAND, main);
