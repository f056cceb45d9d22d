// @ts-check
/**
 * The recorder's page side: a plain ES module (no imports, no build step) that times one user action on the page —
 * from the click or submit event to the first paint of the answer's last DOM update — and posts it to the service,
 * which joins it to its own record of the same request (recorder/http.ts, `POST {endpoint}/page`).
 *
 * ```js ignore
 * import { pageRecorder } from "/recorder/browser.js";
 * const rec = pageRecorder({ endpoint: "/_goodput" });
 * form.addEventListener("submit", async (event) => {
 *   event.preventDefault();
 *   const task = rec.begin(event);
 *   task.sent();
 *   const res = await fetch("/api/chat", { method: "POST", headers: task.headers(), body });
 *   task.firstByte();
 *   // … put each streamed token in the DOM; right after the first one: task.firstToken();
 *   task.lastByte();
 *   // … the final DOM update, then:
 *   task.rendered();
 * });
 * ```
 *
 * Times are the page's clock: `performance.timeOrigin + performance.now()` (ms since the Unix epoch). A paint is
 * taken as the first task that runs after the rendering step of the next frame: a `requestAnimationFrame` callback
 * posts a message on a `MessageChannel`, and the message handler reads the clock (docs/recorder_browser.md).
 * The page's clock is related to the service's by probes of `GET {endpoint}/clock`; each record carries the estimate.
 * Nothing here throws into the page and nothing blocks it: records are posted in batches with `fetch(keepalive)`,
 * or `navigator.sendBeacon` when the page is hidden.
 *
 * @module
 */

/** @typedef {import("./types.ts").PageRecord} PageRecord */
/** @typedef {import("./types.ts").ClockSample} ClockSample */

/**
 * What the recorder needs from the page; {@linkcode browserEnv} gives the real ones, tests pass fakes.
 *
 * @typedef {object} PageEnv
 * @property {() => number} now The page's clock, ms since the Unix epoch.
 * @property {number} timeOrigin `performance.timeOrigin`: an event's `timeStamp` is ms after it.
 * @property {(url: string, init: PostInit) => Promise<{ ok: boolean, status: number, json(): Promise<unknown> }>} fetch
 * @property {((url: string, body: string) => boolean) | null} beacon `navigator.sendBeacon`, when the page has it.
 * @property {(cb: () => void) => void} frame `requestAnimationFrame` (its timestamp is not used).
 * @property {(cb: () => void) => void} task Queues a task (a `MessageChannel` message): it runs after the frame.
 * @property {(cb: () => void, ms: number) => unknown} setTimeout
 * @property {(handle: unknown) => void} clearTimeout
 * @property {() => string} uuid `crypto.randomUUID`.
 * @property {(onHide: () => void, onLeave: () => void) => void} listen `visibilitychange` to hidden and `pagehide`.
 */

/**
 * @typedef {object} PostInit
 * @property {string} method
 * @property {Record<string, string>} [headers]
 * @property {string} [body]
 * @property {boolean} [keepalive]
 * @property {"no-store"} [cache]
 */

/**
 * Options of {@linkcode pageRecorder}.
 *
 * @typedef {object} PageRecorderOptions
 * @property {string} [endpoint] Where the service mounted the recorder's routes. Default "/_goodput".
 * @property {number} [sample] The share of user actions recorded, 0 < sample ≤ 1: the service's rule. Default 1.
 * @property {number} [probes] Clock probes at start, one after another. Default 3.
 * @property {number} [reprobe_ms] Probe again before a post when the newest probe is older than this. Default 60000.
 * @property {number} [batch] Post when this many records wait. Default 20.
 * @property {number} [flush_ms] Post what waits after this long. Default 1000.
 * @property {number} [max_records] Records held (finished, waiting to be posted); more are dropped and counted. Default 200.
 * @property {number} [paint_wait_ms] A paint not taken this long after the call (a hidden page paints nothing) is
 *   left null and the record says why. Default 10000.
 * @property {number} [task_timeout_ms] A task neither rendered nor failed this long after the action is posted with
 *   an error. Default 600000.
 * @property {(error: unknown) => void} [onError] Called with each failure of the recorder (never thrown).
 * @property {PageEnv} [env] The page's clock and I/O. Default browserEnv().
 */

