/** The cost items of the design's formula, in its order. */
export const LEDGER_ITEMS = [
  "provider_or_gpu",
  "retries",
  "retrieval",
  "tools",
  "storage",
  "observability",
  "judge",
  "human_review",
  "allocated_operations",
] as const;
export type LedgerItem = typeof LEDGER_ITEMS[number];

/** One line of a ledger: quantity × unit price = amount, with where the price comes from. */
export interface LedgerLine {
  item: LedgerItem;
  /** The route the price belongs to (null for overheads every route pays). */
  route: string | null;
  detail: string;
  quantity: number;
  unit: string;
  unit_price: number;
  amount: number;
  source: string;
}

type LineKey = Omit<LedgerLine, "quantity" | "amount">;

/**
 * Accumulates ledger lines and, beside them, each request's share of every
 * item, so totals by class and route are sums over requests. Costs that no
 * request can carry (fixed costs of a route nobody used) stay unallocated,
 * never dropped.
 */
export class LineBook {
  readonly #lines = new Map<string, LedgerLine>();
  /** Each request's amount of each item, by request index. */
  readonly perRequest: Record<LedgerItem, Float64Array>;
  /**
   * Each request's amount of each item charged to it alone ({@linkcode LineBook.add}): what scales with the
   * requests. `perRequest` minus this is the request's share of the spread lines.
   */
  readonly charged: Record<LedgerItem, Float64Array>;
  /** The amount of each item's spread lines ({@linkcode LineBook.addSpread}), allocated or not: fixed over the window. */
  readonly spread: Record<LedgerItem, number>;
  readonly unallocated: Record<LedgerItem, number>;

  constructor(requests: number) {
    const arrays = () =>
      Object.fromEntries(LEDGER_ITEMS.map((i) => [i, new Float64Array(requests)])) as Record<LedgerItem, Float64Array>;
    const zeros = () => Object.fromEntries(LEDGER_ITEMS.map((i) => [i, 0])) as Record<LedgerItem, number>;
    this.perRequest = arrays();
    this.charged = arrays();
    this.spread = zeros();
    this.unallocated = zeros();
  }

  /** Adds `quantity` at the line's unit price, charged to one request. */
  add(key: LineKey, quantity: number, request: number): void {
    const amount = this.#line(key, quantity);
    this.perRequest[key.item][request]! += amount;
    this.charged[key.item][request]! += amount;
  }

  /** Adds `quantity` at the line's unit price, spread over requests in proportion to `weights`. */
  addSpread(key: LineKey, quantity: number, weights: Float64Array): void {
    const amount = this.#line(key, quantity);
    this.spread[key.item] += amount;
    let sum = 0;
    for (const w of weights) sum += w;
    if (sum <= 0) {
      this.unallocated[key.item] += amount;
      return;
    }
    const out = this.perRequest[key.item];
    for (let i = 0; i < weights.length; i++) if (weights[i]! > 0) out[i]! += amount * weights[i]! / sum;
  }

  /** The lines in the order they were first added. */
  lines(): LedgerLine[] {
    return [...this.#lines.values()].map((l) => ({ ...l }));
  }

  #line(key: LineKey, quantity: number): number {
    const k = JSON.stringify([key.item, key.route, key.detail, key.unit, key.unit_price, key.source]);
    const line = this.#lines.get(k) ?? { ...key, quantity: 0, amount: 0 };
    const amount = quantity * key.unit_price;
    line.quantity += quantity;
    line.amount += amount;
    this.#lines.set(k, line);
    return amount;
  }
}
