const watchers = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Calls `fn` once when `signal` aborts; returns the function that stops watching.
 *
 * Many in-flight requests often share one signal (a run's stop). `removeEventListener` scans
 * the signal's listener list, so one listener per request made each removal O(in-flight) and
 * the client collapsed under overload; here each signal gets one listener and requests sit in
 * a Set (O(1) add and delete).
 */
export function watchAbort(signal: AbortSignal, fn: () => void): () => void {
  let set = watchers.get(signal);
  if (!set) {
    const fresh = new Set<() => void>();
    set = fresh;
    watchers.set(signal, fresh);
    signal.addEventListener("abort", () => {
      for (const f of [...fresh]) f();
      fresh.clear();
    }, { once: true });
  }
  const s = set;
  s.add(fn);
  return () => void s.delete(fn);
}
