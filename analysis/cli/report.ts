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
import { kneeAnalysis } from "../knee.ts";
import { ledger } from "../ledger.ts";
import { productionLimit } from "../limit.ts";
import type { LoadedRun } from "../loaded_run.ts";
import { kneeCurve, ledgerWaterfall, outagePeriods } from "../route_costs.ts";
import { detectOutages } from "../outages.ts";
import { loadOverheadSheet, loadPriceSheet } from "../price_sheet.ts";

const USAGE = "usage: deno task report RUN [--out F] [--slo FILE] [--denominator offered|sent|completed] " +
  "[--headroom H] [--prices FILE [--overheads FILE]] [--extras FILE] [--verify warn]";

/** Workloads whose SLO policy ships in data/slo/. */
const DEFAULT_POLICIES: Record<string, URL> = {
  "design-v1": new URL("../../data/slo/design-v1.json", import.meta.url),
};

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
    },
    USAGE,
    { positionals: true },
  );
  if (positionals.length !== 1) throw new InputError(`expected one RUN folder, got ${positionals.length}\n${USAGE}`);
  if (v.verify !== undefined && v.verify !== "warn" && v.verify !== "strict") {
    throw new InputError(`--verify: expected warn or strict, got "${v.verify}"`);
  }
  const den = v.denominator;
  if (den !== undefined && den !== "offered" && den !== "sent" && den !== "completed") {
    throw new InputError(`--denominator: expected offered, sent or completed, got "${den}"`);
  }
  const dir = positionals[0]!;
  const run = await loadRun(dir, { verify: v.verify as "warn" | "strict" | undefined });
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
  let headroom: number | undefined;
  if (v.headroom !== undefined) {
    headroom = Number(v.headroom);
    if (!(v.headroom.trim() !== "" && headroom >= 0 && headroom < 1)) {
      throw new InputError(`--headroom: expected a number in [0, 1), got "${v.headroom}"`);
    }
  }
  if (v.overheads && !v.prices) throw new InputError(`--overheads needs --prices\n${USAGE}`);
  const extras: ReportExtras = v.extras ? await loadReportExtras(v.extras) : {};
  await computeExtras(extras, run, effective, { headroom, prices: v.prices, overheads: v.overheads });
  const report = buildReport(run, effective, { policy_source: sloFile, extras });
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

/**
 * Fills what the extras file did not give from the run itself: the knee and
 * limits (limit only at the user's headroom, else every headroom choice), the
 * outages detected in the log, and with `--prices` the ledger's waterfall.
 */
async function computeExtras(
  extras: ReportExtras,
  run: LoadedRun,
  policy: SloPolicy,
  o: { headroom?: number; prices?: string; overheads?: string },
): Promise<void> {
  if (!extras.knee) {
    try {
      const knee = kneeAnalysis([run], policy);
      const limit = productionLimit(knee.knee?.offered_rps ?? null, o.headroom);
      const { knee_rps, knee_signal, limits } = kneeCurve(run, policy, knee, limit);
      extras.knee = { knee_rps, ...(knee_signal ? { knee_signal } : {}), limits };
    } catch (e) {
      // A run with fewer than two load levels has no knee: the report lists the mark as absent with its reason.
      if (!(e instanceof RangeError || e instanceof InputError)) throw e;
      console.error(`no knee: ${e.message}`);
    }
  }
  if (!extras.outages) extras.outages = outagePeriods(detectOutages(run));
  if (o.prices && !extras.ledger) {
    const overheads = o.overheads ? await loadOverheadSheet(o.overheads) : null;
    extras.ledger = ledgerWaterfall(ledger(run, policy, await loadPriceSheet(o.prices), { overheads }));
  }
}

if (import.meta.main) await runMain(() => main(Deno.args));
