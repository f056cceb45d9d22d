/**
 * Counts the tokens of request prompts without blocking the simulator's event loop. js-tiktoken's byte-pair encoding
 * takes time that grows with the square of a pre-token piece (a 6 KB prompt of one repeated character once held the
 * event loop, and `/health` with it, for 7.9 s), so:
 *
 * - a prompt of at most {@linkcode INLINE_CHARS} characters whose BPE work (schema/tokenizer_bound.ts) is at most
 *   {@linkcode INLINE_WORK} is counted at once, on the event loop (about a millisecond at worst);
 * - any other prompt is counted in a worker (sim/tokenizer_worker.ts), one prompt after another, while the event loop
 *   answers other requests;
 * - a prompt over the tokenizer bound — more than 1,048,576 characters or BPE work above 2,048², summed over its
 *   messages — is not counted: the request is refused (HTTP 400 `prompt_too_complex`, sim/chat_handler.ts).
 *
 * @module
 */
import { bpeWork, MAX_TOKENIZED_CHARS, MAX_TOKENIZER_WORK } from "../schema/tokenizer_bound.ts";
import type { SimTokenizer } from "./tokenizer.ts";

/** Most characters of a prompt counted on the event loop. */
export const INLINE_CHARS = 4_096;
/** Most BPE work of a prompt counted on the event loop: one piece of 64 bytes (about 1 ms measured). */
export const INLINE_WORK = 64 * 64;

/** The `failed` reason of prompts still being counted when the simulator stops. */
export const PROMPT_COUNT_STOPPED = "simulator stopped";

/** The outcome of counting one prompt. */
export type PromptCount =
  /** The token count of each text. */
  | { tokens: number[] }
  /** Over the tokenizer bound (the reason): the request is refused with a 400. */
  | { refused: string }
  /** The tokenizer failed or the simulator stopped. */
  | { failed: string };

/**
 * Why `texts` (one prompt's messages) are over the tokenizer bound, or null: the bound of
 * schema/tokenizer_bound.ts applied to the prompt as a whole (characters and BPE work summed over its texts).
 *
 * @example A 6,000-character run of `x` is refused; a short question is not
 * ```ts
 * import { promptRefusal } from "./prompt_counter.ts";
 * import assert from "node:assert/strict";
 * const words = /\s*\S+/gu.source;
 * assert.equal(promptRefusal(["x".repeat(6_000)], words), "BPE work 36000000 > 4194304");
 * assert.equal(promptRefusal(["a short", "question"], words), null);
 * ```
 */
export function promptRefusal(texts: readonly string[], pattern: string): string | null {
  const chars = texts.reduce((n, t) => n + t.length, 0);
  if (chars > MAX_TOKENIZED_CHARS) return `${chars} chars > ${MAX_TOKENIZED_CHARS}`;
  let work = 0;
  for (const t of texts) work += bpeWork(t, pattern);
  return work > MAX_TOKENIZER_WORK ? `BPE work ${work} > ${MAX_TOKENIZER_WORK}` : null;
}

/** Whether `texts` are small enough to count on the event loop. */
function inline(texts: readonly string[], pattern: string): boolean {
  if (texts.reduce((n, t) => n + t.length, 0) > INLINE_CHARS) return false;
  let work = 0;
  for (const t of texts) {
    work += bpeWork(t, pattern, INLINE_WORK);
    if (work > INLINE_WORK) return false;
  }
  return true;
}

/**
 * One simulator's prompt counter. The worker starts on the first prompt too large to count inline (loading the
 * encoding takes about a second there) and ends with {@linkcode PromptCounter.stop}.
 */
export class PromptCounter {
  readonly #tok: SimTokenizer;
  #worker: Worker | null = null;
  #next = 0;
  readonly #waiting = new Map<number, (r: PromptCount) => void>();

  constructor(tok: SimTokenizer) {
    this.#tok = tok;
  }

  /** Prompts being counted in the worker now (`/health` `tokenizing`). */
  get pending(): number {
    return this.#waiting.size;
  }

  /** Counts the tokens of each of `texts` (one prompt), inline or in the worker (see the module doc). */
  count(texts: readonly string[]): Promise<PromptCount> {
    if (inline(texts, this.#tok.pattern)) {
      try {
        return Promise.resolve({ tokens: texts.map((t) => this.#tok.count(t)) });
      } catch (err) {
        return Promise.resolve({ failed: `tokenizer failed: ${err instanceof Error ? err.message : String(err)}` });
      }
    }
    const worker = this.#worker ??= this.#start();
    const id = this.#next++;
    return new Promise((resolve) => {
      this.#waiting.set(id, resolve);
      worker.postMessage({ id, texts });
    });
  }

  /** Ends the worker; prompts still being counted end as failed ("simulator stopped"). */
  stop(): void {
    this.#worker?.terminate();
    this.#worker = null;
    this.#failAll(PROMPT_COUNT_STOPPED);
  }

  #start(): Worker {
    const w = new Worker(new URL("./tokenizer_worker.ts", import.meta.url), { type: "module" });
    w.onmessage = (e: MessageEvent<{ id: number } & PromptCount>) => {
      const { id, ...result } = e.data;
      this.#waiting.get(id)?.(result as PromptCount);
      this.#waiting.delete(id);
    };
    // A worker that dies answers nothing more: every pending count fails, the next prompt starts a new worker.
    w.onerror = (e: ErrorEvent) => {
      e.preventDefault();
      w.terminate();
      if (this.#worker === w) this.#worker = null;
      this.#failAll(`tokenizer failed: ${e.message}`);
    };
    return w;
  }

  #failAll(why: string): void {
    for (const resolve of this.#waiting.values()) resolve({ failed: why });
    this.#waiting.clear();
  }
}
