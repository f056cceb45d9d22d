/**
 * The contract's per-request definitions as SQL: the final answered attempt
 * and TPOT, streaming and what it makes observable, e2e and TTFT, each
 * request's latency limits and required gates under an SLO policy (its class,
 * or the default; its degraded mode's when declared), the gates passed as
 * n/a, `sent`, `completed` and the first failing reason — the rules of
 * analysis/goodput/ (`_classify_lazy.ts`, `_streaming.ts`, `_gates.ts`,
 * `_mode_slo.ts`) written as common table expressions over two tables,
 * `requests` and `attempts`, with the contract's columns.
 *
 * The text is portable SQL (docs/sql.md): CASE, COALESCE, POSITION, CAST,
 * max_by and the usual aggregates; the policy and the window are inlined as
 * literals.
 *
 * @module
 */
import { type ClassSlo, FAILURE_REASONS, type Gate, GATES, type SloPolicy } from "../../schema/slo.ts";
import { declaredModes } from "../goodput/declared_modes.ts";
import type { ResolvedWindow } from "../goodput/policy.ts";
import { STREAMING } from "../goodput/streaming_rules.ts";
import { STOPPED_KINDS } from "../run/run_end_rule.ts";
import { sqlBool, sqlDouble, sqlDoubleOrNull, sqlString } from "./_sql_text.ts";

/** The SLO metrics a limit applies to. */
export type SloMetric = "e2e_ms" | "ttft_ms" | "tpot_ms";

/**
 * Attempt numbers the final-attempt key can order: `round · 10⁶ + attempt + 1`
 * must order (round, attempt) pairs as the polars path's sort does, so an
 * attempt number must be below 999,999 (the run's checks refuse a log that
 * has one, analysis/sql/sql_run.ts).
 */
export const MAX_ATTEMPT = 999_998;

/** `request_id`, the final answered attempt's TPOT and streamed flag, per request with attempts. */
function finalAttemptSql(): string {
  const answered = "(first_token_ms IS NOT NULL AND last_token_ms IS NOT NULL)";
  // A 1.0 attempt that does not record `streamed` is not streamed when a whole body came at once (_streaming.ts).
  const wholeBody = `(${answered} AND first_token_ms = last_token_ms AND itl_p50_ms IS NULL AND output_tokens >= 2)`;
  const streamed = `COALESCE(streamed, NOT ${wholeBody})`;
  const tpot = `CASE WHEN ${answered} AND ${streamed} AND output_tokens > 1 AND last_token_ms > first_token_ms ` +
    "THEN (last_token_ms - first_token_ms) / CAST(output_tokens - 1 AS DOUBLE) END";
  // max_by skips a NULL value in some engines: TPOT (> 0 when defined) and the flag travel as non-null codes.
  return [
    "SELECT",
    "  request_id,",
    "  max_by(tpot_code, order_key) AS tpot_code,",
    "  max_by(streamed_code, order_key) AS streamed_code",
    "FROM (",
    "  SELECT",
    "    request_id,",
    `    CAST(round AS BIGINT) * 1000000 + CASE WHEN ${answered} THEN attempt + 1 ELSE 0 END AS order_key,`,
    `    COALESCE(${tpot}, -1E0) AS tpot_code,`,
    `    CASE WHEN ${answered} THEN CASE WHEN ${streamed} THEN 1 ELSE 0 END ELSE -1 END AS streamed_code`,
    "  FROM attempts",
    ") AS a",
    "GROUP BY request_id",
  ].join("\n");
}

/** True when `scheduled_ms` is in one of the window's half-open intervals. */
export function inWindowSql(window: Pick<ResolvedWindow, "intervals">, column = "scheduled_ms"): string {
  return window.intervals.map(([a, b]) => `(${column} >= ${sqlDouble(a)} AND ${column} < ${sqlDouble(b)})`)
    .join(" OR ");
}

/**
 * The window's requests joined with their final attempt, with the streaming
 * and latency columns every definition uses: `observable`, `e2e_ms`,
 * `ttft_ms`, `tpot_ms` (TTFT/TPOT null when not observable), `streaming` (a
 * `STREAMING` name), `sent`, `completed`.
 */
