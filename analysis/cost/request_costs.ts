/**
 * The cost ledger of a run split into what scales with the requests and what
 * is fixed over the window, each request carrying its own variable cost: the
 * attribution a resampling of the requests re-sums (analysis/compare/decision.ts).
 *
 * @module
 */
import type { OverheadSheet, PriceSheet } from "../../schema/prices.ts";
import type { SloPolicy } from "../../schema/slo.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import { type LedgerResult, pricedLedger } from "./ledger.ts";
import { LEDGER_ITEMS, type LedgerItem } from "./price_lines.ts";

/** One ledger item split in two: the amounts charged to single requests, and the spread (fixed) lines. */
export interface ItemSplit {
  item: LedgerItem;
  /** Σ over the window's requests of the amounts charged to each alone. */
  variable: number;
  /** The spread lines' amount: allocated over the requests or left unallocated. */
  fixed: number;
}

/** The result of {@linkcode requestCosts}. */
export interface RequestCosts {
  currency: string;
  /** The ledger the attribution was read from (as {@linkcode ledger} returns it). */
  ledger: LedgerResult;
  /** The window's requests, in the ledger's order. */
  request_id: string[];
  stage: string[];
  scheduled_ms: Float64Array;
  accepted: boolean[];
  /** Each request's variable cost: every ledger amount charged to it alone, all items together. */
  variable: Float64Array;
  /** The fixed cost of the window: every spread line's amount, all items together. */
  fixed: number;
  by_item: ItemSplit[];
  /** In words: what counts as variable and as fixed. */
  rule: string;
}

/** What {@linkcode requestCosts} says it split, for every disclosure that uses it. */
export const REQUEST_COST_RULE =
  "variable cost = the ledger amounts charged to one request (provider tokens and fees of each attempt, retries, " +
  "tool and retrieval calls, storage and tracing of a sent request, human review of an accepted or completed task); " +
  "fixed cost = the ledger lines spread over the window (GPU time, spare replicas and operations of a self-hosted " +
  "route, shared operations per hour); variable + fixed = the ledger's total";

/**
 * The ledger of `run` ({@linkcode ledger}, the same arguments) with each
 * request's variable cost and the window's fixed cost. An amount the ledger
 * charged to one request (`LineBook.add`) is that request's variable cost; a
 * line spread over requests (`LineBook.addSpread`: GPU-hours, spare replicas,
 * operations) is fixed, whatever share of it each request carries in the
 * ledger's by-class and by-route tables. Σ variable + fixed is the ledger's
 * total, per item and overall (to floating-point rounding).
 *
 * @example Hosted run with overheads: every cost is variable except shared operations
 * ```ts ignore
 * const c = requestCosts(run, policy, prices, { overheads });
 * const sum = c.variable.reduce((a, b) => a + b, 0) + c.fixed;
 * assert.ok(Math.abs(sum - c.ledger.overall.total) < 1e-9);
 * ```
 */
export function requestCosts(
  run: LoadedRun,
  policy: SloPolicy,
  prices: PriceSheet,
  options: { overheads?: OverheadSheet | null; measured?: SloPolicy["window"] } = {},
): RequestCosts {
  const priced = pricedLedger(run, policy, prices, options);
  const { book, requests } = priced;
  const n = requests.height;
  const variable = new Float64Array(n);
  const by_item: ItemSplit[] = LEDGER_ITEMS.map((item) => {
    const charged = book.charged[item];
    let sum = 0;
    for (let i = 0; i < n; i++) {
      variable[i]! += charged[i]!;
      sum += charged[i]!;
    }
    return { item, variable: sum, fixed: book.spread[item] };
  });
  return {
    currency: priced.ledger.currency,
    ledger: priced.ledger,
    request_id: requests.getColumn("request_id").toArray() as string[],
    stage: requests.getColumn("stage").toArray() as string[],
    scheduled_ms: Float64Array.from(requests.getColumn("scheduled_ms").toArray() as number[]),
    accepted: requests.getColumn("accepted").toArray() as boolean[],
    variable,
    fixed: by_item.reduce((s, x) => s + x.fixed, 0),
    by_item,
    rule: REQUEST_COST_RULE,
  };
}
