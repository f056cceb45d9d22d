import pl from "nodejs-polars";
import { FAILURE_REASONS, type FailureReason, GATES, type SloPolicy } from "../../schema/slo.ts";
import { STOPPED_KINDS } from "../run/run_end_rule.ts";
import { classSlo, type ResolvedWindow } from "./policy.ts";
import { modeLimit, undeclaredMode, withModeSlo } from "./_mode_slo.ts";
import { gateFails, notApplicableMask, requiredColumn } from "./_gates.ts";
import { ATTEMPT_COLUMNS, finalAttemptLazy, streamingExprs } from "./_streaming.ts";

export { ATTEMPT_COLUMNS };

/** The request columns a classification reads. */
export const REQUEST_COLUMNS = [
  "request_id",
  "class",
  "stage",
  "outcome",
  "error_kind",
  "scheduled_ms",
  "first_token_ms",
  "completed_ms",
  "service_mode",
  ...GATES,
  "streamed",
  "applicable_gates",
];

/** Outcomes of a request the runner never sent: shed by the client, or not begun before the run ended. */
export const NOT_SENT_OUTCOMES = ["not_sent", "client_shed"] as const;

/**
 * `sent` and `completed` of a request, from its outcome, the one definition
 * every count uses: sent = the outcome is not one of
 * {@linkcode NOT_SENT_OUTCOMES}; completed = the outcome is `ok`.
 */
export function sentCompletedExprs(): { sent: pl.Expr; completed: pl.Expr } {
  const outcome = pl.col("outcome");
  return { sent: outcome.isIn([...NOT_SENT_OUTCOMES]).not(), completed: outcome.eq(pl.lit("ok")) };
}

/** True when `scheduled_ms` is inside one of the window's half-open intervals. */
export function inWindowExpr(window: ResolvedWindow): pl.Expr {
  return window.intervals
    .map(([a, b]) => pl.col("scheduled_ms").gtEq(a).and(pl.col("scheduled_ms").lt(b)))
    .reduce((x, y) => x.or(y));
}

/**
 * TPOT per request (`request_id`, `tpot_ms`), lazily, as the disclosure's
 * TPOT definition says: the final answered attempt (highest `attempt` with
 * both token times) of the request's last round; null when that attempt was
 * not streamed, has ≤ 1 output token or got every token at one instant, or
 * the last round has no answered attempt. The request's own `streamed` is
 * applied by the classification. Requests without attempts have no row.
 */
export function tpotLazy(attempts: pl.LazyDataFrame): pl.LazyDataFrame {
  return finalAttemptLazy(attempts).select("request_id", "tpot_ms");
}

/**
 * Each class's limits and required gates, keyed by `class`: the classes the
 * policy names. Other classes take the default (`_known` is null for them).
 */
function limitsFrame(policy: SloPolicy): pl.LazyDataFrame {
  const classes = Object.keys(policy.classes);
  const slos = classes.map((c) => classSlo(policy, c));
  return pl.DataFrame([
    pl.Series("class", classes, pl.Utf8),
    pl.Series("_known", classes.map(() => true), pl.Bool),
    pl.Series("_lim_e2e", slos.map((s) => s.e2e_ms ?? null), pl.Float64),
    pl.Series("_lim_ttft", slos.map((s) => s.ttft_ms ?? null), pl.Float64),
    pl.Series("_lim_tpot", slos.map((s) => s.tpot_ms ?? null), pl.Float64),
    ...GATES.map((g) => pl.Series(requiredColumn(g), slos.map((s) => s.gates.includes(g)), pl.Bool)),
  ]).lazy();
}

/** A reason's code: its index in `FAILURE_REASONS` (schema/slo.ts). */
const code = (r: FailureReason) => pl.lit(FAILURE_REASONS.indexOf(r)).cast(pl.UInt8);

/**
 * Per request in the window: `request_id, class, stage, outcome,
 * scheduled_ms, service_mode, e2e_ms, ttft_ms, tpot_ms` (TTFT and TPOT null
 * where not observable, `_streaming.ts`), `streaming` (index in `STREAMING`),
 * `gates_na` (mask of the required gates that passed as n/a, `_gates.ts`),
 * `sent` and `completed` ({@linkcode sentCompletedExprs}) and `reason` as a code (index in `FAILURE_REASONS`, schema/slo.ts; null = accepted).
 * One lazy plan: callers aggregate it or collect it; nothing is read before
 * then. `ordered` keeps the requests' row order (the joins are cheaper
 * without it).
 */