/**
 * The recorder's counters on the page.
 *
 * @typedef {object} PageStats
 * @property {number} begun
 * @property {number} sampled_out
 * @property {number} posted Records the service accepted (a 2xx answer) or the beacon queued.
 * @property {number} dropped Records lost: the buffer was full, a post failed, or no clock probe ever succeeded.
 * @property {number} errors Failures of the recorder itself.
 */

/**
 * One user action on the page. Each method records the page's clock now; calls after the task ended are ignored.
 *
 * @typedef {object} PageTask
 * @property {string} request_id
 * @property {() => Record<string, string>} headers The header to send with the app's request: `x-goodput-request-id`.
 * @property {() => void} sent Call right before the app's `fetch`.
 * @property {() => void} firstByte Call when `fetch` resolved (the response's status and headers arrived).
 * @property {() => void} firstToken Call right after putting the first token in the DOM: the next paint is taken.
 * @property {() => void} lastByte Call when the response body ended.
 * @property {() => void} rendered Call right after the final DOM update: the next paint is taken, then it is posted.
 * @property {(reason: string) => void} fail The page gave up (a failed fetch, an error answer): posted with the reason.
 */

/**
 * A page's recorder.
 *
 * @typedef {object} PageRecorder
 * @property {(event?: { timeStamp?: number } | null) => PageTask} begin At the click or submit handler, with its event.
 * @property {() => Promise<void>} flush Posts every finished record now (after a clock probe when there is none).
 * @property {() => { offset_ms: number, error_ms: number } | null} clock The current estimate (page − service).
 * @property {() => PageStats} stats
 */

/** The header that carries the request id from the page to the service. */
export const REQUEST_ID_HEADER = "x-goodput-request-id";

/** The longest `error` a record carries (the service refuses longer). */
const MAX_ERROR = 200;

/** Clock samples kept: the estimate is the best of the most recent ones. */
const KEPT_SAMPLES = 8;

/**
 * The clock offset page − service from probes: the probe with the smallest round trip wins; the service read its
 * clock somewhere between the page's send and receive, so the offset is the midpoint of those minus the service's
 * time, within half the round trip. Null without a sample.
 *
 * @param {readonly ClockSample[]} samples
 * @returns {{ offset_ms: number, error_ms: number } | null}
 */
export function estimateClockOffset(samples) {
  /** @type {ClockSample | null} */
  let best = null;
  for (const s of samples) {
    if (best === null || s.page_received_ms - s.page_sent_ms < best.page_received_ms - best.page_sent_ms) best = s;
  }
  if (best === null) return null;
  const rtt = best.page_received_ms - best.page_sent_ms;
  return { offset_ms: (best.page_sent_ms + best.page_received_ms) / 2 - best.service_ms, error_ms: rtt / 2 };
}

/**
 * The 32-bit hash of a request id that sampling compares with the rate — the service's own (recorder/sampling.ts):
 * FNV-1a over the id's UTF-8 bytes (offset basis 0x811c9dc5, prime 0x01000193), then MurmurHash3's fmix32 finalizer,
 * unsigned. Plain integer arithmetic: a page served over plain HTTP (no `crypto.subtle`) samples alike.
 *
 * @param {string} requestId
 * @returns {number}
 */
