import pl from "nodejs-polars";
import { InputError } from "../../schema/errors.ts";
import type { OverheadSheet, PriceSheet, RoutePrice } from "../../schema/prices.ts";
import type { QualityTable } from "../../schema/quality_file.ts";
import type { SloPolicy } from "../../schema/slo.ts";
import { classify } from "../goodput/classify.ts";
import type { Disclosure } from "../goodput/disclosure.ts";
import { goodput } from "../goodput/goodput.ts";
import { runSpan, splitRunTime } from "./gpu_time.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import { policyForRun, runWindow } from "../goodput/policy.ts";
import {
  attemptCategory,
  type AttemptColumns,
  type HostedCharge,
  NOT_REPORTED,
  priceHostedAttempts,
} from "./price_attempts.ts";
import { type GpuTimeSummary, priceSelfHosted } from "./price_gpu.ts";
import { LEDGER_ITEMS, type LedgerLine, LineBook } from "./price_lines.ts";
import { type EvaluationCharges, priceOverheads } from "./price_overheads.ts";
import { priceSource, routePrice } from "./price_sheet.ts";
import { type CostRow, rollUpCosts } from "./price_rollup.ts";
import { ledgerRules } from "./price_rules.ts";
import { selfHostedTargets, targetWeights } from "./self_hosted_targets.ts";

export type { CostRow, EvaluationCharges, GpuTimeSummary };

/** The figures a price calculator would give, for comparison. */
export interface NaiveFigures {
  /** provider_or_gpu + retries: what the model provider or the GPUs cost. */
  model_bill: number;
  sent: number;
  /** model_bill / sent requests. */
  per_request: number | null;
  /** Input + output tokens of charged hosted attempts and served self-hosted attempts. */
  tokens: number;
  /** model_bill / tokens × 1e6. */
  per_mtok: number | null;
}

/** The result of {@linkcode ledger}. */
export interface LedgerResult {
  currency: string;
  pricing: {
    price_sheet: { name: string; as_of: string; source: string };
    overheads: { name: string; as_of: string; source: string } | null;
    /** How each cost was computed, in words. */
    rules: string[];
    /**
     * Per hosted route, its charged attempts by the service tier prices that applied (`TierPricing.applied`: the
     * tier the answer says served the attempt, else the sheet's `service_tier`, and which prices priced it).
     */
    service_tiers: { route: string; applied: string; attempts: number }[];
    /**
     * How evaluation was charged: each judge part of the quality table (its tokens as recorded, the unjudged items'
     * share, models NOT PRICED) and the basis of human review (recorded minutes, or the sheet's expected counts).
     */
    evaluation: Omit<EvaluationCharges, "warnings">;
    warnings: string[];
  };
  /** The goodput disclosure: denominator, window, inclusion rules, SLO, n. */
  disclosure: Disclosure;
  lines: LedgerLine[];
  overall: CostRow & {
    naive: NaiveFigures;
    /** Fixed costs no request in the window could carry (included in total). */
    unallocated: number;
    /** cost_per_accepted_task / naive.per_request. */
    ratio_to_naive_per_request: number | null;
  };
  /** By `requests.route` (the route a task was sent to; fallback attempts on other routes count here). */
  by_route: (CostRow & { route: string })[];
  by_class: (CostRow & { class: string })[];
  /** Each self-hosted target's paid time: the run's span, the window's share of the time outside it, by state. */
  gpu_time: GpuTimeSummary[];
}

/** Options of {@linkcode ledger}. */
export interface LedgerOptions {
  /** Retrieval, tools, storage, observability, review and operations prices. @default null (not priced, shown at 0) */
  overheads?: OverheadSheet | null;
  /**
   * The window of every measured stage of the run: self-hosted time outside it is allocated to the measured
   * stages in proportion to their seconds, this window getting its share (a knee level passes every steady and
   * burst stage). @default the policy's window (the window gets all of it)
   */
  measured?: SloPolicy["window"];
  /**
   * The run's quality table (analysis/run/run_quality.ts `withQuality`): its judge parts' recorded tokens and its
   * human and adjudicated verdicts' recorded minutes are charged. @default run.quality ?? null
   */
  quality?: QualityTable | null;
}

const strings = (df: pl.DataFrame, c: string) => df.getColumn(c).toArray() as string[];
const numbers = (df: pl.DataFrame, c: string) => df.getColumn(c).toArray() as number[];

/**
 * The cost ledger of a run priced under a sheet: line items (quantity × unit
 * price = amount, with their source) and cost_per_accepted_task = total /
 * accepted tasks, beside the naive cost per request and per million tokens,
 * overall, by route and by class. Accepted tasks, the window and the
 * disclosure are those of {@linkcode goodput} under `policy`. Priced from
 * the log's usage at analysis time, so another sheet re-prices the same run.
 * A run's quality table (`options.quality`, else `run.quality`) adds what
 * evaluation cost: a model judge's recorded tokens and the reviewers'
 * recorded minutes (docs/quality_cost.md). A policy taking a class's quality from a measured source (judge, human,
 * calibrated-judge) is refused here (an `InputError`): analysis/cost/quality_ledger.ts `qualityLedger` applies it.
 *
 * @example Cost per accepted task of a run
 * ```ts ignore
 * const result = ledger(await loadRun("out/run-1"), await loadSloPolicy("data/slo/design-v1.json"),
 *   await loadPriceSheet("data/prices/hosted-sim.json"), { overheads: await loadOverheadSheet("data/prices/overheads-default.json") });
 * console.log(result.overall.cost_per_accepted_task, result.overall.naive.per_request);
 * ```
 */