function measuredSql(window: Pick<ResolvedWindow, "intervals">): string {
  const attStreamed = "CASE f.streamed_code WHEN 1 THEN TRUE WHEN 0 THEN FALSE END";
  const observable = `COALESCE(r.streamed, ${attStreamed}, TRUE)`;
  const [streamed, notStreamed, assumed, inferred] = STREAMING.map(sqlString);
  return [
    "SELECT",
    "  r.request_id, r.class, r.stage, r.outcome, r.scheduled_ms, r.service_mode, r.applicable_gates,",
    `  ${GATES.map((g) => `r.${g}`).join(", ")},`,
    `  ${observable} AS observable,`,
    "  r.completed_ms - r.scheduled_ms AS e2e_ms,",
    `  CASE WHEN ${observable} THEN r.first_token_ms - r.scheduled_ms END AS ttft_ms,`,
    `  CASE WHEN ${observable} AND f.tpot_code >= 0 THEN f.tpot_code END AS tpot_ms,`,
    `  CASE WHEN r.streamed = TRUE THEN ${streamed} WHEN r.streamed = FALSE THEN ${notStreamed}`,
    `    WHEN f.streamed_code = 0 THEN ${inferred} ELSE ${assumed} END AS streaming,`,
    "  r.outcome NOT IN ('not_sent', 'client_shed') AS sent,",
    "  r.outcome = 'ok' AS completed,",
    `  (r.outcome = 'aborted' AND COALESCE(r.error_kind IN (${STOPPED_KINDS.map(sqlString).join(", ")}), FALSE))`,
    "    AS stopped",
    "FROM (",
    "  SELECT request_id, class, stage, outcome, error_kind, scheduled_ms, first_token_ms, completed_ms, service_mode,",
    `    ${GATES.join(", ")}, streamed, applicable_gates`,
    "  FROM requests",
    `  WHERE ${inWindowSql(window)}`,
    ") AS r",
    "LEFT JOIN final_attempt AS f ON f.request_id = r.request_id",
  ].join("\n");
}

/**
 * A CASE over the request's class and service mode giving what `pick` reads
 * from the SLO it is held to: its class's (or the default's), or, when it was
 * served in a mode the policy declares for that class, the mode's.
 */
function sloCase(policy: SloPolicy, pick: (slo: ClassSlo) => string, declaredPick = pick): string {
  const modes = declaredModes(policy);
  const lines: string[] = [];
  const modeLines = (key: string | null) => {
    for (const d of modes.filter((m) => m.key === key)) {
      const cls = key === null ? "" : `class = ${sqlString(key)} AND `;
      lines.push(`WHEN ${cls}service_mode = ${sqlString(d.mode)} THEN ${declaredPick(d.slo)}`);
    }
  };
  for (const [name, slo] of Object.entries(policy.classes)) {
    modeLines(name);
    lines.push(`WHEN class = ${sqlString(name)} THEN ${pick(slo)}`);
  }
  modeLines(null);
  return lines.length ? `CASE ${lines.join(" ")} ELSE ${pick(policy.default)} END` : pick(policy.default);
}

/** Whether gate `g` applies to the request: listed in `applicable_gates`, or applicability not recorded (1.0). */
const applies = (g: Gate) => `(applicable_gates IS NULL OR POSITION(${sqlString(g)} IN applicable_gates) > 0)`;

/**
 * Per request of the window, on top of `measured`: `mode_declared`, the
 * limits `lim_e2e`, `lim_ttft`, `lim_tpot` (null: none), `req_<gate>`.
 */
function limitsSql(policy: SloPolicy): string {
  const limit = (m: SloMetric) => sloCase(policy, (s) => sqlDoubleOrNull(s[m]));
  const required = (g: Gate) => sloCase(policy, (s) => sqlBool(s.gates.includes(g)));
  const declared = sloCase(policy, () => "FALSE", () => "TRUE");
  return [
    "SELECT",
    "  measured.*,",
    `  ${declared} AS mode_declared,`,
    `  ${limit("e2e_ms")} AS lim_e2e,`,
    `  ${limit("ttft_ms")} AS lim_ttft,`,
    `  ${limit("tpot_ms")} AS lim_tpot,`,
    GATES.map((g) => `  ${required(g)} AS req_${g}`).join(",\n"),
    "FROM measured",
  ].join("\n");
}