export function sampleHash(requestId) {
  let h = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(requestId)) {
    h ^= byte;
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * Whether the task with this request id is recorded at `rate` (0 < rate ≤ 1): `sampleHash(id) / 2^32 < rate`, the
 * service's rule, so that the page posts a record for exactly the tasks the service records.
 *
 * @param {string} requestId
 * @param {number} rate
 * @returns {boolean}
 */
export function isSampled(requestId, rate) {
  return sampleHash(requestId) / 4294967296 < rate;
}

/**
 * The real page: its clock, fetch, beacon, frames and crypto.
 *
 * @returns {PageEnv}
 */
export function browserEnv() {
  const g = /** @type {BrowserGlobals} */ (/** @type {unknown} */ (globalThis));
  const channel = new g.MessageChannel();
  /** @type {(() => void)[]} */
  const queued = [];
  channel.port1.onmessage = () => queued.shift()?.();
  const randomUUID = g.crypto?.randomUUID;
  const sendBeacon = g.navigator?.sendBeacon;
  return {
    now: () => g.performance.timeOrigin + g.performance.now(),
    timeOrigin: g.performance.timeOrigin,
    fetch: (url, init) => g.fetch(url, init),
    beacon: sendBeacon ? (url, body) => sendBeacon.call(g.navigator, url, body) : null,
    frame: (cb) => g.requestAnimationFrame(() => cb()),
    task: (cb) => {
      queued.push(cb);
      channel.port2.postMessage(null);
    },
    setTimeout: (cb, ms) => g.setTimeout(cb, ms),
    clearTimeout: (h) => g.clearTimeout(/** @type {number} */ (h)),
    uuid: randomUUID ? () => randomUUID.call(g.crypto) : fallbackUuid,
    listen: (onHide, onLeave) => {
      g.addEventListener("visibilitychange", () => {
        if (g.document?.visibilityState === "hidden") onHide();
      });
      g.addEventListener("pagehide", onLeave);
    },
  };
}

/**
 * The page globals {@linkcode browserEnv} reads (declared here so the module type-checks without the DOM library).
 *
 * @typedef {object} BrowserGlobals
 * @property {{ timeOrigin: number, now(): number }} performance
 * @property {(url: string, init: PostInit) => Promise<{ ok: boolean, status: number, json(): Promise<unknown> }>} fetch
 * @property {{ sendBeacon?: (url: string, body: string) => boolean } | undefined} navigator
 * @property {{ visibilityState: string } | undefined} document
 * @property {(cb: (t: number) => void) => number} requestAnimationFrame
 * @property {new () => { port1: { onmessage: (() => void) | null }, port2: { postMessage(m: null): void } }} MessageChannel
 * @property {(cb: () => void, ms: number) => number} setTimeout
 * @property {(h: number) => void} clearTimeout
 * @property {{ randomUUID?: () => string } | undefined} crypto
 * @property {(type: string, cb: () => void) => void} addEventListener
 */

/** A version-4 UUID from Math.random, for a page without crypto.randomUUID (not a secure context). */
function fallbackUuid() {
  const hex = [...Array(32)].map(() => Math.floor(Math.random() * 16).toString(16));
  hex[12] = "4";
  hex[16] = (8 + Math.floor(Math.random() * 4)).toString(16);
  const s = hex.join("");
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}

/**
 * Starts a page's recorder: probes the service's clock at once, then records each user action begun with it.
 *
 * @param {PageRecorderOptions} [options]
 * @returns {PageRecorder}
 */
export function pageRecorder(options = {}) {
  const endpoint = (options.endpoint ?? "/_goodput").replace(/\/$/, "");
  const sample = options.sample ?? 1;
  const probes = options.probes ?? 3;
  const reprobeMs = options.reprobe_ms ?? 60_000;
  const batch = options.batch ?? 20;
  const flushMs = options.flush_ms ?? 1000;
  const maxRecords = options.max_records ?? 200;
  const paintWaitMs = options.paint_wait_ms ?? 10_000;
  const taskTimeoutMs = options.task_timeout_ms ?? 600_000;
  const stats = { begun: 0, sampled_out: 0, posted: 0, dropped: 0, errors: 0 };
  /** @param {unknown} e */
  const failed = (e) => {
    stats.errors++;
    try {
      options.onError?.(e);
    } catch {
      // The app's own error handler threw: nothing more can be reported, and nothing may reach the page.
    }
  };
  /** @type {PageEnv} */
  let env;
  try {
    env = options.env ?? browserEnv();
  } catch (e) {
    failed(e);
    return inert(stats);
  }
  if (!(sample > 0 && sample <= 1)) failed(new RangeError(`sample ${sample}: expected 0 < sample ≤ 1; recording all`));
  const rate = sample > 0 && sample <= 1 ? sample : 1;

  /** @type {ClockSample[]} */
  const samples = [];
  /** @type {Promise<void> | null} */
  let probing = null;
  /** @param {number} n */
  const probe = (n) => {
    probing ??= (async () => {
      for (let i = 0; i < n; i++) {
        try {
          const page_sent_ms = env.now();
          const res = await env.fetch(`${endpoint}/clock`, { method: "GET", cache: "no-store" });
          const page_received_ms = env.now();
          const body = /** @type {{ service_ms?: unknown }} */ (await res.json());
          if (!res.ok || typeof body?.service_ms !== "number") throw new Error(`clock probe: HTTP ${res.status}`);
          samples.push({ page_sent_ms, service_ms: body.service_ms, page_received_ms });
          if (samples.length > KEPT_SAMPLES) samples.shift();
        } catch (e) {
          failed(e);
        }
      }
    })().finally(() => probing = null);
    return probing;
  };
  const newestProbe = () => samples[samples.length - 1]?.page_received_ms ?? -Infinity;

  /** @type {PageRecord[]} */
  const outbox = [];
  /** @type {unknown} */
  let flushTimer = null;
  /** @type {Promise<void> | null} */
  let posting = null;

  /** @param {boolean} leaving */
  const post = async (leaving) => {
    const records = outbox.splice(0, outbox.length);
    if (!records.length) return;
    if (!leaving && (samples.length < probes || env.now() - newestProbe() > reprobeMs)) {
      await probe(samples.length < probes ? probes - samples.length : 1);
    }
    const clock = estimateClockOffset(samples);
    if (!clock) {
      failed(new Error(`no clock probe of ${endpoint}/clock succeeded: ${records.length} page records dropped`));
      stats.dropped += records.length;
      return;
    }
    for (const r of records) {
      r.clock_offset_ms = clock.offset_ms;
      r.clock_error_ms = clock.error_ms;
    }
    const url = `${endpoint}/page`;
    const body = JSON.stringify(records);
    try {
      if (leaving && env.beacon) {
        if (env.beacon(url, body)) stats.posted += records.length;
        else throw new Error(`sendBeacon refused ${records.length} page records (${body.length} bytes)`);
        return;
      }
      const res = await env.fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
        keepalive: true,
      });
      if (!res.ok) throw new Error(`POST ${url}: HTTP ${res.status}`);
      stats.posted += records.length;
    } catch (e) {
      failed(e);
      stats.dropped += records.length;
    }
  };
  /** @param {boolean} leaving */
  const flush = (leaving) => {
    if (flushTimer !== null) env.clearTimeout(flushTimer);
    flushTimer = null;
    const run = () => post(leaving).catch(failed);
    // One post at a time, in order; a post while leaving goes at once (the page may be gone after this task).
    posting = leaving || !posting ? run() : posting.then(run);
    return posting;
  };
  /** @param {PageRecord} record */
  const enqueue = (record) => {
    if (outbox.length >= maxRecords) {
      stats.dropped++;
      return;
    }
    outbox.push(record);
    if (outbox.length >= batch) void flush(false);
    else flushTimer ??= env.setTimeout(() => void flush(false), flushMs);
  };

  /** @type {Set<() => void>} */
  const open = new Set();
  try {
    env.listen(() => void flush(true), () => {
      for (const leave of [...open]) leave();
      void flush(true);
    });
  } catch (e) {
    failed(e);
  }
  void probe(probes);

  /**
   * Takes the next paint: a frame, then the first task after it.
   *
   * @param {(at: number | null, why?: string) => void} done
   */
  const nextPaint = (done) => {
    let settled = false;
    const timer = env.setTimeout(() => {
      if (settled) return;
      settled = true;
      done(null, `no paint within ${paintWaitMs} ms (the page was hidden?)`);
    }, paintWaitMs);
    env.frame(() =>
      env.task(() => {
        if (settled) return;
        settled = true;
        env.clearTimeout(timer);
        done(env.now());
      })
    );
  };

  /** @param {{ timeStamp?: number } | null | undefined} event @returns {PageTask} */
  const begin = (event) => {
    stats.begun++;
    const now = env.now();
    const stamp = event?.timeStamp;
    // A DOMHighResTimeStamp is ms after timeOrigin; an old browser's epoch timestamp is taken as it is.
    const action_ms = typeof stamp === "number" && stamp > 0 ? (stamp > 1e12 ? stamp : env.timeOrigin + stamp) : now;
    const request_id = env.uuid();
    /** @type {PageRecord} */
    const record = {
      request_id,
      action_ms: Math.min(action_ms, now),
      sent_ms: now,
      first_byte_ms: null,
      first_paint_ms: null,
      last_byte_ms: null,
      rendered_ms: null,
      clock_offset_ms: 0,
      clock_error_ms: 0,
      error: null,
    };
    let ended = false;
    let wantsEnd = false;
    let pendingPaints = 0;
    let firstTokenSeen = false;
    /** @type {string[]} */
    const notes = [];
    const headers = () => ({ [REQUEST_ID_HEADER]: request_id });
    if (!isSampled(request_id, rate)) {
      // The service decides alike from the id it is sent: neither side records this task.
      stats.sampled_out++;
      return { ...inertTask(), request_id, headers };
    }
    const end = () => {
      if (ended || pendingPaints > 0) return;
      ended = true;
      open.delete(leave);
      env.clearTimeout(timeout);
      // The service takes an error of 1 to 200 characters.
      if (notes.length) record.error = notes.join("; ").slice(0, MAX_ERROR) || "failed";
      enqueue(record);
    };
    /** @param {string} why */
    const stop = (why) => {
      if (ended) return;
      notes.push(why);
      wantsEnd = true;
      pendingPaints = 0;
      end();
    };
    const leave = () => stop("the page was left before the answer was rendered");
    open.add(leave);
    const timeout = env.setTimeout(() => stop(`not rendered within ${taskTimeoutMs} ms`), taskTimeoutMs);
    /** @param {() => void} fn */
    const guard = (fn) => () => {
      if (ended) return;
      try {
        fn();
      } catch (e) {
        failed(e);
      }
    };
    /** @param {"first_paint_ms" | "rendered_ms"} field */
    const paint = (field) => {
      pendingPaints++;
      nextPaint((at, why) => {
        if (ended) return;
        record[field] = at;
        if (why) notes.push(`${field}: ${why}`);
        pendingPaints--;
        if (wantsEnd) end();
      });
    };
    return {
      request_id,
      headers,
      sent: guard(() => record.sent_ms = env.now()),
      firstByte: guard(() => record.first_byte_ms ??= env.now()),
      firstToken: guard(() => {
        if (firstTokenSeen) return;
        firstTokenSeen = true;
        paint("first_paint_ms");
      }),
      lastByte: guard(() => record.last_byte_ms = env.now()),
      rendered: guard(() => {
        wantsEnd = true;
        paint("rendered_ms");
      }),
      fail: (reason) => guard(() => stop(String(reason)))(),
    };
  };

  return {
    begin: (event) => {
      try {
        return begin(event);
      } catch (e) {
        failed(e);
        return inertTask();
      }
    },
    flush: () => flush(false),
    clock: () => estimateClockOffset(samples),
    stats: () => ({ ...stats }),
  };
}

/** @returns {PageTask} */
function inertTask() {
  const noop = () => {};
  return {
    request_id: "",
    headers: () => ({}),
    sent: noop,
    firstByte: noop,
    firstToken: noop,
    lastByte: noop,
    rendered: noop,
    fail: noop,
  };
}

/** A recorder that records nothing (the page lacks what it needs), so the app's calls still work.
 * @param {PageStats} stats
 * @returns {PageRecorder}
 */
function inert(stats) {
  return { begin: inertTask, flush: () => Promise.resolve(), clock: () => null, stats: () => ({ ...stats }) };
}
