import { getEncoding, type Tiktoken } from "js-tiktoken";

/** The simulator's o200k_base tokenizer. */
export interface SimTokenizer {
  /** Token ids of `text`; special-token text is encoded as plain text. */
  encode(text: string): number[];
  /** Number of tokens of `text`. */
  count(text: string): number;
  /**
   * The text of each token of `text`, in order, so that streaming one piece
   * per token reproduces `text`. A character split across tokens is emitted
   * whole with its last token; the earlier tokens get "".
   */
  pieces(text: string): string[];
  /** The text of the first `n` tokens of `text` (the same pieces, joined). */
  decodePrefix(text: string, n: number): string;
  /** The encoding's pre-token regular expression (its `pat_str`), for the BPE-work bound (schema/tokenizer_bound.ts). */
  readonly pattern: string;
}

/** A piece this long without completing a character means the text itself holds U+FFFD. */
const MAX_GROUP = 4;

let shared: SimTokenizer | undefined;

/**
 * The process-wide o200k_base tokenizer (loading the ranks takes about a
 * second, so it is built once and shared).
 *
 * @example Pieces rebuild the text and count real tokens
 * ```ts
 * import { simTokenizer } from "./tokenizer.ts";
 * import assert from "node:assert/strict";
 * const tok = simTokenizer();
 * const p = tok.pieces("Hello, world");
 * assert.equal(p.join(""), "Hello, world");
 * assert.equal(p.length, tok.count("Hello, world"));
 * ```
 */
export function simTokenizer(): SimTokenizer {
  shared ??= build(getEncoding("o200k_base"));
  return shared;
}

/** The pre-token pattern of a js-tiktoken encoding (kept as `patStr`). */
export function encodingPattern(enc: Tiktoken): string {
  const pattern = (enc as unknown as { patStr?: unknown }).patStr;
  if (typeof pattern !== "string") throw new TypeError("js-tiktoken: the encoding has no patStr (version changed?)");
  return pattern;
}

function build(enc: Tiktoken): SimTokenizer {
  const encode = (text: string) => enc.encode(text, [], []);
  const pieces = (text: string): string[] => {
    const out: string[] = [];
    let group: number[] = [];
    for (const t of encode(text)) {
      group.push(t);
      const s = enc.decode(group);
      if (s.endsWith("\uFFFD") && group.length < MAX_GROUP) {
        out.push("");
        continue;
      }
      out.push(s);
      group = [];
    }
    if (group.length) out[out.length - 1] = enc.decode(group);
    return out;
  };
  return {
    encode,
    count: (text) => encode(text).length,
    pieces,
    decodePrefix: (text, n) => pieces(text).slice(0, n).join(""),
    pattern: encodingPattern(enc),
  };
}
