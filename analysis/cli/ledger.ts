import type { SloPolicy } from "../../schema/slo.ts";
import { formatLedger } from "../cost/format_ledger.ts";
import { ledger } from "../cost/ledger.ts";
import { runWindow } from "../goodput/policy.ts";
import { runVerdicts } from "../knee/verdicts.ts";
import {
  checkSheetRoutes,
  denominatorOption,
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
  // Every flag, then every file: all problems named at once before the ledger is built.
  const check = new InputCheck();
  const dirs = runFolders(check, positionals, 1, 1);
  check.require(v.prices === undefined, "--prices FILE is required");
  const open = openOptions(check, v);
  const den = denominatorOption(check, v.denominator);
  const sheets = await priceSheets(check, v);
  const runs = await loadRuns(check, dirs, open);
  const slo = await sloPolicyFor(check, runs, v.slo);
  checkSheetRoutes(check, runs, v.prices!, sheets.prices);
  check.throwIfAny(USAGE);
  const run = runs![0]!;
  const { file: sloFile, policy } = slo!;
  const prices = sheets.prices!;
  const overheads = sheets.overheads ?? null;
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