/** A limit fails when set and the value is missing or above it (equal passes). */
const over = (value: string, lim: string) => `(${lim} IS NOT NULL AND (${value} IS NULL OR ${value} > ${lim}))`;

/**
 * Per request of the window: `reason`, the first failing reason's name
 * (`FAILURE_REASONS` order; null = accepted), and `na_<gate>`: a completed
 * request's required gate that does not apply to it (passed as n/a).
 */
function classifiedSql(): string {
  const outcomeReasons = ["rejected", "client_shed", "not_sent", "timeout"].map((o) =>
    `WHEN outcome = ${sqlString(o)} THEN ${sqlString(o)}`
  );
  const gateReasons = GATES.map((g) =>
    `WHEN req_${g} AND ${applies(g)} AND NOT COALESCE(${g}, FALSE) THEN ${sqlString(`gate_${g}`)}`
  );
  const reasons = [
    ...outcomeReasons,
    // A request the stop cut off after its e2e limit had passed failed by being late (run_end_rule.ts).
    `WHEN outcome <> 'ok' AND NOT (stopped AND ${over("e2e_ms", "lim_e2e")}) THEN 'error'`,
    "WHEN service_mode IS NOT NULL AND NOT mode_declared THEN 'undeclared_mode'",
    `WHEN ${over("e2e_ms", "lim_e2e")} THEN 'late_e2e'`,
    `WHEN observable AND ${over("ttft_ms", "lim_ttft")} THEN 'late_ttft'`,
    `WHEN tpot_ms IS NOT NULL AND ${over("tpot_ms", "lim_tpot")} THEN 'slow_tpot'`,
    ...gateReasons,
  ];
  return [
    "SELECT",
    "  request_id, class, stage, outcome, scheduled_ms, service_mode, e2e_ms, ttft_ms, tpot_ms,",
    "  CASE WHEN completed THEN streaming END AS streaming,",
    "  sent, completed,",
    GATES.map((g) => `  (completed AND req_${g} AND NOT ${applies(g)}) AS na_${g},`).join("\n"),
    `  CASE\n${reasons.map((r) => `    ${r}`).join("\n")}\n  END AS reason`,
    "FROM limited",
  ].join("\n");
}

/**
 * The common table expressions `final_attempt` and `measured`: the window's
 * requests with their streaming and latency columns, independent of any SLO
 * (the latency percentiles read these).
 */
export function measuredCtes(window: Pick<ResolvedWindow, "intervals">): [string, string][] {
  return [["final_attempt", finalAttemptSql()], ["measured", measuredSql(window)]];
}

/**
 * The common table expressions of the classification under `policy` in
 * `window`; the last, `classified`, has one row per request scheduled in the
 * window: `request_id, class, stage, outcome, scheduled_ms, service_mode,
 * e2e_ms, ttft_ms, tpot_ms, streaming` (how a completed request was streamed; null for
 * the others) `, sent, completed, na_<gate>…, reason`.
 *
 * @example The reason codes are the contract's failure reasons
 * ```ts
 * import assert from "node:assert/strict";
 * import { classifyCtes } from "./classify_sql.ts";
 * const ctes = classifyCtes({ denominator: "offered", window: { exclude_stage_kinds: [] }, classes: {},
 *   default: { e2e_ms: 5000, gates: ["output_valid"] } }, { intervals: [[0, 60_000]] });
 * assert.deepEqual(ctes.map(([name]) => name), ["final_attempt", "measured", "limited", "classified"]);
 * assert.match(ctes[3]![1], /THEN 'late_e2e'/);
 * ```
 */
export function classifyCtes(policy: SloPolicy, window: Pick<ResolvedWindow, "intervals">): [string, string][] {
  return [...measuredCtes(window), ["limited", limitsSql(policy)], ["classified", classifiedSql()]];
}

/** Every failure reason the classification can give, in attribution order (the contract's). */
export const SQL_REASONS = FAILURE_REASONS;