export function classifyLazy(
  requests: pl.LazyDataFrame,
  attempts: pl.LazyDataFrame,
  policy: SloPolicy,
  window: ResolvedWindow,
  ordered = false,
): pl.LazyDataFrame {
  const d = policy.default;
  const maintainOrder = ordered ? "left" : "none";
  // A class the policy does not name takes the default; a null limit is no limit.
  const known = pl.col("_known").fillNull(false);
  // A request served in a declared degraded mode is held to that mode's limits and gates (analysis/goodput/_mode_slo.ts).
  const limit = (name: string, dflt: number | undefined) =>
    modeLimit(name, pl.when(known).then(pl.col(name)).otherwise(pl.lit(dflt ?? null).cast(pl.Float64)));
  /** A limit fails when set and the value is missing or above it (equal to the limit passes). */
  const over = (value: pl.Expr, lim: pl.Expr) => lim.isNotNull().and(value.isNull().or(value.gt(lim)));
  const e2e = pl.col("completed_ms").minus(pl.col("scheduled_ms"));
  const streaming = streamingExprs();
  const outcome = pl.col("outcome");
  // A request the stop cut off after its e2e limit had passed failed by being late, not by the stop's abort
  // (analysis/run/run_end_rule.ts: such a request is decided, in the window): its outcome is not its reason.
  const lateAtStop = outcome.eq(pl.lit("aborted")).and(pl.col("error_kind").isIn([...STOPPED_KINDS]).fillNull(false))
    .and(over(e2e, limit("_lim_e2e", d.e2e_ms)));
  let reason = pl.when(outcome.eq(pl.lit("rejected"))).then(code("rejected"))
    .when(outcome.eq(pl.lit("client_shed"))).then(code("client_shed"))
    .when(outcome.eq(pl.lit("not_sent"))).then(code("not_sent"))
    .when(outcome.eq(pl.lit("timeout"))).then(code("timeout"))
    .when(outcome.neq(pl.lit("ok")).and(lateAtStop.not())).then(code("error"))
    .when(undeclaredMode()).then(code("undeclared_mode"))
    .when(over(e2e, limit("_lim_e2e", d.e2e_ms))).then(code("late_e2e"))
    // TTFT and TPOT limits apply only where the value is observable (streamed); a streamed answer without a first
    // token time cannot be shown to meet a TTFT limit, so it fails it.
    .when(streaming.observable.and(over(streaming.ttft, limit("_lim_ttft", d.ttft_ms)))).then(code("late_ttft"))
    .when(streaming.tpot.isNotNull().and(over(streaming.tpot, limit("_lim_tpot", d.tpot_ms))))
    .then(code("slow_tpot"));
  for (const g of GATES) reason = reason.when(gateFails(policy, g)).then(code(`gate_${g}`));
  const joined = requests
    .select(REQUEST_COLUMNS)
    .filter(inWindowExpr(window))
    .join(finalAttemptLazy(attempts.select(ATTEMPT_COLUMNS)), { on: "request_id", how: "left", maintainOrder })
    .join(limitsFrame(policy), { on: "class", how: "left", maintainOrder });
  return withModeSlo(joined, policy, GATES, maintainOrder)
    .select(
      "request_id",
      "class",
      "stage",
      "outcome",
      "scheduled_ms",
      "service_mode",
      e2e.alias("e2e_ms"),
      streaming.ttft.alias("ttft_ms"),
      streaming.tpot.alias("tpot_ms"),
      pl.when(outcome.eq(pl.lit("ok"))).then(streaming.code).otherwise(pl.lit(null).cast(pl.UInt8))
        .alias("streaming"),
      notApplicableMask(policy).alias("gates_na"),
      sentCompletedExprs().sent.alias("sent"),
      sentCompletedExprs().completed.alias("completed"),
      reason.otherwise(pl.lit(null).cast(pl.UInt8)).alias("reason"),
    );
}
