import { LEDGER_ITEMS, type LedgerItem, type LineBook } from "./price_lines.ts";

/** Costs and counts of one row of a ledger table. */
export interface CostRow {
  offered: number;
  sent: number;
  completed: number;
  accepted: number;
  cost: Record<LedgerItem, number>;
  total: number;
  /** total / accepted (null when nothing was accepted). */
  cost_per_accepted_task: number | null;
  /** total / offered (null when nothing was offered). */
  cost_per_offered_request: number | null;
}

/** The window's requests (by index): their state, class and route. */
export interface RequestKeys {
  sent: boolean[];
  completed: boolean[];
  accepted: boolean[];
  class: string[];
  route: string[];
}

/** The label of costs no request could carry. */
export const UNALLOCATED = "(unallocated)";

function emptyRow(): CostRow {
  return {
    offered: 0,
    sent: 0,
    completed: 0,
    accepted: 0,
    cost: Object.fromEntries(LEDGER_ITEMS.map((i) => [i, 0])) as Record<LedgerItem, number>,
    total: 0,
    cost_per_accepted_task: null,
    cost_per_offered_request: null,
  };
}

function finish(r: CostRow): CostRow {
  r.total = LEDGER_ITEMS.reduce((s, i) => s + r.cost[i], 0);
  r.cost_per_accepted_task = r.accepted ? r.total / r.accepted : null;
  r.cost_per_offered_request = r.offered ? r.total / r.offered : null;
  return r;
}

/**
 * Sums each request's costs overall, by route and by class. Costs no
 * request carries are in the overall row and in an `(unallocated)` row of
 * each table, so every table sums to the overall total.
 */
export function rollUpCosts(book: LineBook, keys: RequestKeys): {
  overall: CostRow;
  by_route: (CostRow & { route: string })[];
  by_class: (CostRow & { class: string })[];
} {
  const overall = emptyRow();
  const routes = new Map<string, CostRow>(), classes = new Map<string, CostRow>();
  const get = (m: Map<string, CostRow>, k: string) => m.get(k) ?? m.set(k, emptyRow()).get(k)!;
  for (let i = 0; i < keys.sent.length; i++) {
    for (const row of [overall, get(routes, keys.route[i]!), get(classes, keys.class[i]!)]) {
      row.offered++;
      if (keys.sent[i]) row.sent++;
      if (keys.completed[i]) row.completed++;
      if (keys.accepted[i]) row.accepted++;
      for (const item of LEDGER_ITEMS) row.cost[item] += book.perRequest[item][i]!;
    }
  }
  if (LEDGER_ITEMS.some((i) => book.unallocated[i] !== 0)) {
    for (const row of [overall, get(routes, UNALLOCATED), get(classes, UNALLOCATED)]) {
      for (const item of LEDGER_ITEMS) row.cost[item] += book.unallocated[item];
    }
  }
  const sorted = (m: Map<string, CostRow>) => [...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    overall: finish(overall),
    by_route: sorted(routes).map(([route, r]) => ({ route, ...finish(r) })),
    by_class: sorted(classes).map(([cls, r]) => ({ class: cls, ...finish(r) })),
  };
}
