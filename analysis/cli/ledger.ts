import { InputError } from "../../schema/errors.ts";
import { parseFlags, runMain } from "../../schema/cli.ts";
import type { SloPolicy } from "../../schema/slo.ts";
import { formatLedger } from "../format_ledger.ts";
import { ledger } from "../ledger.ts";
import { loadRun } from "../load_run.ts";
import { loadSloPolicy, runWindow } from "../policy.ts";
import { runVerdicts } from "../verdicts.ts";
import { loadOverheadSheet, loadPriceSheet } from "../price_sheet.ts";
import { denominatorOption, openOptions, PARTIAL_SHARDS_FLAG, resolveSloFile } from "./_args.ts";

const USAGE =
  "usage: deno task ledger RUN --prices FILE [--overheads FILE] [--slo FILE] [--denominator offered|sent|completed] [--json] [--verify warn] [--partial-shards]";

async function main(args: string[]): Promise<void> {
  const { values: v, positionals } = parseFlags(
    args,
    {
      prices: { type: "string" },
      overheads: { type: "string" },
      slo: { type: "string" },
      denominator: { type: "string" },
      json: { type: "boolean", default: false },
      verify: { type: "string" },
      ...PARTIAL_SHARDS_FLAG,
    },
    USAGE,
    { positionals: true },
  );
  if (positionals.length !== 1) throw new InputError(`expected one RUN folder, got ${positionals.length}\n${USAGE}`);
  if (v.prices === undefined) throw new InputError(`--prices FILE is required\n${USAGE}`);
  const open = openOptions(v);
  const den = denominatorOption(v.denominator);
  // Sheets first: a bad sheet is reported before the run is read.
  const prices = await loadPriceSheet(v.prices);
  const overheads = v.overheads === undefined ? null : await loadOverheadSheet(v.overheads);
  const run = await loadRun(positionals[0]!, open);
  const sloFile = resolveSloFile(run, v.slo);
  const policy = await loadSloPolicy(sloFile);
  const effective: SloPolicy = den ? { ...policy, denominator: den } : policy;
  const result = ledger(run, effective, prices, { overheads });
  const verdicts = runVerdicts(run, runWindow(run, effective.window), result);
  if (v.json) {
    const files = { prices: v.prices, overheads: v.overheads ?? null, slo: sloFile };
    console.log(JSON.stringify({ verdicts, files, ...result }, null, 2));
  } else {
    const policyLine = `SLO policy: ${sloFile}${den ? ` (denominator overridden by --denominator ${den})` : ""}`;
    console.log(formatLedger(result, { verdicts: verdicts.lines, header: [policyLine] }));
  }
}

if (import.meta.main) await runMain(() => main(Deno.args));
