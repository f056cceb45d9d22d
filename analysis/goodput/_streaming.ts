/**
 * Streaming semantics, shared by the classification, the latency table and
 * the figures: which answers have an observable TTFT and TPOT, TPOT itself,
 * and the definitions as the disclosure states them.
 *
 * @module
 */
import pl from "nodejs-polars";
import { STREAMING, type Streaming, STREAMING_RULE, TPOT_DEFINITION, TTFT_DEFINITION } from "./streaming_rules.ts";

/** The attempt columns TPOT and the streaming inference read. */
export const ATTEMPT_COLUMNS = [
  "request_id",
  "round",
  "attempt",
  "first_token_ms",
  "last_token_ms",
  "output_tokens",
  "itl_p50_ms",
  "streamed",
];

export { STREAMING, type Streaming, STREAMING_RULE, TPOT_DEFINITION, TTFT_DEFINITION };

const col = pl.col;

/** An attempt that got its tokens: both token times set. */
const answered = col("first_token_ms").isNotNull().and(col("last_token_ms").isNotNull());

/** The whole-body signature of a 1.0 attempt: first = last token time, no inter-token gap, ≥ 2 tokens. */
const wholeBody = answered
  .and(col("first_token_ms").eq(col("last_token_ms")))
  .and(col("itl_p50_ms").isNull())
  .and(col("output_tokens").gtEq(2));

/**
 * Per request with attempts (`request_id`, `tpot_ms`, `_att_streamed`), lazily,
 * from the final answered attempt (highest `attempt` with both token times)
 * of the request's last round: `_att_streamed` is that attempt's `streamed`
 * (a 1.0 attempt's is inferred: not streamed with the whole-body signature),
 * null when the last round has no answered attempt; `tpot_ms` as
 * {@linkcode TPOT_DEFINITION} says, before the request's own `streamed` is
 * applied (see {@linkcode streamingExprs}).
 */
export function finalAttemptLazy(attempts: pl.LazyDataFrame): pl.LazyDataFrame {
  const streamed = col("streamed").fillNull(wholeBody.not());
  // Sorted by (round, answered attempt number, unanswered = -1), the last row of a request is its last round's final
  // answered attempt, or an unanswered one when that round has none. A sort and a keep-last are ~2× faster here than a
  // group-by or window max over 1M string keys (bench/README.md).
  return attempts
    .select(
      col("request_id"),
      col("round"),
      pl.when(answered).then(col("attempt")).otherwise(pl.lit(-1).cast(pl.Int64)).alias("_answered_attempt"),
      pl.when(
        answered.and(streamed).and(col("output_tokens").gt(1)).and(col("last_token_ms").gt(col("first_token_ms"))),
      )
        .then(
          col("last_token_ms").minus(col("first_token_ms"))
            .div(col("output_tokens").minus(1).cast(pl.Float64)),
        )
        .otherwise(pl.lit(null).cast(pl.Float64))
        .alias("tpot_ms"),
      pl.when(answered).then(streamed).otherwise(pl.lit(null).cast(pl.Bool)).alias("_att_streamed"),
    )
    .sort(["request_id", "round", "_answered_attempt"])
    .unique({ subset: ["request_id"], keep: "last", maintainOrder: true })
    .select("request_id", "tpot_ms", "_att_streamed");
}

/** Whether the request was streamed: recorded (1.1), else its final answered attempt's (inferred in 1.0); null = unknown. */
const streamedExpr = col("streamed").fillNull(col("_att_streamed"));

/**
 * The per-request streaming expressions over a requests frame joined with
 * {@linkcode finalAttemptLazy} (columns `streamed`, `first_token_ms`,
 * `scheduled_ms`, `tpot_ms`, `_att_streamed`):
 * - `observable`: TTFT and TPOT can be observed (streamed; unknown = the 1.0 rule, streamed);
 * - `ttft`: first_token_ms − scheduled_ms when observable, else null;
 * - `tpot`: the final attempt's TPOT when observable, else null;
 * - `code`: the request's {@linkcode STREAMING} index (assumed streamed when nothing says otherwise).
 */
export function streamingExprs(): { observable: pl.Expr; ttft: pl.Expr; tpot: pl.Expr; code: pl.Expr } {
  const observable = streamedExpr.fillNull(true);
  const ttft = pl.when(observable).then(col("first_token_ms").minus(col("scheduled_ms")))
    .otherwise(pl.lit(null).cast(pl.Float64));
  const tpot = pl.when(observable).then(col("tpot_ms")).otherwise(pl.lit(null).cast(pl.Float64));
  const code = (s: Streaming) => pl.lit(STREAMING.indexOf(s)).cast(pl.UInt8);
  const recorded = col("streamed");
  const codeExpr = pl.when(recorded.eq(pl.lit(true))).then(code("streamed"))
    .when(recorded.eq(pl.lit(false))).then(code("not_streamed"))
    .when(col("_att_streamed").eq(pl.lit(false))).then(code("inferred_not_streamed"))
    .otherwise(code("assumed_streamed"));
  return { observable, ttft, tpot, code: codeExpr };
}
