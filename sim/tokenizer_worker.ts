/// <reference lib="deno.worker" />
/**
 * The simulator's prompt counter off the event loop (sim/prompt_counter.ts): answers each `{id, texts}` with the
 * token count of every text, or with why the texts are over the tokenizer bound (schema/tokenizer_bound.ts).
 *
 * @module
 */
import { getEncoding } from "js-tiktoken";
import { promptRefusal } from "./prompt_counter.ts";
import { encodingPattern } from "./tokenizer.ts";

const enc = getEncoding("o200k_base");
const pattern = encodingPattern(enc);

self.onmessage = (e: MessageEvent<{ id: number; texts: string[] }>) => {
  const { id, texts } = e.data;
  const refused = promptRefusal(texts, pattern);
  if (refused !== null) return self.postMessage({ id, refused });
  try {
    // Special-token text such as "<|endoftext|>" is counted as ordinary text, never thrown on.
    self.postMessage({ id, tokens: texts.map((t) => enc.encode(t, [], []).length) });
  } catch (err) {
    self.postMessage({ id, failed: `tokenizer failed: ${err instanceof Error ? err.message : String(err)}` });
  }
};
