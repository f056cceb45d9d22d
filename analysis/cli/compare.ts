/**
 * `deno task compare RUN... [--slo F] [--prices F] [--overheads F] [--single RUN]... [--headroom H] [--confidence C]
 * [--force] [--json]`:
 * routes side by side on the same work — accepted goodput, acceptance, tail
 * latency per class, knee and limit, cost per accepted task.
 */
import type { OverheadSheet, PriceSheet } from "../../schema/prices.ts";
import type { SloPolicy } from "../../schema/slo.ts";
import { compare } from "../compare/compare.ts";
import { formatCompare } from "../compare/format_compare.ts";
import { knee } from "../knee/knee.ts";
import { ledger } from "../cost/ledger.ts";
import { limitFromKnee } from "../knee/limit.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import { isImported } from "../run/imported_run.ts";
import { InputError } from "../../schema/errors.ts";
import {
  checkSheetRoutes,
  confidenceOption,
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

const USAGE = "usage: deno task compare RUN RUN... [--slo FILE] [--prices FILE] [--overheads FILE] " +
  "[--single RUN]... [--headroom H] [--confidence C] [--force] [--json] [--verify warn] [--partial-shards]";

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
      // An imported run may have no load level (closed loop, or durations only): no knee, said why.
      if (!(e instanceof InputError) || !isImported(run.manifest)) throw e;
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
  // Every flag, then every file: all problems named at once before the comparison starts.
  const check = new InputCheck();
  const dirs = runFolders(check, positionals, 2);
  const open = openOptions(check, v);
  const headroom = headroomOption(check, v.headroom);
  const supportConfidence = confidenceOption(check, v.confidence);
  const sheets = await priceSheets(check, v);
  const loaded = await loadRuns(check, dirs, open);
  const loadedSingles = await loadRuns(check, v.single ?? [], open);
  const slo = await sloPolicyFor(check, loaded && loadedSingles ? [...loaded, ...loadedSingles] : undefined, v.slo);
  if (loaded && loadedSingles) checkSheetRoutes(check, [...loaded, ...loadedSingles], v.prices!, sheets.prices);
  check.throwIfAny(USAGE);
  const runs = loaded!;
  const singles = loadedSingles!;
  const { file: sloFile, policy } = slo!;
  const prices = sheets.prices ?? null;
  const overheads = sheets.overheads ?? null;
  const result = compare(runs, policy, {
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
