import type { SimProfile } from "../schema/mod.ts";
import { Autoscaler } from "./autoscaler.ts";
import { RequestQueue } from "./queue.ts";
import { Replica, type ReplicaHost } from "./replica.ts";
import type { ShedReason, SimSequence } from "./sequence.ts";
import { StallWindows } from "./stalls.ts";

/** How often the autoscaler looks at the queue (ms). */
const SCALE_TICK_MS = 100;

/** The engine's gauges now and its counters since start. */
export interface EngineSnapshot {
  queue_len: number;
  oldest_queued_ms: number;
  running: number;
  replicas: number;
  replicas_warming: number;
  kv_tokens: number;
  /** Cumulative counts. */
  admitted: number;
  finished: number;
  shed: number;
  /** Refused by the rate limits (429 quota), never queued. */
  rate_limited: number;
  /**
   * Left by their client before their answer was complete: queued (never admitted), or admitted and dropped from the
   * batch before their last token (never finished), their slot and KV freed.
   */
  client_closed: number;
  errors: number;
  late_steps: number;
}

/**
 * The capacity model: one FIFO queue, a router and the replicas behind it,
 * with an optional autoscaler. Arrivals go to the least-loaded serving
 * replica with room (a slot and enough KV); when none has room, or others
 * already wait, they queue; a full queue sheds at once. Replicas pull from
 * the queue head at each step boundary. During a stall (`faults.stalls`)
 * arrivals only queue, no step runs, and every replica wakes at its end.
 */
export class Engine {
  readonly queue: RequestQueue;
  readonly #profile: SimProfile;
  readonly #replicas: Replica[] = [];
  readonly #autoscaler: Autoscaler | null;
  readonly #host: ReplicaHost;
  readonly #timers = new Set<ReturnType<typeof setTimeout>>();
  readonly #stalls: StallWindows;
  readonly #stallTimers = new Set<ReturnType<typeof setTimeout>>();
  #nextId = 0;
  #tick: ReturnType<typeof setInterval> | undefined;
  #counts = { admitted: 0, finished: 0, shed: 0, rate_limited: 0, client_closed: 0, errors: 0 };

  constructor(profile: SimProfile, now: () => number = () => performance.now()) {
    this.#profile = profile;
    this.queue = new RequestQueue(
      { maxLen: profile.queue.max_len, maxAgeMs: profile.queue.max_age_ms, now },
      (seq, reason) => this.#shed(seq, reason),
    );
    this.#stalls = new StallWindows(profile.faults.stalls, now);
    this.#host = {
      now,
      stallEnd: () => this.#stalls.endAt(),
      advance: (start, ms) => this.#stalls.advance(start, ms),
      fill: (r) => this.#fill(r),
      admitted: () => this.#counts.admitted++,
      finished: () => this.#counts.finished++,
      drained: (r) => {
        const i = this.#replicas.indexOf(r);
        if (i >= 0) this.#replicas.splice(i, 1);
      },
    };
    const a = profile.autoscaler;
    this.#autoscaler = a.enabled ? new Autoscaler(a, profile.replicas) : null;
    for (let i = 0; i < profile.replicas.initial; i++) this.#addReplica().startServing(profile.cold_start.warmup_ms);
    if (this.#autoscaler) this.#tick = setInterval(() => this.#scale(), SCALE_TICK_MS);
    this.#armStalls();
  }

  /** Stall windows count from now (`POST /sim/reset`). */
  resetStalls(): void {
    this.#stalls.reset();
    this.#armStalls();
  }

  /**
   * Offers `seq`: "assigned" to a replica, "queued", or "shed" (queue full;
   * `onShed` is not called, the caller answers 429).
   */
  submit(seq: SimSequence): "assigned" | "queued" | "shed" {
    if (this.queue.length === 0 && this.#stalls.endAt() === null) {
      const r = this.#route(seq);
      if (r) {
        r.assign(seq);
        return "assigned";
      }
    }
    if (this.queue.push(seq)) return "queued";
    this.#counts.shed++;
    return "shed";
  }

