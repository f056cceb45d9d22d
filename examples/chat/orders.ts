/**
 * The chat app's tool: an order-status lookup, called for questions of the class `order` (they name an order
 * number). The table is in memory; a real app calls its order service here, and the example waits `delayMs` to
 * stand for that call.
 *
 * @module
 */

/** The stand-in for the order service's round trip, ms: the app's default. */
export const ORDER_TOOL_MS = 60;

const STATUSES = ["packed", "shipped", "out for delivery", "delivered"] as const;

/** The order number a question names (4 to 8 digits, `#` optional), or null. */
export function orderNumber(question: string): string | null {
  return /#?\b(\d{4,8})\b/.exec(question)?.[1] ?? null;
}

/** The status of an order: a fixed function of its number, so that the same order always has the same status. */
export function orderStatus(order: string): string {
  const n = [...order].reduce((s, c) => s * 31 + c.charCodeAt(0), 7);
  return `order ${order} is ${STATUSES[n % STATUSES.length]}`;
}

/** {@linkcode orderStatus}, after `delayMs` standing for the order service's round trip. */
export async function lookupOrder(order: string, delayMs: number): Promise<string> {
  if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
  return orderStatus(order);
}
