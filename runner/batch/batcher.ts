/**
 * A batch route's batching during a run (docs/batch.md). Requests the policy
 * sends to a batch route join the route's open batch at their scheduled time;
 * the batch is submitted when it holds `max_requests`, `window_s` after its
 * first request, or when the schedule's arrivals are over (after that, a
 * request that joins — a later round of a tool-calling task — is submitted at
 * once with whatever joins in the same turn). Each submitted batch is polled
 * every `poll_interval_s` until it ends or `max_wait_s` has passed since its
 * submission; then every item is settled: its result, or why it has none.
 * Batch items are never retried inside the run.
 *
 * @module
 */
import type { BatchRecord, BatchSpec } from "../../schema/mod.ts";
import type { AttemptTarget } from "../attempt.ts";
import {
  BatchCallError,
  type BatchItemIn,
  type BatchItemResult,
  type BatchPoll,
  type BatchProvider,
} from "./provider.ts";

/** One item joining a batch: the request, its round, and its whole request body in the route's dialect. */
export interface BatchJoin {
  requestId: string;
  round: number;
  body: string;
}

/**
 * What became of one item: when its batch was submitted (its `sent_ms`; for an item the run stopped before its batch
 * was submitted, the stop), when its result was collected (null: it has none), and the result.
 */
export interface BatchDone {
  joinedMs: number;
  sentMs: number;
  collectedMs: number | null;
  result: BatchItemResult;
}

interface Pending {
  item: BatchItemIn;
  joinedMs: number;
  resolve(d: BatchDone): void;
  reject(e: unknown): void;
}

/** The batch routes of one run: their batchers, the run.json `batches` records, the progress lines. */
export class BatchRoom {
  /** run.json `batches`, in submission order; each record is updated in place until its batch is settled. */
  readonly records: BatchRecord[] = [];
  /** Where progress lines go (stderr by default); null: nowhere. */
  log: ((line: string) => void) | null = (line) => console.error(line);
  readonly #batchers: RouteBatcher[] = [];
  readonly #stop = new AbortController();
  readonly #running = new Set<Promise<void>>();
  #arrivalsOver = false;

  constructor(readonly now: () => number) {}

  /** A batcher for one batch route. */
  add(target: AttemptTarget, spec: BatchSpec, provider: BatchProvider): RouteBatcher {
    const b = new RouteBatcher(this, target, spec, provider);
    this.#batchers.push(b);
    return b;
  }

  /** Whether the run has any batch route. */
  get any(): boolean {
    return this.#batchers.length > 0;
  }

  /** The run is stopping: submitted batches are no longer followed; items not yet settled end `run_stopped`. */
  get signal(): AbortSignal {
    return this.#stop.signal;
  }

  /** Whether every arrival of the schedule has been offered. */
  get arrivalsOver(): boolean {
    return this.#arrivalsOver;
  }

