import pl from "nodejs-polars";
import { FAILURE_REASONS, type FailureReason, type Gate, GATES, type SloPolicy } from "../../schema/slo.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import { policyForRun, type ResolvedWindow } from "./policy.ts";
import { classifyLazy, tpotLazy } from "./_classify_lazy.ts";
import { STREAMING } from "./_streaming.ts";
import { refuseMeasuredQuality } from "./quality_source.ts";

export type { FailureReason };

/** Gates in attribution order (`GATES` of the contract, schema/slo.ts). */
export const GATE_ORDER: readonly Gate[] = GATES;

/** Failure reasons in attribution order: a request counts under the first that applies (`FAILURE_REASONS`, schema/slo.ts). */
export const FAILURE_ORDER: readonly FailureReason[] = FAILURE_REASONS;

/** Outcomes attributed to `error`. */
export const ERROR_OUTCOMES = ["http_error", "transport_error", "invalid_response", "aborted"] as const;

/**
 * TPOT per request from `attempts`: the final answered attempt (highest
 * `attempt` with both token times) of the request's last round;
 * (last_token_ms − first_token_ms) / (output_tokens − 1), null when that
 * attempt was not streamed (a 1.0 attempt: inferred from a whole body
 * arriving at once), has ≤ 1 output token or got every token at one instant,
 * or the last round has no answered attempt. One row per request that has
 * attempts (`request_id`, `tpot_ms`); the request's own `streamed` is
 * applied by {@linkcode classify}.
 */
export function tpotFrame(attempts: pl.DataFrame): pl.DataFrame {
  return tpotLazy(attempts.lazy()).collectSync();
}

/**
 * One row per request scheduled in the window (by `scheduled_ms`), with its
 * `service_mode`, `e2e_ms`, `ttft_ms`, `tpot_ms`, `streaming` (how the completed request was
 * streamed: `streamed`, `not_streamed`, or for a 1.0 log `assumed_streamed` /
 * `inferred_not_streamed`; null when it did not complete), `gates_na` (the
 * required gates that passed as not applicable, comma-separated; null when
 * none), the booleans `sent`, `completed`, `accepted`, and `reason`: the
 * first failing {@linkcode FailureReason} (null when accepted), in the
 * requests' row order. Built with polars expressions; inputs are not changed.
 *
 * TTFT and TPOT are null for a request that was not streamed (not
 * observable) and their limits do not apply to it; a missing `completed_ms`,
 * or a missing `first_token_ms` on a streamed `ok` request, fails a set e2e
 * or TTFT limit (it cannot be shown to meet it); an undefined TPOT makes the
 * TPOT limit not applicable. A required gate fails when it applies to the
 * request and is not true; one that does not apply passes (n/a). A request
 * served in a degraded mode is held to that mode's SLO; an undeclared mode
 * fails (`undeclared_mode`; see analysis/goodput/_mode_slo.ts).
 */
export function classify(run: LoadedRun, policy: SloPolicy, window: ResolvedWindow): pl.DataFrame {
  policy = policyForRun(policy, run, "classify() policy");
  refuseMeasuredQuality(policy, "classify() policy");
  let reason = pl.when(pl.col("reason").isNull()).then(pl.lit(null).cast(pl.Utf8));
  for (const [i, r] of FAILURE_ORDER.entries()) reason = reason.when(pl.col("reason").eq(pl.lit(i))).then(pl.lit(r));
  let streaming = pl.when(pl.col("streaming").isNull()).then(pl.lit(null).cast(pl.Utf8));
  for (const [i, s] of STREAMING.entries()) {
    streaming = streaming.when(pl.col("streaming").eq(pl.lit(i))).then(pl.lit(s));
  }
  const mask = pl.col("gates_na");
  const na = pl.concatString(
    GATE_ORDER.map((g, i) =>
      pl.when(mask.and(pl.lit(1 << i).cast(pl.UInt8)).neq(pl.lit(0))).then(pl.lit(g)).otherwise(pl.lit(null))
    ),
    ",",
    true,
  );
  return classifyLazy(run.requests.lazy(), run.attempts.lazy(), policy, window, true)
    .select(
      // classifyLazy's columns, in its order, then the booleans, then the reason code as text.
      pl.exclude("reason", "streaming", "gates_na", "sent", "completed"),
      streaming.otherwise(pl.lit(null).cast(pl.Utf8)).alias("streaming"),
      pl.when(mask.eq(pl.lit(0))).then(pl.lit(null).cast(pl.Utf8)).otherwise(na).alias("gates_na"),
      pl.col("sent"),
      pl.col("completed"),
      pl.col("reason").isNull().alias("accepted"),
      reason.otherwise(pl.lit(null).cast(pl.Utf8)).alias("reason"),
    )
    .collectSync();
}
