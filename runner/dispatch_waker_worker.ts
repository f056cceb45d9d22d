/// <reference lib="deno.worker" />
/**
 * The dispatcher's waker thread (runner/dispatch_timers.ts): sleeps in `Atomics.wait` until the time
 * the main thread armed, then posts the arming's number. The main thread's event loop wakes on the
 * message 0.1–0.5 ms late at the median, where a timer wakes 1.2–2.2 ms late (bench/README.md).
 *
 * Shared words: `ctl[0]` the arming number (bumped on every arm and cancel, then notified),
 * `ctl[1]` 1 = stop; `delay[0]` the delay in ms from when the arming is read (NaN: disarmed).
 *
 * @module
 */
import { CTL_SEQ, CTL_STOP } from "./dispatch_waker_words.ts";

self.onmessage = (e: MessageEvent<{ ctl: SharedArrayBuffer; delay: SharedArrayBuffer }>) => {
  const ctl = new Int32Array(e.data.ctl);
  const delay = new Float64Array(e.data.delay);
  self.postMessage(-1); // ready
  for (;;) {
    const seq = Atomics.load(ctl, CTL_SEQ);
    if (Atomics.load(ctl, CTL_STOP) === 1) break;
    const ms = delay[0]!;
    if (Number.isNaN(ms)) {
      Atomics.wait(ctl, CTL_SEQ, seq);
      continue;
    }
    // Re-armed or cancelled while asleep: read the new arming.
    if (ms > 0 && Atomics.wait(ctl, CTL_SEQ, seq, ms) !== "timed-out") continue;
    if (Atomics.load(ctl, CTL_SEQ) !== seq) continue;
    self.postMessage(seq);
    // Sleeps until the next arming (or stop).
    Atomics.wait(ctl, CTL_SEQ, seq);
  }
  self.close();
};
