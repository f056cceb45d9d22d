/**
 * Counts o200k_base tokens in a worker: building the encoder takes over a
 * second of CPU, and counting must never stall the dispatch loop. The worker
 * starts on first use only, so runs whose target reports usage never pay.
 * Texts over the bound of runner/token_caps.ts are not counted (null), so a
 * pathological text can never stall a request.
 */
let worker: Worker | null = null;
let next = 0;
const waiting = new Map<number, (n: number | null) => void>();

/** The token count of `text`, or null when it is over the tokenizer bound (runner/token_caps.ts) or the tokenizer failed. */
export function countTokens(text: string): Promise<number | null> {
  if (!worker) {
    const w = new Worker(new URL("./tokens_worker.ts", import.meta.url), { type: "module" });
    w.onmessage = (e: MessageEvent<{ id: number; n: number | null }>) => {
      waiting.get(e.data.id)?.(e.data.n);
      waiting.delete(e.data.id);
    };
    // A worker that dies answers nothing more: every pending count ends uncounted, the next starts a new worker.
    w.onerror = (e: ErrorEvent) => {
      e.preventDefault();
      w.terminate();
      if (worker === w) worker = null;
      for (const resolve of waiting.values()) resolve(null);
      waiting.clear();
    };
    worker = w;
  }
  const id = next++;
  return new Promise((resolve) => {
    waiting.set(id, resolve);
    worker!.postMessage({ id, text });
  });
}

/** Ends the worker (at the end of a run); a later count starts a new one. */
export function stopTokenCounter(): void {
  worker?.terminate();
  worker = null;
  for (const resolve of waiting.values()) resolve(null);
  waiting.clear();
}
