/**
 * What a run's report can compute from the run itself, beside what an
 * extras file gives: the knee and limits, the outages detected in the log
 * and, with a price sheet, the ledger's cost waterfall.
 *
 * @module
 */
import { InputError } from "../../schema/errors.ts";
import type { OverheadSheet, PriceSheet } from "../../schema/prices.ts";
import type { SloPolicy } from "../../schema/slo.ts";
import { knee } from "../knee/knee.ts";
import { ledger } from "../cost/ledger.ts";
import { limitFromKnee } from "../knee/limit.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import { detectOutages, outagePeriods } from "../recovery/outages.ts";
import type { ReportExtras } from "../plots/extras.ts";
import { kneeCurve, ledgerWaterfall } from "../compare/route_costs.ts";
import { policyForRun } from "../goodput/policy.ts";

/** Options of {@linkcode runReportExtras}. */
export interface RunExtrasOptions {
  /** The user's headroom; absent = no limit applied, every headroom choice marked (with it: marked chosen among them). */
  headroom?: number;
  /** Prices the run for the cost waterfall. @default {null} */
  prices?: PriceSheet | null;
  /** @default {null} */
  overheads?: OverheadSheet | null;
}

/**
 * Fills what `given` (an extras file) leaves out: the knee of the run's load
 * levels with the limit at every headroom choice and at the user's headroom
 * (marked chosen), the outages detected in the log, and with `prices` the
 * ledger's waterfall. `notes` says what could not be computed and why (a run
 * with fewer than two load levels has no knee: the knee entry then carries
 * that reason and no line).
 */
export function runReportExtras(
  run: LoadedRun,
  policy: SloPolicy,
  options: RunExtrasOptions = {},
  given: ReportExtras = {},
): { extras: ReportExtras; notes: string[] } {
  policy = policyForRun(policy, run, "runReportExtras() policy");
  const extras: ReportExtras = { ...given };
  const notes: string[] = [];
  if (!extras.knee) {
    try {
      const k = knee([run], policy);
      const limit = limitFromKnee(k, options.headroom);
      const { knee_rps, knee_signal, knee_note, limits, headroom } = kneeCurve(run, policy, k, limit);
      extras.knee = {
        knee_rps,
        ...(knee_signal ? { knee_signal } : {}),
        ...(knee_note ? { knee_note } : {}),
        limits,
        headroom: headroom ?? null,
      };
    } catch (e) {
      if (!(e instanceof RangeError || e instanceof InputError)) throw e;
      notes.push(`no knee: ${e.message}`);
      // The page is forwarded: the run by its id, not by the folder it was read from.
      const why = e.message.replaceAll(run.dir, `run ${run.manifest.run_id}`);
      extras.knee = { knee_rps: null, knee_note: `knee not computed: ${why}`, limits: [], headroom: null };
    }
  }
  if (!extras.outages) extras.outages = outagePeriods(detectOutages(run));
  if (options.prices && !extras.ledger) {
    extras.ledger = ledgerWaterfall(ledger(run, policy, options.prices, { overheads: options.overheads ?? null }));
  }
  return { extras, notes };
}
