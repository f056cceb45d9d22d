import type { PriceSheet } from "../../schema/prices.ts";
import type { QualitySourceName, SloPolicy } from "../../schema/slo.ts";
import { classSlo, policyForRun } from "../goodput/policy.ts";
import { inlineQualityPolicy, qualitySourceOf } from "../goodput/quality_source.ts";
import type { QualityDisclosure, QualityMethod } from "../quality/quality_disclosure.ts";
import { qualityGoodput } from "../quality/quality_goodput.ts";
import { runQualityOf } from "../quality/verdicts.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import { type AcceptedCost, acceptedCost } from "./accepted_cost.ts";
import { type LedgerOptions, type LedgerResult, pricedLedger } from "./ledger.ts";
import type { CostRow } from "./price_rollup.ts";

export type { AcceptedCost };

/** A route's row of {@linkcode qualityLedger}: its accepted count and cost per accepted task null when not given. */
export type QualityRouteRow = Omit<CostRow, "accepted" | "cost_per_accepted_task"> & {
  route: string;
  accepted: number | null;
  cost_per_accepted_task: number | null;
};

/** One class's cost per accepted task with the quality source its accepted count comes from. */
export type ClassAcceptedCost = AcceptedCost & {
  class: string;
  source: QualitySourceName;
  /** The judge model of a judge or calibrated-judge source; null otherwise. */
  judge: string | null;
  /** `inline`: the requests log's quality_ok; `verdict_count`, `stratified_normal_fpc`, `rogan_gladen_delta`. */
  method: QualityMethod;
};

/** The result of {@linkcode qualityLedger}: the ledger with its accepted counts from the policy's quality sources. */
export type QualityLedgerResult = Omit<LedgerResult, "by_route"> & {
  /** As in the ledger; a route carrying a class of a measured source has accepted and cost per accepted task null. */
  by_route: QualityRouteRow[];
  quality: {
    /** How the denominator was taken, in words. */
    rules: string[];
    overall: AcceptedCost;
    /** Every class of the run (not the `(unallocated)` costs), with its source and method. */
    by_class: ClassAcceptedCost[];
    /** The routes whose accepted count is not given, and why. */
    by_route: { not_given: string[]; reason: string };
    /** What each measured class's acceptance rests on (analysis/quality/quality_goodput.ts). */
    disclosure: QualityDisclosure;
  };
};

/** Why a route's cost per accepted task is not given under a measured quality source. */
export const BY_ROUTE_REASON = "the quality sources give accepted counts overall and by class, stage and mode, not " +
  "by route (a human estimate is stratified by route × stage within a class, a calibrated judge is corrected once " +
  "per class): a route carrying a class of a measured source has its costs and cost per offered request, no accepted " +
  "count and no cost per accepted task";

/**
 * The cost ledger of a run whose SLO policy takes a class's quality from a measured source (`quality_source` judge,
 * human or calibrated-judge; docs/quality_goodput.md). The numerator does not depend on quality: every line (model
 * bill, retries, overheads, the judge's tokens, the reviewers' minutes) is priced as {@linkcode ledger} prices it
 * under the policy with every class inline. The denominator is the accepted count of `qualityGoodput` under the policy
 * itself, overall and by class: exact for inline and judge classes, an estimate with its interval when a human or
 * calibrated-judge class is in the row, giving cost per accepted task = total / accepted and the interval
 * [total / accepted_high, total / accepted_low] from the acceptance's interval only (prices taken as exact). By
 * route, only routes carrying no class of a measured source keep their accepted count ({@linkcode BY_ROUTE_REASON}).
 *
 * The quality table is `options.quality`, else `run.quality` (read once, by `withQuality`). Refused as
 * `qualityGoodput` refuses (an `InputError`): no table, a judge below the policy's `min_judge_kappa`, an unreviewed
 * stratum. With every class inline it is {@linkcode ledger}'s result with a `quality` section.
 *
 * @example Cost per accepted task by the calibrated judge
 * ```ts ignore
 * const run = await withQuality(await loadRun("out/q/RUN"));
 * const r = qualityLedger(run, policy, prices, { overheads });
 * console.log(r.quality.overall.cost_per_accepted_task, r.quality.overall.cost_per_accepted_task_high);
 * ```
 */