export function ledger(
  run: LoadedRun,
  policy: SloPolicy,
  prices: PriceSheet,
  options: LedgerOptions = {},
): LedgerResult {
  return pricedLedger(run, policy, prices, options).ledger;
}

/** What {@linkcode pricedLedger} returns: the ledger and what it was summed from. */
export interface PricedLedger {
  ledger: LedgerResult;
  /** Each request's amount of each item (`perRequest`, `charged`) by index into `requests`, and the spread lines. */
  book: LineBook;
  /** The window's requests as classified under the policy ({@linkcode classify}'s columns), in the book's order. */
  requests: pl.DataFrame;
}

/**
 * {@linkcode ledger} with the line book it summed and the window's requests in the book's order: for a per-request
 * attribution of the same ledger (analysis/cost/request_costs.ts).
 */
export function pricedLedger(
  run: LoadedRun,
  policy: SloPolicy,
  prices: PriceSheet,
  options: LedgerOptions = {},
): PricedLedger {
  policy = policyForRun(policy, run, "ledger() policy");
  const overheads = options.overheads ?? null;
  if (overheads && overheads.currency !== prices.currency) {
    throw new InputError(
      `overheads sheet "${overheads.name}" is in ${overheads.currency}, price sheet "${prices.name}" in ${prices.currency}`,
    );
  }
  const gp = goodput(run, policy);
  const window = runWindow(run, policy.window);
  const rows = classify(run, policy, window)
    .join(run.requests.select(pl.col("request_id"), pl.col("route").alias("req_route")), {
      on: "request_id",
      how: "left",
    });
  const ids = strings(rows, "request_id");
  const index = new Map(ids.map((id, i) => [id, i]));
  const n = ids.length;
  const keep = rows.select("request_id");
  // Retries by position in their round: the runner numbers attempts from 1, other logs may from 0.
  const att = run.attempts.join(keep, { on: "request_id", how: "inner" })
    .withColumns(pl.col("attempt").gt(pl.col("attempt").min().over("request_id", "round")).alias("_retry"));
  const cols: AttemptColumns = {
    req: Int32Array.from(strings(att, "request_id"), (id) => index.get(id)!),
    route: strings(att, "route"),
    model: strings(att, "model"),
    retry: att.getColumn("_retry").toArray() as boolean[],
    http_status: att.getColumn("http_status").toArray() as (number | null)[],
    error_kind: att.getColumn("error_kind").toArray() as (string | null)[],
    input: numbers(att, "input_tokens"),
    cached: numbers(att, "cached_input_tokens"),
    output: numbers(att, "output_tokens"),
    reasoning: att.getColumn("reasoning_tokens").toArray() as (number | null)[],
    cache_write: att.getColumn("cache_write_tokens").toArray() as (number | null)[],
    service_tier: att.getColumn("service_tier").toArray() as (string | null)[],
  };

  const byRoute = new Map<string, number[]>();
  cols.route.forEach((r, i) => byRoute.has(r) ? byRoute.get(r)!.push(i) : byRoute.set(r, [i]));
  const routes = [...byRoute.keys()].sort();
  const missing: string[] = [];
  const price = new Map<string, RoutePrice>();
  for (const r of routes) {
    try {
      price.set(r, routePrice(prices, r));
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      missing.push(e.message);
    }
  }
  if (missing.length) {
    throw new InputError(`price sheet "${prices.name}" does not price every route of the run`, missing);
  }

  const book = new LineBook(n);
  const warnings: string[] = [];
  let tokens = 0;
  const service_tiers: LedgerResult["pricing"]["service_tiers"] = [];
  for (const r of routes) {
    const p = price.get(r)!, idx = byRoute.get(r)!;
    if (p.kind === "hosted") {
      const charge = priceHostedAttempts(book, cols, idx, r, p, priceSource(prices, p));
      tokens += charge.tokens;
      for (const [applied, attempts] of Object.entries(charge.tiers)) {
        service_tiers.push({ route: r, applied, attempts });
      }
      const models = [...new Set(idx.map((i) => cols.model[i]!))].sort();
      if (p.model !== null && models.some((m) => m !== p.model)) {
        warnings.push(`route ${r}: priced as model ${p.model}; the log's attempts name ${models.join(", ")}`);
      }
      warnings.push(...notReportedWarnings(r, charge, run.manifest.schema_minor));
    } else {
      for (const i of idx) {
        if (attemptCategory(cols.http_status[i]!, cols.error_kind[i]!) === "served") {
          tokens += cols.input[i]! + cols.output[i]!;
        }
      }
    }
  }
  const gpu_time: GpuTimeSummary[] = [];
  const targets = selfHostedTargets(run.server, routes, price, replicasNotExposed(run));
  if (targets.length) {
    const measured = runWindow(run, options.measured ?? policy.window);
    const split = splitRunTime(runSpan(run.manifest, logEndMs(run)), window, measured, run.manifest.stages);
    for (const t of targets) {
      const weights = targetWeights(cols, n, t.members);
      gpu_time.push(priceSelfHosted(book, t, t.price, split, weights, priceSource(prices, t.price), warnings));
    }
  }

  const attemptsPerRequest = new Int32Array(n);
  for (const r of cols.req) attemptsPerRequest[r]!++;
  const tl = run.tools.join(keep, { on: "request_id", how: "inner" });
  const bools = (c: string) => rows.getColumn(c).toArray() as boolean[];
  const usage = {
    sent: bools("sent"),
    completed: bools("completed"),
    accepted: bools("accepted"),
    attempts: attemptsPerRequest,
    tools: { req: Int32Array.from(strings(tl, "request_id"), (id) => index.get(id)!), tool: strings(tl, "tool") },
    measurement_seconds: window.measurement_seconds,
  };
  const table = options.quality === undefined ? run.quality ?? null : options.quality;
  const evaluation = priceOverheads(book, { ...usage, quality: table ? { table, index } : null }, overheads);
  warnings.push(...evaluation.warnings);

  const rolled = rollUpCosts(book, { ...usage, class: strings(rows, "class"), route: strings(rows, "req_route") });
  const model_bill = rolled.overall.cost.provider_or_gpu + rolled.overall.cost.retries;
  const naive: NaiveFigures = {
    model_bill,
    sent: rolled.overall.sent,
    per_request: rolled.overall.sent ? model_bill / rolled.overall.sent : null,
    tokens,
    per_mtok: tokens ? model_bill / tokens * 1e6 : null,
  };
  const cpat = rolled.overall.cost_per_accepted_task;
  const sheetInfo = (s: { name: string; as_of: string; source: string }) => ({
    name: s.name,
    as_of: s.as_of,
    source: s.source,
  });
  const result: LedgerResult = {
    currency: prices.currency,
    pricing: {
      price_sheet: sheetInfo(prices),
      overheads: overheads ? sheetInfo(overheads) : null,
      rules: ledgerRules(overheads, evaluation),
      service_tiers,
      evaluation: { judge: evaluation.judge, human_review: evaluation.human_review },
      warnings,
    },
    disclosure: gp.disclosure,
    lines: book.lines(),
    overall: {
      ...rolled.overall,
      naive,
      unallocated: LEDGER_ITEMS.reduce((s, i) => s + book.unallocated[i], 0),
      ratio_to_naive_per_request: cpat !== null && naive.per_request ? cpat / naive.per_request : null,
    },
    by_route: rolled.by_route,
    by_class: rolled.by_class,
    gpu_time,
  };
  return { ledger: result, book, requests: rows };
}

