import type { SimOutage } from "../schema/mod.ts";

/** Reacts to the start and end of "refuse" outages (the listener closes and reopens). */
export interface OutageHooks {
  refuseStart(): void;
  refuseEnd(): void;
}

/**
 * The outage windows of a profile on the sim's clock: relative to an origin
 * (sim start, or the last reset). Timers fire the "refuse" transitions.
 */
export class OutageSchedule {
  readonly #outages: readonly SimOutage[];
  readonly #now: () => number;
  readonly #hooks: OutageHooks;
  readonly #timers = new Set<ReturnType<typeof setTimeout>>();
  #origin = 0;
  #refusing = false;

  constructor(outages: readonly SimOutage[], now: () => number, hooks: OutageHooks) {
    this.#outages = outages;
    this.#now = now;
    this.#hooks = hooks;
    this.reset();
  }

  /** Outage windows count from now; a refusal in progress ends. */
  reset(): void {
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    this.#origin = this.#now();
    if (this.#refusing) this.#setRefusing(false);
    for (const o of this.#outages) {
      if (o.mode !== "refuse") continue;
      this.#at(o.start_ms, () => this.#setRefusing(true));
      this.#at(o.end_ms, () => this.#setRefusing(false));
    }
  }

  /** The outage mode in force now, or null. */
  current(): SimOutage["mode"] | null {
    const t = this.#now() - this.#origin;
    return this.#outages.find((o) => t >= o.start_ms && t < o.end_ms)?.mode ?? null;
  }

  /** Wall-clock ms of the origin. */
  originUnixMs(): number {
    return performance.timeOrigin + this.#origin;
  }

  stop(): void {
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
  }

  #setRefusing(on: boolean): void {
    if (on === this.#refusing) return;
    this.#refusing = on;
    if (on) this.#hooks.refuseStart();
    else this.#hooks.refuseEnd();
  }

  #at(ms: number, fn: () => void): void {
    const t = setTimeout(() => {
      this.#timers.delete(t);
      fn();
    }, Math.max(0, this.#origin + ms - this.#now()));
    this.#timers.add(t);
  }
}