export function qualityLedger(
  run: LoadedRun,
  policy: SloPolicy,
  prices: PriceSheet,
  options: LedgerOptions = {},
): QualityLedgerResult {
  policy = policyForRun(policy, run, "qualityLedger() policy");
  const table = options.quality === undefined ? run.quality ?? null : options.quality;
  const ids = run.requests.getColumn("request_id").toArray() as string[];
  const classes = run.requests.getColumn("class").toArray() as string[];
  const quality = table ? runQualityOf(run.dir, table, ids.map((id, i) => [id, classes[i]!] as const)) : null;
  // The denominator first: a refused source (kappa, no table) stops before anything is priced.
  const qg = qualityGoodput(run, policy, quality);
  const { ledger: l, requests } = pricedLedger(run, inlineQualityPolicy(policy), prices, options);

  const goodputRow = new Map(qg.by_class.map((r) => [r.class, r]));
  const measured = new Map(qg.quality.classes.map((d) => [d.class, d]));
  const level = qg.quality.settings.level;
  const by_class: ClassAcceptedCost[] = [];
  const classRows = l.by_class.map((row) => {
    const g = goodputRow.get(row.class);
    if (!g) return row; // the (unallocated) costs: no request, nothing accepted
    if (g.offered !== row.offered) {
      throw new Error(`qualityLedger(): class ${row.class} has ${row.offered} offered priced, ${g.offered} counted`);
    }
    const c = acceptedCost(row.total, g.accepted, g.estimate ?? null);
    const d = measured.get(row.class);
    by_class.push({
      class: row.class,
      source: d?.source ?? "inline",
      judge: d?.judge ?? null,
      method: d?.method ?? "inline",
      ...c,
    });
    return { ...row, accepted: c.accepted, cost_per_accepted_task: c.cost_per_accepted_task };
  });

  const overall = acceptedCost(l.overall.total, qg.overall.accepted, qg.overall.estimate ?? null);
  const cpat = overall.cost_per_accepted_task, naive = l.overall.naive.per_request;

  const reqClass = requests.getColumn("class").toArray() as string[];
  const reqRoute = requests.getColumn("req_route").toArray() as string[];
  const measuredRoutes = new Set(
    reqRoute.filter((_, i) => qualitySourceOf(classSlo(policy, reqClass[i]!)) !== "inline"),
  );
  const by_route: QualityRouteRow[] = l.by_route.map((row) =>
    measuredRoutes.has(row.route) ? { ...row, accepted: null, cost_per_accepted_task: null } : row
  );

  return {
    ...l,
    disclosure: qg.disclosure,
    overall: {
      ...l.overall,
      accepted: overall.accepted,
      cost_per_accepted_task: cpat,
      ratio_to_naive_per_request: cpat !== null && naive ? cpat / naive : null,
    },
    by_route,
    by_class: classRows,
    quality: {
      rules: denominatorRules(level, l.pricing.evaluation.human_review.basis === "expected"),
      overall,
      by_class,
      by_route: { not_given: [...measuredRoutes].sort(), reason: BY_ROUTE_REASON },
      disclosure: qg.quality,
    },
  };
}

/** The denominator's rules in words. */
function denominatorRules(level: number, expectedReview: boolean): string[] {
  return [
    "numerator: every line priced as with every class's quality inline (model bill, retries, overheads, the " +
    "judge's recorded tokens, the reviewers' recorded minutes): a quality source changes the accepted count only",
    "denominator: accepted tasks with each class's quality_ok from its quality_source (docs/quality_goodput.md): " +
    "inline and judge classes are counted (exact); a human or calibrated-judge class is an estimate with its interval",
    `cost per accepted task = total / accepted (the point estimate); its interval [total / accepted_high, total / ` +
    `accepted_low] comes from the accepted count's ${level * 100} % interval only: prices are taken as exact; an ` +
    "accepted_low of 0 leaves it without an upper bound",
    ...(expectedReview
      ? [
        "human review's expected counts (the table records no human verdict) sample the tasks under inline quality " +
        "(an overheads sheet's basis accepted counts the inline accepted tasks), like every other line of the numerator",
      ]
      : []),
  ];
}
