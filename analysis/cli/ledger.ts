import { InputError } from "../../schema/errors.ts";
import { parseFlags, runMain } from "../../schema/cli.ts";
import type { SloPolicy } from "../../schema/slo.ts";
import { formatLedger } from "../format_ledger.ts";
import { ledger } from "../ledger.ts";
import { loadRun } from "../load_run.ts";
import { loadSloPolicy } from "../policy.ts";
import { loadOverheadSheet, loadPriceSheet } from "../price_sheet.ts";

const USAGE =
  "usage: deno task ledger RUN --prices FILE [--overheads FILE] [--slo FILE] [--denominator offered|sent|completed] [--json] [--verify warn]";

/** Workloads whose SLO policy ships in data/slo/. */
const DEFAULT_POLICIES: Record<string, URL> = {
  "design-v1": new URL("../../data/slo/design-v1.json", import.meta.url),
};

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
    },
    USAGE,
    { positionals: true },
  );
  if (positionals.length !== 1) throw new InputError(`expected one RUN folder, got ${positionals.length}\n${USAGE}`);
  if (v.prices === undefined) throw new InputError(`--prices FILE is required\n${USAGE}`);
  if (v.verify !== undefined && v.verify !== "warn" && v.verify !== "strict") {
    throw new InputError(`--verify: expected warn or strict, got "${v.verify}"`);
  }
  const den = v.denominator;
  if (den !== undefined && den !== "offered" && den !== "sent" && den !== "completed") {
    throw new InputError(`--denominator: expected offered, sent or completed, got "${den}"`);
  }
  // Sheets first: a bad sheet is reported before the run is read.
  const prices = await loadPriceSheet(v.prices);
  const overheads = v.overheads === undefined ? null : await loadOverheadSheet(v.overheads);
  const run = await loadRun(positionals[0]!, { verify: v.verify as "warn" | "strict" | undefined });
  let sloFile = v.slo;
  if (sloFile === undefined) {
    const known = DEFAULT_POLICIES[run.manifest.workload.name];
    if (!known) {
      throw new InputError(
        `an SLO policy is required: workload "${run.manifest.workload.name}" has no default policy in data/slo/; pass --slo FILE`,
      );
    }
    sloFile = known.pathname;
  }
  const policy = await loadSloPolicy(sloFile);
  const effective: SloPolicy = den ? { ...policy, denominator: den } : policy;
  const result = ledger(run, effective, prices, { overheads });
  if (v.json) {
    const files = { prices: v.prices, overheads: v.overheads ?? null, slo: sloFile };
    console.log(JSON.stringify({ files, ...result }, null, 2));
  } else {
    console.log(`SLO policy: ${sloFile}${den ? ` (denominator overridden by --denominator ${den})` : ""}`);
    console.log(formatLedger(result));
  }
}

if (import.meta.main) await runMain(() => main(Deno.args));
