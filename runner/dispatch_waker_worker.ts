/// <reference lib="deno.worker" />
/**
 * The dispatcher's waker thread (runner/dispatch_timers.ts): sleeps in `Atomics.wait` until the time
 * the main thread armed, then stores the arming's number and bumps and notifies a shared count, which the main thread
 * waits on with `Atomics.waitAsync`. Its event loop wakes 0.1–0.5 ms late at the median, where a timer wakes 1.2–2.2
 * ms late (bench/README.md). A notified wait costs both threads less than a message did (no message event on the main
 * thread, no serialising on this one).
 *
 * Shared words (runner/dispatch_waker_words.ts): `ctl[CTL_SEQ]` the arming number (bumped on every arm and cancel,
 * then notified), `ctl[CTL_STOP]` 1 = stop, `ctl[CTL_FIRED]` the wake-ups so far, `ctl[CTL_FIRED_SEQ]` the arming the
 * last one was for; `delay[0]` the delay in ms from when the arming is read (NaN: disarmed). One message says the
 * thread is ready.
 *
 * @module
 */
import { CTL_FIRED, CTL_FIRED_SEQ, CTL_SEQ, CTL_STOP } from "./dispatch_waker_words.ts";

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
    Atomics.store(ctl, CTL_FIRED_SEQ, seq);
    Atomics.add(ctl, CTL_FIRED, 1);
    Atomics.notify(ctl, CTL_FIRED);
    // Sleeps until the next arming (or stop).
    Atomics.wait(ctl, CTL_SEQ, seq);
  }
  self.close();
};