  /** Every arrival of the schedule has been offered: open batches are submitted now. */
  endArrivals(): void {
    this.#arrivalsOver = true;
    for (const b of this.#batchers) b.submitOpen();
  }

  /**
   * The run is stopping (a signal, a failed log write): open batches are not submitted and submitted ones are not
   * followed further (nor cancelled at the provider); their items end `aborted` / `run_stopped`.
   */
  stop(): void {
    if (this.#stop.signal.aborted) return;
    this.#stop.abort();
    for (const b of this.#batchers) b.submitOpen();
  }

  /** Resolves when every batch submitted so far has been settled. */
  async settled(): Promise<void> {
    while (this.#running.size) await Promise.all([...this.#running]);
  }

  /** @internal Keeps a batch's run until it settles. */
  track(p: Promise<void>): void {
    this.#running.add(p);
    void p.finally(() => this.#running.delete(p));
  }

  /** @internal A progress line. */
  say(line: string): void {
    this.log?.(line);
  }
}

/** One batch route's open batch and its submitted ones. */
export class RouteBatcher {
  #open: Pending[] = [];
  #timer: ReturnType<typeof setTimeout> | null = null;
  readonly #ids = new Set<string>();

  constructor(
    readonly room: BatchRoom,
    readonly target: AttemptTarget,
    readonly spec: BatchSpec,
    readonly provider: BatchProvider,
  ) {}

  /** Adds an item to the open batch; resolves when the item is settled (its result, or why it has none). */
  join(j: BatchJoin): Promise<BatchDone> {
    const joinedMs = this.room.now();
    if (this.room.signal.aborted) return Promise.resolve(stopped(joinedMs, joinedMs));
    return new Promise<BatchDone>((resolve, reject) => {
      this.#open.push({ item: { customId: this.#customId(j), body: j.body }, joinedMs, resolve, reject });
      if (this.#open.length >= this.spec.max_requests) this.submitOpen();
      else if (this.#open.length === 1) {
        // After the arrivals, a joining item (a later round) waits one turn for the others of that turn.
        const waitMs = this.room.arrivalsOver ? 0 : this.spec.window_s * 1000;
        this.#timer = setTimeout(() => this.submitOpen(), waitMs);
      }
    });
  }

  /** Submits the open batch now (nothing when it is empty). */
  submitOpen(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    const items = this.#open;
    this.#open = [];
    if (items.length) this.room.track(this.#run(items));
  }

  /** A custom id the provider accepts (`[A-Za-z0-9_-]{1,64}`, unique in the run): `<request_id>_r<round>`. */
  #customId(j: BatchJoin): string {
    const base = `${j.requestId.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 54)}_r${j.round}`;
    let id = base;
    for (let n = 1; this.#ids.has(id); n++) id = `${base.slice(0, 54)}_${n}`;
    this.#ids.add(id);
    return id;
  }

  async #run(items: Pending[]): Promise<void> {
    const { room, spec, provider, target } = this;
    const signal = room.signal;
    const route = target.route;
    const submittedMs = room.now();
    if (signal.aborted) {
      for (const p of items) p.resolve(stopped(p.joinedMs, submittedMs));
      return;
    }
    const rec: BatchRecord = {
      route,
      id: null,
      items: items.length,
      submitted_ms: submittedMs,
      ended_ms: null,
      status: "submitting",
      counts: null,
    };
    room.records.push(rec);
    const settle = (collectedMs: number | null, resultOf: (p: Pending) => BatchItemResult) => {
      for (const p of items) p.resolve({ joinedMs: p.joinedMs, sentMs: submittedMs, collectedMs, result: resultOf(p) });
    };
    const end = (status: string) => {
      rec.ended_ms = room.now();
      rec.status = status;
      return rec.ended_ms;
    };
    let id: string;
    try {
      id = await provider.submit(items.map((p) => p.item), signal);
    } catch (e) {
      if (!(e instanceof BatchCallError)) {
        end("submit_failed");
        for (const p of items) p.reject(e);
        return;
      }
      const at = end(signal.aborted ? "run_stopped" : "submit_failed");
      if (signal.aborted) return settle(null, () => STOPPED);
      room.say(`batch ${route}: submitting ${items.length} items failed: ${e.message}`);
      const failed = this.#callFailure(e, "submit");
      return settle(at, () => failed);
    }
    rec.id = id;
    rec.status = "submitted";
    room.say(`batch ${route}: ${id} submitted with ${items.length} items at ${seconds(submittedMs)}`);
    const deadlineMs = submittedMs + spec.max_wait_s * 1000;
    let said = "";
    while (room.now() < deadlineMs) {
      await sleep(Math.min(spec.poll_interval_s * 1000, deadlineMs - room.now()), signal);
      if (signal.aborted) break;
      let poll: BatchPoll;
      try {
        poll = await provider.poll(id, signal);
      } catch (e) {
        if (signal.aborted) break;
        room.say(`batch ${route} ${id}: poll failed (${(e as Error).message}); polling again`);
        continue;
      }
      rec.status = poll.status;
      rec.counts = poll.counts;
      const line = `${poll.status} ${JSON.stringify(poll.counts ?? {})}`;
      if (line !== said) room.say(`batch ${route} ${id}: ${line} at ${seconds(room.now())}`);
      said = line;
      if (!poll.ended) continue;
      try {
        const r = await provider.results(poll, signal);
        const at = end(poll.status);
        room.say(`batch ${route} ${id}: ${r.items.size} results collected at ${seconds(at)}`);
        const missing: BatchItemResult = { kind: "failed", ...r.missing, status: null };
        return settle(at, (p) => r.items.get(p.item.customId) ?? missing);
      } catch (e) {
        if (signal.aborted) break;
        room.say(`batch ${route} ${id}: reading results failed (${(e as Error).message}); trying again`);
      }
    }
    if (signal.aborted) {
      end("run_stopped");
      return settle(null, () => STOPPED);
    }
    const at = end("max_wait");
    room.say(`batch ${route} ${id}: not ended after max_wait_s ${spec.max_wait_s}; its items are timeouts`);
    return settle(at, () => MAX_WAIT);
  }

  /** Every item of a batch whose control call failed: the dialect's verdict on the status, or the transport's. */
  #callFailure(e: BatchCallError, step: string): BatchItemResult {
    if (e.status !== null) {
      const v = this.target.dialect.classifyError(e.status, new Map(), e.body);
      return { kind: "failed", outcome: v.outcome, errorKind: `batch_${step}+${v.kind}`, status: e.status };
    }
    const outcome = e.transport ? "transport_error" : "invalid_response";
    return {
      kind: "failed",
      outcome,
      errorKind: `batch_${step}+${e.transport ? "transport" : "bad_answer"}`,
      status: null,
    };
  }
}

/** An item whose batch was still unfinished `max_wait_s` after its submission. */
const MAX_WAIT: BatchItemResult = { kind: "failed", outcome: "timeout", errorKind: "batch_max_wait", status: null };
/** An item the run stopped waiting for. */
const STOPPED: BatchItemResult = { kind: "failed", outcome: "aborted", errorKind: "run_stopped", status: null };

function stopped(joinedMs: number, atMs: number): BatchDone {
  return { joinedMs, sentMs: atMs, collectedMs: null, result: STOPPED };
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** Sleeps `ms`, or less when `signal` is aborted. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted || ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
