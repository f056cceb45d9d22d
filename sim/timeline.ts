import type { SimTimelineRow } from "../schema/mod.ts";
import type { EngineSnapshot } from "./engine.ts";

/**
 * The sim's own timeline: every `intervalMs` (aligned to its start, without
 * drift) one row of gauges and interval counts, kept in memory and
 * optionally appended to a JSONL file as it is taken.
 */
export class Timeline {
  readonly #rows: SimTimelineRow[] = [];
  readonly #intervalMs: number;
  readonly #sample: () => EngineSnapshot;
  readonly #file: Deno.FsFile | null;
  readonly #t0: number;
  #last: EngineSnapshot;
  #n = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  /** `file`: a JSONL path to append rows to (created or truncated). */
  constructor(intervalMs: number, sample: () => EngineSnapshot, file?: string) {
    this.#intervalMs = intervalMs;
    this.#sample = sample;
    this.#file = file ? Deno.openSync(file, { write: true, create: true, truncate: true }) : null;
    this.#t0 = performance.now();
    this.#last = sample();
    this.#arm();
  }

  /** Every row so far (a copy). */
  rows(): SimTimelineRow[] {
    return this.#rows.slice();
  }

  /** Stops taking rows and closes the file. */
  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#file?.close();
  }

  #arm(): void {
    // After a stall, skip to the next boundary: one longer row, not a burst of empty ones.
    this.#n = Math.max(this.#n + 1, Math.floor((performance.now() - this.#t0) / this.#intervalMs) + 1);
    this.#timer = setTimeout(
      () => this.#take(),
      Math.max(0, this.#t0 + this.#n * this.#intervalMs - performance.now()),
    );
  }

  #take(): void {
    const s = this.#sample();
    const p = this.#last;
    this.#last = s;
    const row: SimTimelineRow = {
      t_unix_ms: Math.round(performance.timeOrigin + performance.now()),
      queue_len: s.queue_len,
      oldest_queued_ms: Math.round(s.oldest_queued_ms),
      running: s.running,
      replicas: s.replicas,
      replicas_warming: s.replicas_warming,
      shed: s.shed - p.shed,
      rate_limited: s.rate_limited - p.rate_limited,
      errors: s.errors - p.errors,
      admitted: s.admitted - p.admitted,
      finished: s.finished - p.finished,
      kv_tokens: s.kv_tokens,
    };
    this.#rows.push(row);
    if (this.#file) {
      const bytes = new TextEncoder().encode(JSON.stringify(row) + "\n");
      for (let off = 0; off < bytes.length;) off += this.#file.writeSync(bytes.subarray(off));
    }
    this.#arm();
  }
}
