import pl from "nodejs-polars";
import { InputError } from "../schema/errors.ts";
import type { OverheadSheet, PriceSheet, RoutePrice, SelfHostedPrice } from "../schema/prices.ts";
import type { SloPolicy } from "../schema/slo.ts";
import { classify } from "./classify.ts";
import type { Disclosure } from "./disclosure.ts";
import { goodput } from "./goodput.ts";
import type { LoadedRun } from "./loaded_run.ts";
import { policyForRun, resolveWindow } from "./policy.ts";
import { attemptCategory, type AttemptColumns, priceHostedAttempts } from "./price_attempts.ts";
import { priceSelfHosted } from "./price_gpu.ts";
import { LEDGER_ITEMS, type LedgerLine, LineBook } from "./price_lines.ts";
import { priceOverheads } from "./price_overheads.ts";
import { priceSource, routePrice } from "./price_sheet.ts";
import { type CostRow, rollUpCosts } from "./price_rollup.ts";
import { ledgerRules } from "./price_rules.ts";

export type { CostRow };

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
}

/** Options of {@linkcode ledger}. */
export interface LedgerOptions {
  /** Retrieval, tools, storage, observability, review and operations prices. @default null (not priced, shown at 0) */
  overheads?: OverheadSheet | null;
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
  policy = policyForRun(policy, run, "ledger() policy");
  const overheads = options.overheads ?? null;
  if (overheads && overheads.currency !== prices.currency) {
    throw new InputError(
      `overheads sheet "${overheads.name}" is in ${overheads.currency}, price sheet "${prices.name}" in ${prices.currency}`,
    );
  }
  const gp = goodput(run, policy);
  const window = resolveWindow(run.manifest.stages, policy.window);
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
  for (const r of routes) {
    const p = price.get(r)!, idx = byRoute.get(r)!;
    if (p.kind === "hosted") {
      tokens += priceHostedAttempts(book, cols, idx, r, p, priceSource(prices, p));
      const models = [...new Set(idx.map((i) => cols.model[i]!))].sort();
      if (p.model !== null && models.some((m) => m !== p.model)) {
        warnings.push(`route ${r}: priced as model ${p.model}; the log's attempts name ${models.join(", ")}`);
      }
      if (p.reasoning_per_mtok !== null && p.reasoning_per_mtok !== p.output_per_mtok) {
        warnings.push(
          `route ${r}: reasoning_per_mtok is not applied: the log has no reasoning-token count, so reasoning tokens are inside output_tokens at output_per_mtok`,
        );
      }
    } else {
      for (const i of idx) {
        if (attemptCategory(cols.http_status[i]!, cols.error_kind[i]!) === "served") {
          tokens += cols.input[i]! + cols.output[i]!;
        }
      }
    }
  }
  for (const t of selfHostedTargets(run, routes, price)) {
    priceSelfHosted(
      book,
      t,
      t.price,
      window,
      targetWeights(cols, n, t.members),
      priceSource(prices, t.price),
      warnings,
    );
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
  priceOverheads(book, usage, overheads);

  const rolled = rollUpCosts(book, { ...usage, class: strings(rows, "class"), route: strings(rows, "req_route") });
  if (rolled.overall.accepted !== gp.overall.accepted || rolled.overall.offered !== gp.overall.offered) {
    throw new Error(
      `ledger counts (${rolled.overall.accepted}/${rolled.overall.offered}) differ from goodput's: a bug`,
    );
  }
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
  return {
    currency: prices.currency,
    pricing: {
      price_sheet: sheetInfo(prices),
      overheads: overheads ? sheetInfo(overheads) : null,
      rules: ledgerRules(overheads),
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
  };
}

interface Target {
  label: string;
  members: string[];
  price: SelfHostedPrice;
  server: pl.DataFrame | null;
  match: (label: string) => boolean;
}

/**
 * Self-hosted targets of the run: one per server-timeline label (routes
 * sharing a target are labelled "a+b" and priced once); without a route
 * column the single self-hosted route gets the whole timeline.
 */
function selfHostedTargets(run: LoadedRun, routes: string[], price: Map<string, RoutePrice>): Target[] {
  const self = routes.filter((r) => price.get(r)!.kind === "self_hosted");
  if (!self.length) return [];
  const server = run.server;
  if (!server || !server.columns.includes("route")) {
    if (self.length > 1) {
      throw new InputError(
        `routes ${
          self.join(", ")
        } are priced self-hosted but the server timeline has no route column to split GPU time`,
      );
    }
    return [{
      label: self[0]!,
      members: self,
      price: price.get(self[0]!) as SelfHostedPrice,
      server,
      match: () => true,
    }];
  }
  const labels = [...new Set(strings(server, "route"))].sort();
  const out: Target[] = [];
  const placed = new Set<string>();
  for (const label of labels) {
    const members = label.split("+").filter((m) => self.includes(m));
    if (!members.length) continue;
    const ps = members.map((m) => price.get(m) as SelfHostedPrice);
    if (ps.some((p) => JSON.stringify(p) !== JSON.stringify(ps[0]))) {
      throw new InputError(
        `routes ${members.join(", ")} share one server (${label}) but have different self-hosted prices`,
      );
    }
    members.forEach((m) => placed.add(m));
    out.push({ label, members, price: ps[0]!, server, match: (l) => l === label });
  }
  for (const r of self.filter((m) => !placed.has(m))) {
    out.push({ label: r, members: [r], price: price.get(r) as SelfHostedPrice, server: null, match: () => false });
  }
  return out;
}

/** Each request's input + output tokens on the target's routes (its attempt count when no tokens were logged). */
function targetWeights(cols: AttemptColumns, n: number, members: string[]): Float64Array {
  const tok = new Float64Array(n), cnt = new Float64Array(n);
  let total = 0;
  for (let i = 0; i < cols.req.length; i++) {
    if (!members.includes(cols.route[i]!)) continue;
    tok[cols.req[i]!]! += cols.input[i]! + cols.output[i]!;
    cnt[cols.req[i]!]! += 1;
    total += cols.input[i]! + cols.output[i]!;
  }
  return total > 0 ? tok : cnt;
}
