import type { SimEngine } from "../schema/mod.ts";
import type { SimSequence } from "./sequence.ts";

/** Life of a replica: provisioning and loading count as "warming"; only serving ones take work. */
export type ReplicaState = "provisioning" | "loading" | "serving" | "draining" | "stopped";

/** What a replica needs from the engine around it. */
export interface ReplicaHost {
  now(): number;
  /** The end of the engine stall in force now, or null. */
  stallEnd(): number | null;
  /** When `ms` of work started at `start` is done, paused through engine stalls. */
  advance(start: number, ms: number): number;
  /** Moves queued sequences into `replica` while it has room. */
  fill(replica: Replica): void;
  admitted(seq: SimSequence): void;
  finished(seq: SimSequence): void;
  /** A draining replica ran empty and stopped. */
  drained(replica: Replica): void;
}

interface Slot {
  seq: SimSequence;
  generated: number;
}

/** A new replica: its id, its first state, the engine it runs and its cold-start slowdown. */
export interface ReplicaOptions {
  id: number;
  state: ReplicaState;
  /** The profile's engine (batch, step times, KV cache). */
  engine: SimEngine;
  /** Factor on step time while the replica is cold (profile `cold_start.slowdown`). */
  slowdown: number;
  host: ReplicaHost;
}

/** How far a late timer may pull the step schedule back (ms): beyond it the replica slips instead of bursting. */
const MAX_CATCH_UP_MS = 25;

/**
 * One model replica running continuous batching in real time.
 *
 * Each step, sequences assigned since the last step join the batch and are
 * prefilled in that same step (the whole prompt as one chunk, fused with the
 * decode of the running batch, as chunked-prefill engines do); then every
 * running sequence, the new ones included, produces one token. A step takes
 *
 *   Σ_new (prefill_overhead_ms + prefill_ms_per_token × uncached prompt tokens)
 *   + decode_step_ms_base + decode_step_ms_per_seq × running
 *
 * times `slowdown` while the replica is cold. A lone request therefore takes
 * prefill + n × (base + per_seq) for n tokens. Admission reserves prompt +
 * output cap KV tokens, so nothing is ever preempted. One timer per replica
 * drives the loop; steps are scheduled back to back on their nominal end
 * times so timer jitter does not accumulate. An engine stall pauses the
 * step under way (it ends that much later) and no step starts inside one.
 */
export class Replica {
  readonly id: number;
  state: ReplicaState;
  /** Steps that start before this time run `slowdown`× slower. */
  coldUntil = 0;
  /** KV tokens reserved by running and assigned sequences. */
  kvReserved = 0;
  /** Steps whose timer fired more than MAX_CATCH_UP_MS late. */
  lateSteps = 0;
  readonly #cfg: SimEngine;
  readonly #slowdown: number;
  readonly #host: ReplicaHost;
  #running: Slot[] = [];
  #pending: SimSequence[] = [];
  #stepping = false;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(options: ReplicaOptions) {
    this.id = options.id;
    this.state = options.state;
    this.#cfg = options.engine;
    this.#slowdown = options.slowdown;
    this.#host = options.host;
  }

  /** Sequences in the batch. */
  get running(): number {
    return this.#running.length;
  }

  /** Sequences in the batch or assigned to join it. */
  get load(): number {
    return this.#running.length + this.#pending.length;
  }

  /** Whether `seq` could join now: serving, a free slot and enough KV. */
  hasRoom(seq: SimSequence): boolean {
    return this.state === "serving" && this.load < this.#cfg.max_running_seqs &&
      this.kvReserved + seq.kvTokens <= this.#cfg.max_kv_tokens;
  }

  /** Assigns `seq`; it joins the batch at the next step boundary (now, if idle). */
  assign(seq: SimSequence): void {
    this.#pending.push(seq);
    this.kvReserved += seq.kvTokens;
    if (!this.#stepping) this.#step(this.#host.now());
  }

  /** Starts taking work; cold for `coldMs`. */
  startServing(coldMs: number): void {
    this.state = "serving";
    this.coldUntil = this.#host.now() + coldMs;
    if (!this.#stepping) this.#step(this.#host.now());
  }

  /** After a stall: an idle serving replica takes what queued meanwhile. */
  wake(): void {
    if (!this.#stepping && this.state === "serving") this.#step(this.#host.now());
  }

  /** Takes no new work; stops once its batch is empty. */
  drain(): void {
    this.state = "draining";
    if (!this.#stepping) this.#stopDrained();
  }

  /** Stops at once; the sequences in it are dropped without callbacks. */
  stop(): void {
    clearTimeout(this.#timer);
    this.#stepping = false;
    this.state = "stopped";
    this.#running = [];
    this.#pending = [];
    this.kvReserved = 0;
  }

  #step(start: number): void {
    this.#stepping = true;
    const stalled = this.#host.stallEnd();
    if (stalled !== null) {
      this.#timer = setTimeout(() => this.#step(stalled), Math.max(0, stalled - this.#host.now()));
      return;
    }
    if (this.state === "serving") this.#host.fill(this);
    const fresh = this.#pending;
    this.#pending = [];
    let prefill = 0;
    for (const seq of fresh) {
      if (seq.cancelled) {
        this.kvReserved -= seq.kvTokens;
        continue;
      }
      this.#running.push({ seq, generated: 0 });
      prefill += this.#cfg.prefill_overhead_ms + this.#cfg.prefill_ms_per_token * seq.prefillTokens;
      seq.onAdmit();
      this.#host.admitted(seq);
    }
    this.#running = this.#running.filter((s) => this.#keep(s));
    if (!this.#running.length) {
      this.#stepping = false;
      if (this.state === "draining") this.#stopDrained();
      return;
    }
    const cold = start < this.coldUntil ? this.#slowdown : 1;
    const decode = this.#cfg.decode_step_ms_base + this.#cfg.decode_step_ms_per_seq * this.#running.length;
    const end = this.#host.advance(start, (prefill + decode) * cold);
    this.#timer = setTimeout(() => this.#endStep(end), Math.max(0, end - this.#host.now()));
  }

  #endStep(end: number): void {
    this.#timer = undefined;
    if (this.state === "stopped") return;
    // A late timer that lands inside a stall: the step ends when the stall does.
    const stalled = this.#host.stallEnd();
    if (stalled !== null) {
      this.#timer = setTimeout(() => this.#endStep(stalled), Math.max(0, stalled - this.#host.now()));
      return;
    }
    const next: Slot[] = [];
    for (const slot of this.#running) {
      if (!this.#keep(slot)) continue;
      const { seq } = slot;
      if (slot.generated < seq.outputTokens) seq.onToken(slot.generated++);
      // A client that left while its token was written (its stream cancelled inside onToken) is dropped, not finished.
      if (!this.#keep(slot)) continue;
      if (slot.generated >= seq.outputTokens) {
        this.kvReserved -= seq.kvTokens;
        seq.onFinish();
        this.#host.finished(seq);
      } else {
        next.push(slot);
      }
    }
    this.#running = next;
    const now = this.#host.now();
    if (now - end > MAX_CATCH_UP_MS) this.lateSteps++;
    this.#step(Math.max(end, now - MAX_CATCH_UP_MS));
  }

  /** Drops a cancelled slot and frees its KV. */
  #keep(slot: Slot): boolean {
    if (!slot.seq.cancelled) return true;
    this.kvReserved -= slot.seq.kvTokens;
    return false;
  }

  #stopDrained(): void {
    this.state = "stopped";
    this.#host.drained(this);
  }
}
