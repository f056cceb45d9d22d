/**
 * What the end of a run keeps of its requests table, accumulated row by row
 * as the run writes it (runner/execute.ts), or batch by batch as the
 * finalisation reads requests.csv once (Parquet, a failed write): counts per stage and
 * outcome, and the send lags behind the client verdict, per stage (8 bytes
 * per request the dispatcher reached, 8 MB at 1,000,000). No row is kept.
 * The verdict is the shared rule's (lib/client_limit_rule.ts) clauses (a)
 * and (b): the runner has no SLO policy.
 *
 * @module
 */
import type { Outcome, RequestRow, RunManifest } from "../schema/mod.ts";
import { FIXED_BAR_PERCENTILE, lagCheck, lagCheckText, lagFigure, stageVerdict } from "../lib/client_limit_rule.ts";

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
  /** The lag as a figure (lib/client_limit_rule.ts `lagFigure`): the highest percentile n supports, and the max. */
  lagFigure: string;
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

/** What the verdict is judged against. */
export interface ClientVerdictOptions {
  /**
   * The run's stages with their planned rates (run.json `stages`): each stage with a rate has its lag tested against
   * the mean gap between its planned arrivals (clause (b)). None for a closed-loop run. @default []
   */
  stages?: readonly { name: string; offered_rps: number }[];
  /**
   * A fixed bar the user set (`--lag-limit-ms`): the run's p99 send lag (the highest percentile n supports, lower
   * when n < 459) above it is client-limited too. null or absent: no fixed bar.
   */
  lagLimitMs?: number | null;
}

/** A growable array of lags. */
class Lags {
  values = new Float64Array(64);
  n = 0;
  push(v: number): void {
    if (this.n === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.n++] = v;
  }
}

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
 * assert.equal(t.verdict().send_lag_max_ms, 3);
 * ```
 */
export class RequestTally {
  #offered = 0;
  #lags = new Map<string, Lags>();
  #lagged = 0;
  #notSent = 0;
  #behind = 0;
  #shed = 0;
  #byStage = new Map<string, Map<Outcome, number>>();
  #byOutcome = new Map<Outcome, number>();
  #sorted: Float64Array | null = null;

  /** Counts one batch of rows. */
  add(rows: readonly Pick<RequestRow, "stage" | "outcome" | "error_kind" | "send_lag_ms">[]): void {
    for (const r of rows) this.addRow(r);
  }

  /** Counts one requests row (as {@linkcode RequestTally.add} does for each of its rows). */
  addRow(r: Pick<RequestRow, "stage" | "outcome" | "error_kind" | "send_lag_ms">): void {
    this.#sorted = null;
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
      let l = this.#lags.get(r.stage);
      if (!l) this.#lags.set(r.stage, l = new Lags());
      l.push(r.send_lag_ms);
      this.#lagged++;
    }
  }

  /** Every lag, ascending. */
  #all(): Float64Array {
    if (this.#sorted) return this.#sorted;
    const all = new Float64Array(this.#lagged);
    let i = 0;
    for (const l of this.#lags.values()) {
      all.set(l.values.subarray(0, l.n), i);
      i += l.n;
    }
    return this.#sorted = all.sort();
  }

  /** The counts so far. */
  summary(): RequestSummary {
    return {
      offered: this.#offered,
      byStage: this.#byStage,
      byOutcome: this.#byOutcome,
      lagged: this.#lagged,
      lagFigure: lagFigure(this.#all()),
    };
  }

  /**
   * Did the client keep up? The shared rule's (a) and (b) (lib/client_limit_rule.ts): any not_sent (other than those
   * the stop left: error_kind run_stopped) or client_shed, or a stage whose send lag (at the percentile its n
   * supports, p95 at most) is longer than the mean gap between its planned arrivals; and the user's fixed bar, when
   * one is given. `send_lag_p99_ms` stays the nearest-rank p99 over every lag, as a figure.
   */
  verdict(options: ClientVerdictOptions = {}): ClientVerdict {
    const lags = this.#all();
    const p99 = lags.length ? lags[Math.min(lags.length - 1, Math.ceil(0.99 * lags.length) - 1)]! : null;
    const max = lags.length ? lags[lags.length - 1]! : null;
    const reasons: string[] = [];
    if (this.#behind) reasons.push(`${this.#behind} requests not sent (the runner fell behind its schedule)`);
    if (this.#shed) reasons.push(`${this.#shed} requests shed by the runner's in-flight cap`);
    for (const s of options.stages ?? []) {
      const l = this.#lags.get(s.name);
      if (!l || !(s.offered_rps > 0)) continue;
      const v = stageVerdict({
        offered: l.n,
        not_offered: 0,
        lags: l.values.slice(0, l.n).sort(),
        planned_rps: s.offered_rps,
      });
      if (v.lag?.limited) reasons.push(`stage ${s.name}: ${lagCheckText(v.lag, "gap")}`);
    }
    const bar = options.lagLimitMs ?? null;
    if (bar !== null) {
      const c = lagCheck(lags, bar, FIXED_BAR_PERCENTILE);
      if (c.limited) reasons.push(lagCheckText(c, "(--lag-limit-ms)"));
    }
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
 * @example A stage at 20 req/s (50 ms apart) whose p95 send lag is 60 ms
 * ```ts
 * import { clientVerdict } from "./request_tally.ts";
 * import assert from "node:assert/strict";
 * // 100 lags, 94 of 1 ms and 6 of 60 ms: n = 100 supports p95 (n ≥ 90); the 95th smallest is 60 ms > 50 ms.
 * const rows = Array.from({ length: 100 }, (_, i) => ({
 *   stage: "s", outcome: "ok" as const, error_kind: null, send_lag_ms: i < 94 ? 1 : 60,
 * }));
 * const v = clientVerdict(rows, { stages: [{ name: "s", offered_rps: 20 }] });
 * assert.equal(v.client_limit_reason, "stage s: p95 send lag 60 ms > 50 ms gap (n = 100)");
 * ```
 */
export function clientVerdict(
  rows: readonly Pick<RequestRow, "stage" | "outcome" | "error_kind" | "send_lag_ms">[],
  options: ClientVerdictOptions = {},
): ClientVerdict {
  const t = new RequestTally();
  t.add(rows);
  return t.verdict(options);
}
