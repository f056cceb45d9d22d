/**
 * `deno task report RUN [--out F]`: writes the self-contained HTML report of
 * a run (summary tables and every figure, the plotly.js bundle inlined).
 */
import { join } from "node:path";
import { InputError } from "../../schema/errors.ts";
import { parseFlags, runMain } from "../../schema/cli.ts";
import type { SloPolicy } from "../../schema/slo.ts";
import { loadRun } from "../load_run.ts";
import { loadReportExtras, type ReportExtras } from "../plots/extras.ts";
import { loadSloPolicy } from "../policy.ts";
import { buildReport } from "../report.ts";
import { runReportExtras } from "../report_extras.ts";
import { loadOverheadSheet, loadPriceSheet } from "../price_sheet.ts";
import {
  confidenceOption,
  denominatorOption,
  headroomOption,
  openOptions,
  PARTIAL_SHARDS_FLAG,
  resolveSloFile,
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
  if (positionals.length !== 1) throw new InputError(`expected one RUN folder, got ${positionals.length}\n${USAGE}`);
  const open = openOptions(v);
  const den = denominatorOption(v.denominator);
  const dir = positionals[0]!;
  const run = await loadRun(dir, open);
  const sloFile = resolveSloFile(run, v.slo);
  const policy = await loadSloPolicy(sloFile);
  const effective: SloPolicy = den ? { ...policy, denominator: den } : policy;
  const headroom = headroomOption(v.headroom);
  const supportConfidence = confidenceOption(v.confidence);
  if (v.overheads && !v.prices) throw new InputError(`--overheads needs --prices\n${USAGE}`);
  const extras: ReportExtras = v.extras ? await loadReportExtras(v.extras) : {};
  const prices = v.prices ? await loadPriceSheet(v.prices) : null;
  const overheads = v.overheads ? await loadOverheadSheet(v.overheads) : null;
  const filled = runReportExtras(run, effective, { headroom, prices, overheads }, extras);
  for (const n of filled.notes) console.error(n);
  const report = buildReport(run, effective, {
    policy_source: sloFile,
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
