/**
 * A fake page for recorder/browser.js: a clock the test moves, timers that fire when it moves past them, frames and
 * tasks the test runs by hand, and a service whose clock is the page's minus a known offset and whose answers take
 * the up and down delays the test sets.
 */
import type { PageEnv } from "../../recorder/browser.js";
import type { PageRecord } from "../../recorder/types.ts";

/** One request the fake page made. */
export interface Sent {
  url: string;
  method: string;
  body?: string;
  keepalive?: boolean;
  beacon?: boolean;
}

export class FakePage {
  /** The page's clock, ms since the Unix epoch. */
  t = 1_800_000_000_000;
  readonly timeOrigin = 1_799_999_990_000;
  /** Page clock − service clock, ms. */
  offset = 0;
  /** The delays of the next clock probes (page → service, service → page), ms; [1, 1] when none is left. */
  probeDelays: [number, number][] = [];
  /** HTTP status of the clock route and of the page route; a thrown error when null. */
  clockStatus: number | null = 200;
  pageStatus: number | null = 200;
  readonly sent: Sent[] = [];
  readonly hidden = true;
  #timers: { due: number; cb: () => void; id: number }[] = [];
  #frames: (() => void)[] = [];
  #tasks: (() => void)[] = [];
  #ids = 0;
  #uuids = 0;
  #onHide: () => void = () => {};
  #onLeave: () => void = () => {};
  beaconWorks = true;

  readonly env: PageEnv = {
    now: () => this.t,
    timeOrigin: this.timeOrigin,
    fetch: (url, init) => {
      this.sent.push({ url, method: init.method, body: init.body, keepalive: init.keepalive });
      if (url.endsWith("/clock")) {
        if (this.clockStatus === null) return Promise.reject(new TypeError("Failed to fetch"));
        const [up, down] = this.probeDelays.shift() ?? [1, 1];
        this.t += up;
        const service_ms = this.t - this.offset;
        this.t += down;
        const status = this.clockStatus;
        return Promise.resolve({ ok: status < 300, status, json: () => Promise.resolve({ service_ms }) });
      }
      if (this.pageStatus === null) return Promise.reject(new TypeError("Failed to fetch"));
      const status = this.pageStatus;
      return Promise.resolve({ ok: status < 300, status, json: () => Promise.resolve({}) });
    },
    beacon: (url, body) => {
      this.sent.push({ url, method: "POST", body, beacon: true });
      return this.beaconWorks;
    },
    frame: (cb) => this.#frames.push(cb),
    task: (cb) => this.#tasks.push(cb),
    setTimeout: (cb, ms) => {
      const id = ++this.#ids;
      this.#timers.push({ due: this.t + ms, cb, id });
      return id;
    },
    clearTimeout: (id) => {
      this.#timers = this.#timers.filter((x) => x.id !== id);
    },
    uuid: () => `00000000-0000-4000-8000-${String(++this.#uuids).padStart(12, "0")}`,
    listen: (onHide, onLeave) => {
      this.#onHide = onHide;
      this.#onLeave = onLeave;
    },
  };

  /** Moves the clock by `ms`, firing each timer as the clock passes its due time. */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    while (true) {
      const next = this.#timers.filter((x) => x.due <= end).sort((a, b) => a.due - b.due)[0];
      if (!next) break;
      this.#timers = this.#timers.filter((x) => x !== next);
      this.t = Math.max(this.t, next.due);
      next.cb();
      await settle();
    }
    this.t = end;
    await settle();
  }

  /** Renders a frame at the clock now (rAF callbacks), then `after` ms later runs the tasks they queued. */
  async paint(after: number): Promise<void> {
    const frames = this.#frames.splice(0);
    for (const f of frames) f();
    this.t += after;
    const tasks = this.#tasks.splice(0);
    for (const f of tasks) f();
    await settle();
  }

  hide(): void {
    this.#onHide();
  }

  leave(): void {
    this.#onLeave();
  }

  /** The page records posted so far, in order. */
  posted(): PageRecord[] {
    return this.sent.filter((s) => s.url.endsWith("/page")).flatMap((s) => JSON.parse(s.body!) as PageRecord[]);
  }
}

/** Lets every pending promise chain run (a macrotask turn). */
export function settle(): Promise<void> {
  return new Promise((r) => setTimeout(r, 0));
}
