/// <reference lib="deno.worker" />
import { getEncoding } from "js-tiktoken";
import { tokenizerRefusal } from "./token_caps.ts";

const enc = getEncoding("o200k_base");
// The encoding's pre-token pattern (js-tiktoken keeps it as `patStr`).
const pattern = (enc as unknown as { patStr?: unknown }).patStr;
if (typeof pattern !== "string") {
  throw new TypeError("js-tiktoken: the o200k_base encoding has no patStr (version changed?)");
}

/** Answers every message: the count, or null with the reason when the text is over the bound (runner/token_caps.ts). */
self.onmessage = (e: MessageEvent<{ id: number; text: string }>) => {
  const { id, text } = e.data;
  const refused = tokenizerRefusal(text, pattern);
  if (refused !== null) return self.postMessage({ id, n: null, refused });
  try {
    // Special-token text such as "<|endoftext|>" from a target is counted as ordinary text, never thrown on.
    self.postMessage({ id, n: enc.encode(text, [], []).length, refused: null });
  } catch (err) {
    self.postMessage({ id, n: null, refused: `tokenizer failed: ${err instanceof Error ? err.message : String(err)}` });
  }
};
