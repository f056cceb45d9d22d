/**
 * How the open-loop dispatcher (runner/dispatch.ts) sleeps and yields: {@linkcode DispatchTimers},
 * with two implementations — {@linkcode timeoutTimers} (`setTimeout`, 1–2 ms late here) and
 * {@linkcode WakerTimers} (a thread that sleeps in `Atomics.wait` and wakes the event loop through
 * `Atomics.waitAsync`, 0.1–0.5 ms late at the median) — and the waiting constants chosen from measurements
 * ({@linkcode DISPATCH_WAIT}).
 * Tests drive the dispatcher with fake timers and a fake clock instead.
 *
 * @module
 */
import { setImmediate } from "node:timers";
import { CTL_FIRED, CTL_FIRED_SEQ, CTL_SEQ, CTL_STOP, CTL_WORDS } from "./dispatch_waker_words.ts";

/** The timers the dispatcher waits on. */
export interface DispatchTimers {
  /** Calls `fn` once, `ms` or more from now (late by the timer's own lateness). Returns a cancel. */
  after(ms: number, fn: () => void): () => void;
  /** Calls `fn` on the next turn of the event loop, after the I/O callbacks ready by then. */
  turn(fn: () => void): void;
}

/**
 * How the dispatcher waits for a due time: a timer asked to fire `leadMs` before it, then, from
 * `spinMaxMs` before it, event-loop turns (each yields to I/O and reads the clock) until it is due.
 * So the loop never polls for longer than `spinMaxMs` per due time; 0 never polls. Right after a wake-up that started
 * requests, with answers being read, a due time within `readsMaxMs` is waited for on the reads instead
 * (runner/dispatch.ts `reads`).
 */
export interface DispatchWait {
  /** How early the timer is asked to fire before the due time (ms). */
  leadMs: number;
  /** The longest stretch before a due time that the loop polls through (ms). */
  spinMaxMs: number;
  /** The longest stretch before a due time that the loop waits on the clients' reads for (ms). @default spinMaxMs */
  readsMaxMs?: number;
  /**
   * The lead and the polling of one due time are at most this share of the time left before it when the loop first
   * looks at it (so polling never takes more than this share of a core). @default Infinity (no bound but the two above)
   */
  spinShare?: number;
}

/**
 * The runner's waiting: the waker thread asked 0.3 ms early (its lateness here: p50 0.1–0.5 ms,
 * `bench/timer_bench.ts`), then at most 0.3 ms of polling, and both at most 5 % of the time between due times; due
 * times up to 0.3 ms after a wake-up that started requests are waited for on the reads. Chosen by the ladders in
 * bench/README.md ("Paying only for work"; "Issue 33, third pass": polling 0.3 ms before each due time took a third of
 * the runner's CPU at 500 requests a second, 2 ms apart).
 */
export const DISPATCH_WAIT: DispatchWait = { leadMs: 0.3, spinMaxMs: 0.3, readsMaxMs: 0.3, spinShare: 0.05 };

/**
 * The dispatcher before it slept: a timer 8 ms before each due time, then event-loop turns — a whole
 * core while arrivals are under ~10 ms apart. Kept for the side-by-side ladder (bench/dispatch_bench.ts).
 */
export const POLLING_WAIT: DispatchWait = { leadMs: 8, spinMaxMs: 8 };

/** `setTimeout` and `setImmediate` (Deno: `setTimeout(d)` fires ~trunc(d) + 1.2 ms after the call here). */
export function timeoutTimers(): DispatchTimers {
  return {
    after(ms, fn) {
      const id = setTimeout(fn, Math.max(0, ms));
      return () => clearTimeout(id);
    },
    turn(fn) {
      setImmediate(fn);
    },
  };
}

/**
 * One-at-a-time timers (a new `after` replaces the last, as the dispatcher's backstop uses them) that keep `base`'s
 * armed timer when the new due time is no earlier than the one it is armed for, instead of clearing it and setting
 * another. When the armed timer fires, the callback wanted then runs if it is due (`now()` at or past its time), and
 * otherwise the timer is armed again for it; a cancelled callback never runs. So a callback never runs before its
 * time, nor later than `base` would have run it, and while reads keep coming (each one moving the backstop a little
 * later) `base` is armed about once per its own lateness instead of once per read: at 5,000 req/s, setting and
 * clearing one `setTimeout` per wake-up took 2.7 % of the main thread's busy time (bench/README.md, "Issue 33, fourth
 * pass"). `now` is the clock the delays are measured on.
 */
export function coalescedTimers(base: DispatchTimers, now: () => number): DispatchTimers {
  /** When the callback wanted is due, and the callback (null when cancelled or run). */
  let wantAt = Infinity;
  let want: (() => void) | null = null;
  /** Calls of `after` so far: a cancel stands only for its own call. */
  let calls = 0;
  /** When `base`'s armed timer was asked to fire (Infinity when none is armed), and its cancel. */
  let armedAt = Infinity;
  let disarm: (() => void) | null = null;
  const arm = (at: number) => {
    armedAt = at;
    disarm = base.after(at - now(), fire);
  };
  const fire = () => {
    armedAt = Infinity;
    disarm = null;
    if (want === null) return;
    if (now() < wantAt) return arm(wantAt);
    const fn = want;
    want = null;
    wantAt = Infinity;
    fn();
  };
  return {
    after(ms, fn) {
      const at = now() + Math.max(0, ms);
      const call = ++calls;
      want = fn;
      wantAt = at;
      if (at < armedAt) {
        disarm?.();
        arm(at);
      }
      return () => {
        if (call !== calls) return;
        want = null;
        wantAt = Infinity;
      };
    },
    turn: (fn) => base.turn(fn),
  };
}

