/** Where a signal keeps the functions watching it: a property of the signal itself, so they die with it. */
const WATCHERS = Symbol("watchAbort");

type Watchable = AbortSignal & { [WATCHERS]?: Set<() => void> };

/**
 * Calls `fn` once when `signal` aborts; returns the function that stops watching.
 *
 * Many in-flight requests often share one signal (a run's stop). `removeEventListener` scans
 * the signal's listener list, so one listener per request made each removal O(in-flight) and
 * the client collapsed under overload; here each signal gets one listener and requests sit in
 * a Set (O(1) add and delete).
 */
export function watchAbort(signal: AbortSignal, fn: () => void): () => void {
  const watched = signal as Watchable;
  let set = watched[WATCHERS];
  if (!set) {
    const fresh = new Set<() => void>();
    set = watched[WATCHERS] = fresh;
    // A signal aborts once, so the listener runs at most once without `{ once: true }` (whose options dictionary
    // Deno converts on every call). The set hangs on the signal: each attempt's own signal (runner/attempt.ts) is
    // one more short-lived object, not an entry of a weak map that every young-generation collection must sweep
    // (bench/README.md "Issue 33, eighth pass").
    signal.addEventListener("abort", () => {
      for (const f of [...fresh]) f();
      fresh.clear();
    });
  }
  const s = set;
  s.add(fn);
  return () => void s.delete(fn);
}
