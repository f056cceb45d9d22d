/**
 * The bound on the text the tokenizer counts. Byte-pair encoding of one pre-token piece takes time
 * that grows with the square of the piece's length (measured with js-tiktoken o200k_base: 1,000
 * characters of `x` 0.4 s, 2,048 2.1 s; 16,000 was reported at 259 s), so a target that sends one long run of a
 * character and no usage could stall a request, and with it the run's end, for minutes.
 *
 * A text is counted only when it has at most `MAX_TOKENIZED_CHARS` characters (UTF-16 code units)
 * and its BPE work, the sum over its o200k pre-token pieces of (piece length in UTF-8 bytes)², is
 * at most `MAX_TOKENIZER_WORK` (one piece of 2,048 bytes: about 2 s, the worst case). Ordinary
 * text (pieces of a few bytes; markdown with tables measures 17 per character) passes both up to
 * some 250,000 characters and more, beyond any output cap; the check itself is one linear pass.
 *
 * The runner applies this bound to the texts it counts (runner/token_caps.ts); the simulator to each request's
 * prompt (sim/prompt_counter.ts).
 *
 * @module
 */

/** Most characters of one counted text. @default 1048576 */
export const MAX_TOKENIZED_CHARS = 1_048_576;
/** Most BPE work of one counted text: Σ (pre-token piece length)², i.e. one piece of 2,048 characters. */
export const MAX_TOKENIZER_WORK = 2_048 * 2_048;

/**
 * Why `text` is over the bound (a short phrase), or null when the tokenizer may count it.
 * `pattern` is the encoding's pre-token regular expression (its `pat_str`).
 *
 * @example A 16,000-character run of one character is refused; prose is not
 * ```ts
 * import { tokenizerRefusal } from "./tokenizer_bound.ts";
 * import assert from "node:assert/strict";
 * const words = /\s*\S+/gu.source;
 * assert.equal(tokenizerRefusal("x".repeat(16_000), words), "BPE work 256000000 > 4194304");
 * assert.equal(tokenizerRefusal("a few short words", words), null);
 * ```
 */
export function tokenizerRefusal(text: string, pattern: string): string | null {
  if (text.length > MAX_TOKENIZED_CHARS) return `${text.length} chars > ${MAX_TOKENIZED_CHARS}`;
  const work = bpeWork(text, pattern, MAX_TOKENIZER_WORK);
  if (work <= MAX_TOKENIZER_WORK) return null;
  // Finish the sum for the message only when it is cheap: the rest is one more linear pass.
  return `BPE work ${bpeWork(text, pattern)} > ${MAX_TOKENIZER_WORK}`;
}

/**
 * The BPE work of `text`: the sum over its pre-token pieces (matches of `pattern`, the encoding's `pat_str`) of
 * (piece length in UTF-8 bytes)². One linear pass; it stops as soon as the sum passes `stopAbove` (and returns the sum
 * so far, which is then above it).
 *
 * @example A run of 100 `x` is one piece of 100 bytes; three words are three small pieces
 * ```ts
 * import { bpeWork } from "./tokenizer_bound.ts";
 * import assert from "node:assert/strict";
 * const words = /\s*\S+/gu.source;
 * assert.equal(bpeWork("x".repeat(100), words), 100 * 100);
 * assert.equal(bpeWork("one two three", words), 3 * 3 + 4 * 4 + 6 * 6); // "one", " two", " three"
 * ```
 */
export function bpeWork(text: string, pattern: string, stopAbove = Infinity): number {
  const re = new RegExp(pattern, "gu");
  let work = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const n = utf8Length(m[0]);
    if (n === 0) {
      re.lastIndex++;
      continue;
    }
    work += n * n;
    if (work > stopAbove) return work;
  }
  return work;
}

/** UTF-8 length of `s` (a lone surrogate counts 3, as TextEncoder writes U+FFFD). */
function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) n += 4, i++;
    else n += 3;
  }
  return n;
}
