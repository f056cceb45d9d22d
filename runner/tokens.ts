/**
 * Counts o200k_base tokens in a worker: building the encoder takes over a
 * second of CPU, and counting must never stall the dispatch loop. The worker
 * starts on first use only, so runs whose target reports usage never pay.
 */
let worker: Worker | null = null;
let next = 0;
const waiting = new Map<number, (n: number) => void>();

export function countTokens(text: string): Promise<number> {
  if (!worker) {
    worker = new Worker(new URL("./tokens_worker.ts", import.meta.url), { type: "module" });
    worker.onmessage = (e: MessageEvent<{ id: number; n: number }>) => {
      waiting.get(e.data.id)?.(e.data.n);
      waiting.delete(e.data.id);
    };
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
  waiting.clear();
}
