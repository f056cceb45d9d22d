import pl from "nodejs-polars";
import type { SloPolicy } from "../schema/slo.ts";
import type { FailureReason } from "./classify.ts";
import { classSlo, type ResolvedWindow } from "./policy.ts";
import { modeLimit, modeRequired, undeclaredMode, withModeSlo } from "./_mode_slo.ts";

/** Gates in attribution order (the list `classify.ts` exports as GATE_ORDER). */
export const GATES = ["output_valid", "schema_ok", "quality_ok", "safety_ok", "auth_ok"] as const;

/** Failure reasons in attribution order; a reason's code is its index here. */
export const REASONS: readonly FailureReason[] = [
  "rejected",
  "client_shed",
  "not_sent",
  "timeout",
  "error",
  "undeclared_mode",
  "late_e2e",
  "late_ttft",
  "slow_tpot",
  ...GATES.map((g) => `gate_${g}` as const),
];

/** The request columns a classification reads. */
export const REQUEST_COLUMNS = [
  "request_id",
  "class",
  "stage",
  "outcome",
  "scheduled_ms",
  "first_token_ms",
  "completed_ms",
  "service_mode",
  ...GATES,
];

/** The attempt columns TPOT reads. */
export const ATTEMPT_COLUMNS = ["request_id", "round", "attempt", "first_token_ms", "last_token_ms", "output_tokens"];

/** True when `scheduled_ms` is inside one of the window's half-open intervals. */
export function inWindowExpr(window: ResolvedWindow): pl.Expr {
  return window.intervals
    .map(([a, b]) => pl.col("scheduled_ms").gtEq(a).and(pl.col("scheduled_ms").lt(b)))
    .reduce((x, y) => x.or(y));
}

/**
 * TPOT per request (`request_id`, `tpot_ms`), lazily: the final answered
 * attempt (highest `attempt` with both token times) of the request's last
 * round; null when that attempt has ≤ 1 output token or the last round has
 * no answered attempt. Requests without attempts have no row.
 */
export function tpotLazy(attempts: pl.LazyDataFrame): pl.LazyDataFrame {
  const answered = pl.col("first_token_ms").isNotNull().and(pl.col("last_token_ms").isNotNull());
  // Sorted by (round, answered attempt number, unanswered = -1), the last row of a request is its last round's final
  // answered attempt, or an unanswered one when that round has none. A sort and a keep-last are ~2× faster here than a
  // group-by or window max over 1M string keys (bench/README.md).
  return attempts
    .select(
      pl.col("request_id"),
      pl.col("round"),
      pl.when(answered).then(pl.col("attempt")).otherwise(pl.lit(-1).cast(pl.Int64)).alias("_answered_attempt"),
      pl.when(answered.and(pl.col("output_tokens").gt(1)))
        .then(
          pl.col("last_token_ms").minus(pl.col("first_token_ms"))
            .div(pl.col("output_tokens").minus(1).cast(pl.Float64)),
        )
        .otherwise(pl.lit(null).cast(pl.Float64))
        .alias("tpot_ms"),
    )
    .sort(["request_id", "round", "_answered_attempt"])
    .unique({ subset: ["request_id"], keep: "last", maintainOrder: true })
    .select("request_id", "tpot_ms");
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
    ...GATES.map((g) => pl.Series(`_req_${g}`, slos.map((s) => s.gates.includes(g)), pl.Bool)),
  ]).lazy();
}

const code = (r: FailureReason) => pl.lit(REASONS.indexOf(r)).cast(pl.UInt8);

/**
 * Per request in the window: `request_id, class, stage, outcome,
 * scheduled_ms, service_mode, e2e_ms, ttft_ms, tpot_ms` and `reason` as a code (index in
 * {@linkcode REASONS}; null = accepted). One lazy plan: callers aggregate it
 * or collect it; nothing is read before then. `ordered` keeps the requests'
 * row order (the joins are cheaper without it).
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
  // A request served in a declared degraded mode is held to that mode's limits and gates (analysis/_mode_slo.ts).
  const limit = (name: string, dflt: number | undefined) =>
    modeLimit(name, pl.when(known).then(pl.col(name)).otherwise(pl.lit(dflt ?? null).cast(pl.Float64)));
  const required = (g: (typeof GATES)[number]) =>
    modeRequired(g, pl.when(known).then(pl.col(`_req_${g}`)).otherwise(pl.lit(d.gates.includes(g))));
  /** A limit fails when set and the value is missing or above it (equal to the limit passes). */
  const over = (value: pl.Expr, lim: pl.Expr) => lim.isNotNull().and(value.isNull().or(value.gt(lim)));
  const e2e = pl.col("completed_ms").minus(pl.col("scheduled_ms"));
  const ttft = pl.col("first_token_ms").minus(pl.col("scheduled_ms"));
  const outcome = pl.col("outcome");
  let reason = pl.when(outcome.eq(pl.lit("rejected"))).then(code("rejected"))
    .when(outcome.eq(pl.lit("client_shed"))).then(code("client_shed"))
    .when(outcome.eq(pl.lit("not_sent"))).then(code("not_sent"))
    .when(outcome.eq(pl.lit("timeout"))).then(code("timeout"))
    .when(outcome.neq(pl.lit("ok"))).then(code("error"))
    .when(undeclaredMode()).then(code("undeclared_mode"))
    .when(over(e2e, limit("_lim_e2e", d.e2e_ms))).then(code("late_e2e"))
    .when(over(ttft, limit("_lim_ttft", d.ttft_ms))).then(code("late_ttft"))
    .when(pl.col("tpot_ms").isNotNull().and(over(pl.col("tpot_ms"), limit("_lim_tpot", d.tpot_ms))))
    .then(code("slow_tpot"));
  for (const g of GATES) reason = reason.when(required(g).and(pl.col(g).fillNull(false).not())).then(code(`gate_${g}`));
  const joined = requests
    .select(REQUEST_COLUMNS)
    .filter(inWindowExpr(window))
    .join(tpotLazy(attempts.select(ATTEMPT_COLUMNS)), { on: "request_id", how: "left", maintainOrder })
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
      ttft.alias("ttft_ms"),
      "tpot_ms",
      reason.otherwise(pl.lit(null).cast(pl.UInt8)).alias("reason"),
    );
}
