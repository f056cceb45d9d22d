/**
 * The chat app's retrieval step: a keyword search over a few help-desk passages held in memory. A real app asks a
 * search service or a vector store here; the example waits `delayMs` to stand for that call, so the step has the
 * length a real one would and shows in the recorded tools table.
 *
 * @module
 */

/** The help desk's passages (fictional shop). */
export const PASSAGES: readonly string[] = [
  "Orders ship within two working days from our warehouse; express orders leave the same day when placed before noon.",
  "Standard delivery takes three to five working days; express delivery takes one to two working days.",
  "You can return any item within 30 days of delivery for a full refund, as long as it is unused and in its box.",
  "Refunds reach the original payment method five to ten working days after the returned item arrives.",
  "Every device carries a two-year warranty covering manufacturing defects; accidental damage is not covered.",
  "Our support team answers chat and email from 8:00 to 20:00, Monday to Saturday.",
  "To change the delivery address of an order, contact support before the order ships.",
  "Gift cards are valid for three years and can be used for any item in the shop.",
  "Order status can be looked up by order number: it shows whether the order is packed, shipped or delivered.",
  "Payments are accepted by card, bank transfer and invoice for business customers.",
];

/** The stand-in for a search service's round trip, ms: the app's default. */
export const RETRIEVAL_MS = 25;

const words = (text: string) => new Set(text.toLowerCase().match(/[a-z]{3,}/g) ?? []);

/** The `k` passages sharing the most words (of three letters or more) with the question, best first. */
export function search(question: string, k = 2): string[] {
  const q = words(question);
  return PASSAGES
    .map((p, i) => ({ p, i, score: [...words(p)].filter((w) => q.has(w)).length }))
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .slice(0, k)
    .map((x) => x.p);
}

/** {@linkcode search}, after `delayMs` standing for a real search service's round trip. */
export async function retrieve(question: string, delayMs: number): Promise<string[]> {
  if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
  return search(question);
}
