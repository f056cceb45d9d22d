import type { ShedReason, SimSequence } from "./sequence.ts";

interface Entry {
  seq: SimSequence;
  at: number;
}

/**
 * The one FIFO queue in front of the replicas. Arrivals beyond `maxLen` are
 * refused; entries older than `maxAgeMs` are shed by a single timer armed
 * for the oldest one (FIFO order means the head always expires first).
 */
export class RequestQueue {
  readonly maxLen: number;
  readonly maxAgeMs: number;
  readonly #entries: Entry[] = [];
  readonly #now: () => number;
  readonly #onShed: (seq: SimSequence, reason: ShedReason) => void;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    options: { maxLen: number; maxAgeMs: number; now: () => number },
    onShed: (seq: SimSequence, reason: ShedReason) => void,
  ) {
    this.maxLen = options.maxLen;
    this.maxAgeMs = options.maxAgeMs;
    this.#now = options.now;
    this.#onShed = onShed;
  }

  get length(): number {
    return this.#entries.length;
  }

  /** Age of the oldest entry in ms (0 when empty). */
  oldestAgeMs(): number {
    const head = this.#entries[0];
    return head ? Math.max(0, this.#now() - head.at) : 0;
  }

  /** Appends `seq`; false (and nothing queued) when the queue is full. */
  push(seq: SimSequence): boolean {
    if (this.#entries.length >= this.maxLen) return false;
    this.#entries.push({ seq, at: this.#now() });
    if (this.#entries.length === 1) this.#arm();
    return true;
  }

  /** The head, without removing it. */
  peek(): SimSequence | undefined {
    return this.#entries[0]?.seq;
  }

  /** Removes and returns the head. */
  shift(): SimSequence | undefined {
    const e = this.#entries.shift();
    this.#arm();
    return e?.seq;
  }

  /** Removes `seq` wherever it is (its client went away); true if it was queued. */
  remove(seq: SimSequence): boolean {
    const i = this.#entries.findIndex((e) => e.seq === seq);
    if (i < 0) return false;
    this.#entries.splice(i, 1);
    if (i === 0) this.#arm();
    return true;
  }

  /** Stops the age timer and empties the queue, shedding nothing. */
  clear(): SimSequence[] {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    return this.#entries.splice(0).map((e) => e.seq);
  }

  #arm(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const head = this.#entries[0];
    if (!head) return;
    const wait = head.at + this.maxAgeMs - this.#now();
    this.#timer = setTimeout(() => this.#expire(), Math.max(0, wait));
  }

  #expire(): void {
    this.#timer = undefined;
    const now = this.#now();
    while (this.#entries.length && now - this.#entries[0]!.at >= this.maxAgeMs) {
      this.#onShed(this.#entries.shift()!.seq, "queue_age");
    }
    this.#arm();
  }
}
