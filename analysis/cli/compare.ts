/**
 * `deno task compare RUN... [--slo F] [--prices F] [--overheads F] [--single RUN]... [--headroom H] [--confidence C]
 * [--force] [--json]`:
 * routes side by side on the same work — accepted goodput, acceptance, tail
 * latency per class, knee and limit, cost per accepted task.
 */
import { parseFlags, runMain } from "../../schema/cli.ts";
import { InputError } from "../../schema/errors.ts";
import type { OverheadSheet, PriceSheet } from "../../schema/prices.ts";
import type { SloPolicy } from "../../schema/slo.ts";
import { compareRoutes } from "../compare.ts";
import { formatCompare } from "../format_compare.ts";
import { kneeAnalysis } from "../knee.ts";
import { ledger } from "../ledger.ts";
import { limitFromKnee } from "../verdicts.ts";
import { loadRun } from "../load_run.ts";
import type { LoadedRun } from "../loaded_run.ts";
import { loadSloPolicy } from "../policy.ts";
import { loadOverheadSheet, loadPriceSheet } from "../price_sheet.ts";
import { confidenceOption, headroomOption, openOptions, PARTIAL_SHARDS_FLAG, resolveSloFile } from "./_args.ts";

const USAGE = "usage: deno task compare RUN RUN... [--slo FILE] [--prices FILE] [--overheads FILE] " +
  "[--single RUN]... [--headroom H] [--confidence C] [--force] [--json] [--verify warn] [--partial-shards]";

/** Knee, limit and cost per accepted task of one run, as extra comparison columns. */
function runExtras(
  policy: SloPolicy,
  prices: PriceSheet | null,
  overheads: OverheadSheet | null,
  headroom: number | undefined,
) {
  return (run: LoadedRun): Record<string, number | string | null> => {
    const knee = kneeAnalysis([run], policy);
    const limit = limitFromKnee(knee, headroom);
    const out: Record<string, number | string | null> = {
      knee_rps: knee.knee?.offered_rps ?? null,
      knee_signal: knee.first_degrading?.signals[0] ??
        (knee.knee ? knee.knee.source : knee.no_capacity ? "no capacity" : "none in tested range"),
      [headroom === undefined ? "limit_rps (no headroom given)" : `limit_rps @${headroom}`]: limit.limit_rps,
    };
    if (prices) {
      const l = ledger(run, policy, prices, { overheads });
      out[`cost/accepted ${l.currency}`] = l.overall.cost_per_accepted_task;
      out[`naive/request ${l.currency}`] = l.overall.naive.per_request;
    }
    return out;
  };
}

async function main(args: string[]): Promise<void> {
  const { values: v, positionals } = parseFlags(
    args,
    {
      slo: { type: "string" },
      prices: { type: "string" },
      overheads: { type: "string" },
      single: { type: "string", multiple: true },
      headroom: { type: "string" },
      force: { type: "boolean", default: false },
      json: { type: "boolean", default: false },
      verify: { type: "string" },
      ...PARTIAL_SHARDS_FLAG,
      confidence: { type: "string" },
    },
    USAGE,
    { positionals: true },
  );
  if (positionals.length < 2) {
    throw new InputError(`expected at least two RUN folders, got ${positionals.length}\n${USAGE}`);
  }
  const open = openOptions(v);
  const headroom = headroomOption(v.headroom);
  const supportConfidence = confidenceOption(v.confidence);
  if (v.overheads && !v.prices) throw new InputError(`--overheads needs --prices\n${USAGE}`);
  const runs: LoadedRun[] = [];
  for (const dir of positionals) runs.push(await loadRun(dir, open));
  const singles: LoadedRun[] = [];
  for (const dir of v.single ?? []) singles.push(await loadRun(dir, open));
  const sloFile = resolveSloFile(runs[0]!, v.slo);
  const policy = await loadSloPolicy(sloFile);
  const prices = v.prices ? await loadPriceSheet(v.prices) : null;
  const overheads = v.overheads ? await loadOverheadSheet(v.overheads) : null;
  const result = compareRoutes(runs, policy, {
    force: v.force,
    singleClassRuns: singles.length ? singles : undefined,
    extras: runExtras(policy, prices, overheads, headroom),
    ...(supportConfidence === undefined ? {} : { supportConfidence }),
  });
  const pricing = prices
    ? {
      price_sheet: { name: prices.name, as_of: prices.as_of, source: prices.source },
      overheads: overheads?.name ?? null,
    }
    : null;
  if (v.json) console.log(JSON.stringify({ slo_file: sloFile, pricing, ...result }, null, 2));
  else {
    console.log(`SLO policy: ${sloFile}`);
    if (prices) {
      console.log(
        `prices: ${prices.name} (as of ${prices.as_of}); overheads: ${overheads?.name ?? "not priced"}; ` +
          "cost per accepted task = whole ledger / accepted tasks (deno task ledger RUN for the line items)",
      );
    } else console.log("prices: none given (--prices FILE adds cost per accepted task)");
    console.log(formatCompare(result));
  }
}

if (import.meta.main) await runMain(() => main(Deno.args));
