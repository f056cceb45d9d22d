/**
 * What the end of a run keeps of its requests table, accumulated batch by
 * batch as finalisation reads requests.csv once: counts per stage and
 * outcome, and the send lags behind the client verdict's p99 (a
 * Float64Array: 8 bytes per request the dispatcher reached, 8 MB at
 * 1,000,000). No row is kept.
 *
 * @module
 */
import type { Outcome, RequestRow, RunManifest } from "../schema/mod.ts";

/** The requests table in counts: what the end-of-run report and the exit verdict read. */
export interface RequestSummary {
  /** Rows in requests.csv: every offered request. */
  offered: number;
  /** Requests per stage and outcome; stages and outcomes in the order first seen. */
  byStage: ReadonlyMap<string, ReadonlyMap<Outcome, number>>;
  /** Requests per outcome over every stage, in the order first seen. */
  byOutcome: ReadonlyMap<Outcome, number>;
  /** Requests with a send lag (the dispatcher reached them, sent or not): the n of the lag percentiles. */
  lagged: number;
}

/** The client verdict of run.json `result`. */
export type ClientVerdict = Pick<
  RunManifest["result"],
  | "offered"
  | "not_sent"
  | "client_shed"
  | "send_lag_p99_ms"
  | "send_lag_max_ms"
  | "client_limited"
  | "client_limit_reason"
>;

/**
 * Counts of a requests table fed in batches.
 *
 * @example Two batches, one summary
 * ```ts
 * import { RequestTally } from "./request_tally.ts";
 * import assert from "node:assert/strict";
 * const t = new RequestTally();
 * t.add([{ stage: "s", outcome: "ok", error_kind: null, send_lag_ms: 1 }]);
 * t.add([{ stage: "s", outcome: "timeout", error_kind: "timeout", send_lag_ms: 3 }]);
 * assert.equal(t.summary().offered, 2);
 * assert.equal(t.verdict(5).send_lag_max_ms, 3);
 * ```
 */
export class RequestTally {
  #offered = 0;
  #lags = new Float64Array(1024);
  #lagged = 0;
  #notSent = 0;
  #behind = 0;
  #shed = 0;
  #byStage = new Map<string, Map<Outcome, number>>();
  #byOutcome = new Map<Outcome, number>();

  /** Counts one batch of rows. */
  add(rows: readonly Pick<RequestRow, "stage" | "outcome" | "error_kind" | "send_lag_ms">[]): void {
    for (const r of rows) {
      this.#offered++;
      let m = this.#byStage.get(r.stage);
      if (!m) this.#byStage.set(r.stage, m = new Map());
      m.set(r.outcome, (m.get(r.outcome) ?? 0) + 1);
      this.#byOutcome.set(r.outcome, (this.#byOutcome.get(r.outcome) ?? 0) + 1);
      if (r.outcome === "not_sent") {
        this.#notSent++;
        // A stopped run's unsent rest says the run was cut short (result.status), not that the client fell behind.
        if (r.error_kind !== "run_stopped") this.#behind++;
      }
      if (r.outcome === "client_shed") this.#shed++;
      if (r.send_lag_ms !== null) {
        if (this.#lagged === this.#lags.length) {
          const grown = new Float64Array(this.#lags.length * 2);
          grown.set(this.#lags);
          this.#lags = grown;
        }
        this.#lags[this.#lagged++] = r.send_lag_ms;
      }
    }
  }

  /** The counts so far. */
  summary(): RequestSummary {
    return { offered: this.#offered, byStage: this.#byStage, byOutcome: this.#byOutcome, lagged: this.#lagged };
  }

  /**
   * Did the client keep up? Any not_sent (other than those the stop left: error_kind run_stopped), any
   * client_shed, or a p99 send lag above the limit, says no.
   */
  verdict(lagLimitMs: number): ClientVerdict {
    const lags = this.#lags.subarray(0, this.#lagged).sort();
    // Nearest-rank p99 over every request the dispatcher reached (sent or not).
    const p99 = lags.length ? lags[Math.min(lags.length - 1, Math.ceil(0.99 * lags.length) - 1)]! : null;
    const max = lags.length ? lags[lags.length - 1]! : null;
    const reasons: string[] = [];
    if (this.#behind) reasons.push(`${this.#behind} requests not sent (the runner fell behind its schedule)`);
    if (this.#shed) reasons.push(`${this.#shed} requests shed by the runner's in-flight cap`);
    if (p99 !== null && p99 > lagLimitMs) reasons.push(`p99 send lag ${p99.toFixed(2)} ms > ${lagLimitMs} ms`);
    return {
      offered: this.#offered,
      not_sent: this.#notSent,
      client_shed: this.#shed,
      send_lag_p99_ms: p99,
      send_lag_max_ms: max,
      client_limited: reasons.length > 0,
      client_limit_reason: reasons.length ? reasons.join("; ") : null,
    };
  }
}

/**
 * The client verdict of a whole requests table held in memory (see
 * {@linkcode RequestTally.verdict}).
 *
 * @example p99 by nearest rank
 * ```ts
 * import { clientVerdict } from "./request_tally.ts";
 * import assert from "node:assert/strict";
 * // 100 lags 1..100 ms: nearest-rank p99 is the 99th smallest (ceil(0.99 × 100) = 99), 99 ms > 5 ms.
 * const rows = Array.from({ length: 100 }, (_, i) => ({ stage: "s", outcome: "ok" as const, error_kind: null, send_lag_ms: i + 1 }));
 * const v = clientVerdict(rows, 5);
 * assert.equal(v.send_lag_p99_ms, 99);
 * assert.equal(v.client_limit_reason, "p99 send lag 99.00 ms > 5 ms");
 * ```
 */
export function clientVerdict(
  rows: readonly Pick<RequestRow, "stage" | "outcome" | "error_kind" | "send_lag_ms">[],
  lagLimitMs: number,
): ClientVerdict {
  const t = new RequestTally();
  t.add(rows);
  return t.verdict(lagLimitMs);
}
