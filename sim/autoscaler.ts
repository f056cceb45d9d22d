import type { SimProfile } from "../schema/mod.ts";

/** What the autoscaler sees at one evaluation. */
export interface ScaleSignal {
  nowMs: number;
  queueLen: number;
  /** Replicas taking work. */
  serving: number;
  /** Replicas provisioning or loading. */
  warming: number;
  /** Sequences running across serving replicas. */
  running: number;
  /** Batch size of one replica. */
  maxRunningSeqs: number;
}

/**
 * Scaling decisions on `queue_per_replica` = waiting requests / serving
 * replicas. A signal must hold for `detection_delay_ms` before it acts, and
 * no decision follows another within `cooldown_ms`. Scaling down also needs
 * the running batch to fit on one replica fewer, so a busy replica with an
 * empty queue is not removed.
 *
 * @example The queue must stay long for the detection delay
 * ```ts
 * import { Autoscaler } from "./autoscaler.ts";
 * import assert from "node:assert/strict";
 * const a = new Autoscaler({ enabled: true, metric: "queue_per_replica", scale_up_threshold: 2,
 *   scale_down_threshold: 0.5, detection_delay_ms: 1000, provisioning_delay_ms: 0, warmup_ms: 0,
 *   cooldown_ms: 5000 }, { min: 1, max: 2 });
 * const s = { queueLen: 5, serving: 1, warming: 0, running: 4, maxRunningSeqs: 4 };
 * assert.equal(a.decide({ ...s, nowMs: 0 }), null);
 * assert.equal(a.decide({ ...s, nowMs: 1000 }), "up");
 * ```
 */
export class Autoscaler {
  readonly #cfg: SimProfile["autoscaler"];
  readonly #min: number;
  readonly #max: number;
  #upSince: number | null = null;
  #downSince: number | null = null;
  #lastAction = -Infinity;

  constructor(cfg: SimProfile["autoscaler"], bounds: { min: number; max: number }) {
    this.#cfg = cfg;
    this.#min = bounds.min;
    this.#max = bounds.max;
  }

  /** "up" to start one replica, "down" to drain one, null to wait. */
  decide(s: ScaleSignal): "up" | "down" | null {
    const perReplica = s.queueLen / Math.max(1, s.serving);
    const up = perReplica > this.#cfg.scale_up_threshold;
    const down = perReplica < this.#cfg.scale_down_threshold &&
      s.running <= (s.serving - 1) * s.maxRunningSeqs;
    this.#upSince = up ? (this.#upSince ?? s.nowMs) : null;
    this.#downSince = down ? (this.#downSince ?? s.nowMs) : null;
    if (s.nowMs - this.#lastAction < this.#cfg.cooldown_ms) return null;
    const held = (since: number | null) => since !== null && s.nowMs - since >= this.#cfg.detection_delay_ms;
    if (held(this.#upSince) && s.serving + s.warming < this.#max) return this.#act(s.nowMs, "up");
    if (held(this.#downSince) && s.warming === 0 && s.serving > this.#min) return this.#act(s.nowMs, "down");
    return null;
  }

  #act(now: number, d: "up" | "down"): "up" | "down" {
    this.#lastAction = now;
    this.#upSince = this.#downSince = null;
    return d;
  }
}
