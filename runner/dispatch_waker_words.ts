/**
 * The shared words between the dispatcher's waker thread (runner/dispatch_waker_worker.ts) and the main thread
 * (runner/dispatch_timers.ts `WakerTimers`). A module with no imports of its own, so that the thread loads only
 * this: importing it from dispatch_timers.ts loaded `node:timers`, and with it Node's compatibility layer, into the
 * thread at every run's start.
 *
 * @module
 */

/** Index of the arming number in the waker's control words. */
export const CTL_SEQ = 0;
/** Index of the stop word in the waker's control words. */
export const CTL_STOP = 1;
