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
/** Index of the count of the thread's wake-ups so far: bumped and notified on each (the main thread waits on it). */
export const CTL_FIRED = 2;
/** Index of the arming number the thread's last wake-up was for (stored before {@linkcode CTL_FIRED} is bumped). */
export const CTL_FIRED_SEQ = 3;
/** How many control words there are. */
export const CTL_WORDS = 4;