/** Warnings for a route whose sheet prices reasoning or cache writes apart but whose attempts lack the count. */
function notReportedWarnings(route: string, charge: HostedCharge, minor: number): string[] {
  const why = minor < 1
    ? "not recorded: the log is contract 1.0, which has no such column"
    : "not reported by the target";
  const out: string[] = [];
  const terms = {
    reasoning: ["reasoning_per_mtok", "reasoning-token", "their output tokens are billed at output_per_mtok"],
    cache_write: ["cache_write_per_mtok", "cache-write", "their uncached input is billed at input_per_mtok"],
  } as const;
  for (const k of ["reasoning", "cache_write"] as const) {
    const missing = charge.not_reported[k];
    if (!missing) continue;
    const [field, count, billed] = terms[k];
    out.push(
      `route ${route}: ${field} is set but ${missing} of ${charge.applicable[k]} charged attempts have no ${count} ` +
        `count (${why}): ${billed} (line "${NOT_REPORTED[k]}")`,
    );
  }
  return out;
}

/**
 * Route → the server-metrics source of its target when run.json says that source does not expose `replicas` (a real
 * engine's `/metrics`: the column is 0, not measured).
 */
function replicasNotExposed(run: LoadedRun): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of run.manifests) {
    for (const t of "server_metrics" in m ? m.server_metrics?.targets ?? [] : []) {
      if (t.source !== null && t.not_exposed.includes("replicas")) { for (const r of t.routes) out.set(r, t.source); }
    }
  }
  return out;
}

/** The log's last event: the latest server row, attempt send or completion, or scheduled request. */
function logEndMs(run: LoadedRun): number {
  const max = (df: pl.DataFrame | null, c: string) => {
    if (!df || !df.height) return 0;
    const v = Number(df.getColumn(c).max());
    return Number.isFinite(v) ? v : 0;
  };
  return Math.max(
    max(run.server, "t_ms"),
    max(run.attempts, "sent_ms"),
    max(run.attempts, "completed_ms"),
    max(run.requests, "scheduled_ms"),
  );
}