  /**
   * The client of `seq` went away before its answer was complete: forget it if queued, else the replica drops it at
   * its next step (or at once, inside `onToken`). Counted once as `client_closed`.
   */
  cancel(seq: SimSequence): void {
    if (seq.cancelled) return;
    seq.cancelled = true;
    this.#counts.client_closed++;
    this.queue.remove(seq);
  }

  /** Counts a request answered with a server error before admission (500, 503). */
  countError(): void {
    this.#counts.errors++;
  }

  /** Counts a request refused by the rate limits (429 quota). */
  countRateLimited(): void {
    this.#counts.rate_limited++;
  }

  /** Whether `seq` could ever fit in one replica's KV cache. */
  fits(kvTokens: number): boolean {
    return kvTokens <= this.#profile.engine.max_kv_tokens;
  }

  snapshot(): EngineSnapshot {
    let running = 0, serving = 0, warming = 0, kv = 0, late = 0;
    for (const r of this.#replicas) {
      running += r.running;
      kv += r.kvReserved;
      late += r.lateSteps;
      if (r.state === "serving") serving++;
      else if (r.state === "provisioning" || r.state === "loading") warming++;
    }
    return {
      queue_len: this.queue.length,
      oldest_queued_ms: this.queue.oldestAgeMs(),
      running,
      replicas: serving,
      replicas_warming: warming,
      kv_tokens: kv,
      ...this.#counts,
      late_steps: late,
    };
  }

  /** Stops every timer; in-flight sequences get no more callbacks. */
  stop(): void {
    clearInterval(this.#tick);
    for (const t of [...this.#timers, ...this.#stallTimers]) clearTimeout(t);
    this.#timers.clear();
    this.#stallTimers.clear();
    this.queue.clear();
    for (const r of this.#replicas) r.stop();
  }

  /** At the end of each stall, every idle replica looks at the queue again. */
  #armStalls(): void {
    for (const t of this.#stallTimers) clearTimeout(t);
    this.#stallTimers.clear();
    for (const end of this.#stalls.upcomingEnds()) {
      const t = setTimeout(() => {
        this.#stallTimers.delete(t);
        for (const r of this.#replicas) r.wake();
      }, end - this.#host.now());
      this.#stallTimers.add(t);
    }
  }

  #route(seq: SimSequence): Replica | undefined {
    let best: Replica | undefined;
    const now = this.#host.now();
    for (const r of this.#replicas) {
      if (!r.hasRoom(seq)) continue;
      // Least loaded first; on a tie prefer a replica past its cold start.
      if (!best || r.load < best.load || (r.load === best.load && best.coldUntil > now && r.coldUntil <= now)) best = r;
    }
    return best;
  }

  #fill(r: Replica): void {
    for (let head = this.queue.peek(); head && r.hasRoom(head); head = this.queue.peek()) r.assign(this.queue.shift()!);
  }

  #shed(seq: SimSequence, reason: ShedReason): void {
    this.#counts.shed++;
    seq.onShed(reason);
  }

  #addReplica(): Replica {
    const r = new Replica({
      id: this.#nextId++,
      state: "provisioning",
      engine: this.#profile.engine,
      slowdown: this.#profile.cold_start.slowdown,
      host: this.#host,
    });
    this.#replicas.push(r);
    return r;
  }

  #after(ms: number, fn: () => void): void {
    const t = setTimeout(() => {
      this.#timers.delete(t);
      fn();
    }, ms);
    this.#timers.add(t);
  }

  #scale(): void {
    const s = this.snapshot();
    const d = this.#autoscaler!.decide({
      nowMs: this.#host.now(),
      queueLen: s.queue_len,
      serving: s.replicas,
      warming: s.replicas_warming,
      running: s.running,
      maxRunningSeqs: this.#profile.engine.max_running_seqs,
    });
    const a = this.#profile.autoscaler;
    if (d === "up") {
      const r = this.#addReplica();
      this.#after(a.provisioning_delay_ms, () => {
        r.state = "loading";
        this.#after(a.warmup_ms, () => r.startServing(this.#profile.cold_start.warmup_ms));
      });
    } else if (d === "down") {
      // Drain the least-loaded serving replica; it leaves once its batch is empty.
      const victim = this.#replicas.filter((r) => r.state === "serving").sort((x, y) => x.load - y.load)[0];
      victim?.drain();
    }
  }
}
