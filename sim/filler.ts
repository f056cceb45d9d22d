import type { SimTokenizer } from "./tokenizer.ts";

/** Neutral sentences: they add length without changing what an answer says. */
const SENTENCES = [
  "This answer is based only on the information provided.",
  "No further details were needed to reach it.",
  "The remaining points follow from the same reasoning.",
  "Nothing else in the request changes this conclusion.",
  "Please ask if any part should be explained in more detail.",
  "The summary above keeps to the facts that were given.",
  "Other readings of the request lead to the same result.",
  "Each step was checked against the stated context.",
];

/** `n` neutral sentences joined by spaces, starting at sentence `start`. */
function sentences(n: number, start: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(SENTENCES[(start + i) % SENTENCES.length]!);
  return out.join(" ");
}

/**
 * Token pieces of `text` padded with neutral sentences to exactly
 * `targetTokens` tokens (a text already that long is left whole).
 *
 * @example Padding reaches the target length
 * ```ts
 * import { padPieces } from "./filler.ts";
 * import { simTokenizer } from "./tokenizer.ts";
 * import assert from "node:assert/strict";
 * const p = padPieces("The answer is 42.", 40, simTokenizer());
 * assert.equal(p.length, 40);
 * assert.ok(p.join("").startsWith("The answer is 42. "));
 * ```
 */
export function padPieces(text: string, targetTokens: number, tok: SimTokenizer): string[] {
  const own = tok.pieces(text);
  if (own.length >= targetTokens) return own;
  // About ten tokens per sentence; add more only if a guess falls short.
  let n = Math.ceil((targetTokens - own.length) / 8) + 1;
  for (;;) {
    const sep = text.length === 0 || /\s$/.test(text) ? "" : " ";
    const all = tok.pieces(text + sep + sentences(n, text.length));
    if (all.length >= targetTokens) return all.slice(0, targetTokens);
    n *= 2;
  }
}

/**
 * Pieces of a neutral filler text of exactly `tokens` tokens (the answer to
 * a prompt the simulator does not know).
 */
export function fillerPieces(tokens: number, tok: SimTokenizer): string[] {
  return padPieces("", tokens, tok);
}