/** How long {@linkcode WakerTimers.start} waits for its thread before giving up. */
const START_TIMEOUT_MS = 30_000;

/**
 * Timers whose `after` is served by one worker thread sleeping in `Atomics.wait` (precise to
 * 0.1–0.5 ms at the median, costs no CPU while it sleeps) that wakes the event loop by notifying a shared word the
 * main thread waits on with `Atomics.waitAsync` (runner/dispatch_waker_worker.ts); `turn` is `setImmediate`. One
 * arming at a time (a new `after` replaces the last). Start it before the run (a worker takes tens of ms to start) and
 * {@linkcode WakerTimers.close} it after.
 */
export class WakerTimers implements DispatchTimers {
  readonly #worker: Worker;
  readonly #ctl = new Int32Array(new SharedArrayBuffer(4 * CTL_WORDS));
  readonly #delay = new Float64Array(new SharedArrayBuffer(8));
  #armed = -2;
  #fn: (() => void) | null = null;
  /** performance.now() at which the armed `fn` is due. */
  #dueAt = 0;
  #closed = false;
  /** The thread failed after it started: `after` falls back to `setTimeout` (a pending arming too). */
  #failed = false;
  /** The thread's wake-ups seen so far (`ctl[CTL_FIRED]` when last read). */
  #firedSeen = 0;

  private constructor(worker: Worker) {
    this.#worker = worker;
    this.#delay[0] = NaN;
  }

  /** Starts the worker and resolves once it is waiting. */
  static start(): Promise<WakerTimers> {
    const worker = new Worker(new URL("./dispatch_waker_worker.ts", import.meta.url), { type: "module" });
    const t = new WakerTimers(worker);
    let ready = false;
    return new Promise((resolve, reject) => {
      // A thread that never says it is ready must not hold the run before ms 0.
      const late = setTimeout(() => {
        worker.terminate();
        reject(new Error(`the dispatcher's waker thread did not start within ${START_TIMEOUT_MS} ms`));
      }, START_TIMEOUT_MS);
      worker.onerror = (e: ErrorEvent) => {
        e.preventDefault();
        worker.terminate();
        if (!ready) {
          clearTimeout(late);
          return reject(new Error(`the dispatcher's waker thread failed: ${e.message}`));
        }
        // Never a dispatcher left asleep: what was armed fires on a timer, and so does everything after.
        console.error(`warning: the dispatcher's waker thread failed (${e.message}); it sleeps on setTimeout now`);
        t.#failed = true;
        const fn = t.#fn;
        t.#fn = null;
        if (fn) setTimeout(fn, Math.max(0, t.#dueAt - performance.now()));
      };
      worker.onmessage = (e: MessageEvent<number>) => {
        if (e.data !== -1 || ready) return;
        ready = true;
        clearTimeout(late);
        t.#listen();
        resolve(t);
      };
      worker.postMessage({ ctl: t.#ctl.buffer, delay: t.#delay.buffer });
    });
  }

  /** Waits for the thread's next wake-up (a count past {@linkcode #firedSeen}). */
  #listen(): void {
    const w = Atomics.waitAsync(this.#ctl, CTL_FIRED, this.#firedSeen);
    if (w.async) w.value.then(this.#onFired);
    else queueMicrotask(this.#onFired);
  }

  /** The thread woke: runs the armed `fn` when the wake-up was for the current arming, not a cancelled or older one. */
  readonly #onFired = (): void => {
    if (this.#closed || this.#failed) return;
    this.#firedSeen = Atomics.load(this.#ctl, CTL_FIRED);
    // Read after the count: the thread stores it before bumping the count, so it is this wake-up's or a later one's.
    const seq = Atomics.load(this.#ctl, CTL_FIRED_SEQ);
    this.#listen();
    if (seq !== this.#armed || this.#fn === null) return;
    const fn = this.#fn;
    this.#fn = null;
    fn();
  };

  after(ms: number, fn: () => void): () => void {
    if (this.#closed) throw new Error("the dispatcher's waker is closed");
    if (this.#failed) {
      const id = setTimeout(fn, Math.max(0, ms));
      return () => clearTimeout(id);
    }
    this.#fn = fn;
    this.#dueAt = performance.now() + Math.max(0, ms);
    this.#delay[0] = Math.max(0, ms);
    // The store above is published by this atomic bump, which the worker reads before the delay.
    this.#armed = Atomics.add(this.#ctl, CTL_SEQ, 1) + 1;
    Atomics.notify(this.#ctl, CTL_SEQ);
    const armed = this.#armed;
    return () => {
      if (this.#armed !== armed || this.#fn === null) return;
      this.#fn = null;
      this.#delay[0] = NaN;
      Atomics.add(this.#ctl, CTL_SEQ, 1);
      Atomics.notify(this.#ctl, CTL_SEQ);
    };
  }

  turn(fn: () => void): void {
    setImmediate(fn);
  }

  /** Stops the thread; a pending `after` never fires. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#fn = null;
    Atomics.store(this.#ctl, CTL_STOP, 1);
    Atomics.add(this.#ctl, CTL_SEQ, 1);
    Atomics.notify(this.#ctl, CTL_SEQ);
    // Lets go of the main thread's own wait (it ends at once: closed).
    Atomics.notify(this.#ctl, CTL_FIRED);
    this.#worker.terminate();
  }
}
