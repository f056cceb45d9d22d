/**
 * `deno task report RUN [--out F]`: writes the self-contained HTML report of
 * a run (summary tables and every figure, the plotly.js bundle inlined).
 */
import { join } from "node:path";
import { InputError } from "../../schema/errors.ts";
import type { SloPolicy } from "../../schema/slo.ts";
import { loadReportExtras, type ReportExtras } from "../plots/extras.ts";
import { buildReport } from "../report/report.ts";
import { runReportExtras } from "../report/report_extras.ts";
import { policySourceLabel } from "../report/policy_source.ts";
import {
  checkSheetRoutes,
  confidenceOption,
  denominatorOption,
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

const USAGE = "usage: deno task report RUN [--out F] [--slo FILE] [--denominator offered|sent|completed] " +
  "[--headroom H] [--prices FILE [--overheads FILE]] [--extras FILE] [--confidence C] [--verify warn] [--partial-shards]";

async function main(args: string[]): Promise<void> {
  const { values: v, positionals } = parseFlags(
    args,
    {
      out: { type: "string" },
      slo: { type: "string" },
      denominator: { type: "string" },
      extras: { type: "string" },
      headroom: { type: "string" },
      prices: { type: "string" },
      overheads: { type: "string" },
      verify: { type: "string" },
      ...PARTIAL_SHARDS_FLAG,
      confidence: { type: "string" },
    },
    USAGE,
    { positionals: true },
  );
  // Every flag, then every file: all problems named at once before the report is built.
  const check = new InputCheck();
  const dirs = runFolders(check, positionals, 1, 1);
  const open = openOptions(check, v);
  const den = denominatorOption(check, v.denominator);
  const headroom = headroomOption(check, v.headroom);
  const supportConfidence = confidenceOption(check, v.confidence);
  check.outputFolder("out", v.out);
  const loadedExtras = v.extras ? await check.load(() => loadReportExtras(v.extras!)) : {};
  const sheets = await priceSheets(check, v);
  const runs = await loadRuns(check, dirs, open);
  const slo = await sloPolicyFor(check, runs, v.slo);
  checkSheetRoutes(check, runs, v.prices!, sheets.prices);
  check.throwIfAny(USAGE);
  const dir = dirs[0]!;
  const run = runs![0]!;
  const { file: sloFile, policy } = slo!;
  const effective: SloPolicy = den ? { ...policy, denominator: den } : policy;
  const extras: ReportExtras = loadedExtras!;
  const prices = sheets.prices ?? null;
  const overheads = sheets.overheads ?? null;
  const filled = runReportExtras(run, effective, { headroom, prices, overheads }, extras);
  for (const n of filled.notes) console.error(n);
  const report = buildReport(run, effective, {
    policy_source: await policySourceLabel(sloFile),
    extras: filled.extras,
    ...(supportConfidence === undefined ? {} : { supportConfidence }),
  });
  // The verdicts (incomplete run, nothing accepted, client limits) are the first lines, as at the top of the page.
  for (const line of report.verdicts) console.log(line);
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
}

if (import.meta.main) await runMain(() => main(Deno.args));
