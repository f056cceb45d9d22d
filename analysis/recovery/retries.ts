/**
 * Retries: amplification, budget consumed, the share of capacity spent on
 * retries, and retries that the policy forbids, flagged as defects.
 *
 * @module
 */
import pl from "nodejs-polars";
import type { LoadedRun } from "../run/loaded_run.ts";
import { runnerManifest } from "../run/imported_run.ts";

/** Validation and authorization statuses: never worth retrying. */
export const NEVER_RETRY_STATUSES: readonly number[] = [400, 401, 403, 404, 422];
/** Attempt error kinds the runner never retries (the request itself is wrong or not allowed). */
export const NEVER_RETRY_KINDS: readonly string[] = ["invalid_request", "unauthorized", "forbidden", "validation"];
/** The error_kind of an attempt row the route's own limit held back until the deadline: no HTTP call was made. */
export const HELD_BACK_KIND = "route_limit_wait";

/** How the report counts, stated in its rules and in docs/recovery.md. */
export const RETRY_DEFINITION =
  "a retry is a sent attempt after the first of its (request_id, round), as run.json result.retries counts it: an " +
  `attempt row with error_kind ${HELD_BACK_KIND} (held back by its route's limit, no HTTP call) is not an attempt ` +
  "and not a retry (counted apart as held_back); tool rounds are not retries";

/** A retry the policy forbids: the attempt that was retried, and why that was wrong. */
export interface RetryDefect {
  request_id: string;
  round: number;
  /** The attempt that failed and was retried anyway. */
  attempt: number;
  sent_ms: number;
  http_status: number | null;
  error_kind: string | null;
  retry_reason: string | null;
  why: string;
}

/** The result of {@linkcode retries}. */
export interface RetryResult {
  rules: string[];
  offered: number;
  /** Every HTTP call in the log (tool rounds and retries included): attempt rows, less the held-back ones. */
  attempts: number;
  /** Sent first attempts of each (request, round): the calls needed without any retry. */
  first_attempts: number;
  /** attempts − first_attempts: sent attempts after the first of their (request, round), as run.json `result.retries`. */
  retries: number;
  /** Attempt rows the route's limit held back (error_kind `route_limit_wait`): never sent, neither attempts nor retries. */
  held_back: number;
  /** attempts ÷ offered (tool rounds raise it too). */
  amplification: number | null;
  /** attempts ÷ first_attempts: the extra load retries alone add. */
  retry_amplification: number | null;
  budget: {
    budget_min: number;
    budget_ratio: number;
    max_attempts: number;
    /** Round-0 first attempts, sent or held back (the runner counts one when it is due): what the budget grows with. */
    budget_base: number;
    /** floor(budget_min + budget_ratio × budget_base): the budget at the end of the run. */
    allowed: number;
    /** retries ÷ allowed. */
    consumed: number | null;
    /** run.json result.retries and result.retry_budget_exhausted (the runner's own counts). */
    manifest_retries: number;
    manifest_exhausted: number;
    /** Requests whose final error_kind says the budget refused their retry, and the first one's scheduled_ms. */
    exhausted_requests: number;
    first_exhausted_ms: number | null;
  };
  /** Share of attempts, of attempt time (sent → end) and of tokens that went to retries. */
  capacity: {
    attempts: number | null;
    busy_ms: number | null;
    input_tokens: number | null;
    output_tokens: number | null;
  };
  /** Retried attempts by retry_reason. */
  by_reason: Record<string, number>;
  /** Requests with at least one retry, and how many of them ended ok. */
  retried_requests: number;
  retried_requests_ok: number;
  defects: RetryDefect[];
}

const share = (a: number, b: number) => (b > 0 ? a / b : null);

/**
 * Retry accounting of a run from its attempts table and run.json `retry`.
 * A retry is a sent attempt after the first of its (request, round), as
 * the runner counts it ({@linkcode RETRY_DEFINITION}): rows the route's
 * limit held back are counted apart and left out of everything else but
 * the budget base. The attempt a retry follows is the one that was
 * retried. Pure: frames are not changed.
 *
 * @example Amplification and defects of a run
 * ```ts ignore
 * const r = retries(await loadRun("out/run-1"));
 * console.log(r.retry_amplification, r.defects.length);
 * ```
 */
export function retries(run: LoadedRun): RetryResult {
  const m = runnerManifest(run, "the retry analysis (the runner's retry policy and budget)");
  const p = m.retry;
  const heldBack = pl.col("error_kind").eq(pl.lit(HELD_BACK_KIND)).fillNull(false);
  const held = run.attempts.filter(heldBack).height;
  // The runner grows the budget with every round-0 first attempt when it is due, before the route's limit is asked.
  const budgetBase = run.attempts
    .filter(pl.col("round").eq(0).and(pl.col("attempt").eq(pl.col("attempt").min().over("request_id", "round"))))
    .height;
  const a = run.attempts.filter(heldBack.not()).withColumns(
    pl.col("attempt").min().over("request_id", "round").alias("_first"),
    pl.col("attempt").max().over("request_id", "round").alias("_last"),
    pl.col("attempt").count().over("request_id", "round").alias("_n"),
    pl.col("completed_ms").fillNull(pl.col("last_token_ms")).fillNull(pl.col("headers_ms")).fillNull(pl.col("sent_ms"))
      .minus(pl.col("sent_ms")).alias("_busy"),
  );
  const isRetry = pl.col("attempt").gt(pl.col("_first"));
  const retryRows = a.filter(isRetry);
  const sum = (df: pl.DataFrame, c: string) => (df.height ? Number(df.getColumn(c).sum()) : 0);
  const attempts = a.height, retryCount = retryRows.height, first = attempts - retryCount;
  const allowed = Math.floor(p.budget_min + p.budget_ratio * budgetBase);

  const exhausted = run.requests.filter(pl.col("error_kind").str.contains("retry_budget_exhausted"));
  const retried = a.filter(pl.col("attempt").lt(pl.col("_last")));
  const by_reason: Record<string, number> = {};
  for (const r of retried.select(pl.col("retry_reason").fillNull("(none)")).getColumn("retry_reason").toArray()) {
    by_reason[r as string] = (by_reason[r as string] ?? 0) + 1;
  }
  const retriedIds = retryRows.select("request_id").unique();
  const retriedOk = run.requests.join(retriedIds, { on: "request_id", how: "inner" })
    .filter(pl.col("outcome").eq(pl.lit("ok"))).height;

  return {
    rules: [
      RETRY_DEFINITION,
      "the retried attempt is any sent attempt followed by another sent one in its (request_id, round); defects are " +
      "judged on it",
      `defect: a retried attempt with a validation/authorization status (${NEVER_RETRY_STATUSES.join(", ")}) or ` +
      `error_kind (${NEVER_RETRY_KINDS.join(", ")}), or (unless retry_reason is fallback:…) a status outside ` +
      `run.json retry.retry_statuses [${p.retry_statuses.join(", ")}], or a transport error when ` +
      `retry_transport_errors is ${p.retry_transport_errors}` + (p.retry_transport_errors ? " (allowed)" : "") +
      `; and any (request, round) with more than max_attempts = ${p.max_attempts} attempts`,
      "budget allowed = floor(budget_min + budget_ratio × round-0 first attempts, held back or not), as the runner " +
      "computes it",
      "busy_ms of an attempt = (completed_ms, else last_token_ms, else headers_ms, else sent_ms) − sent_ms",
    ],
    offered: run.requests.height,
    attempts,
    first_attempts: first,
    retries: retryCount,
    held_back: held,
    amplification: share(attempts, run.requests.height),
    retry_amplification: share(attempts, first),
    budget: {
      budget_min: p.budget_min,
      budget_ratio: p.budget_ratio,
      max_attempts: p.max_attempts,
      budget_base: budgetBase,
      allowed,
      consumed: share(retryCount, allowed),
      manifest_retries: m.result.retries,
      manifest_exhausted: m.result.retry_budget_exhausted,
      exhausted_requests: exhausted.height,
      first_exhausted_ms: exhausted.height ? Number(exhausted.getColumn("scheduled_ms").min()) : null,
    },
    capacity: {
      attempts: share(retryCount, attempts),
      busy_ms: share(sum(retryRows, "_busy"), sum(a, "_busy")),
      input_tokens: share(sum(retryRows, "input_tokens"), sum(a, "input_tokens")),
      output_tokens: share(sum(retryRows, "output_tokens"), sum(a, "output_tokens")),
    },
    by_reason,
    retried_requests: retriedIds.height,
    retried_requests_ok: retriedOk,
    defects: defects(retried, a.filter(pl.col("_n").gt(p.max_attempts)), run),
  };
}

function defects(retried: pl.DataFrame, overCap: pl.DataFrame, run: LoadedRun): RetryDefect[] {
  const p = runnerManifest(run, "the retry analysis").retry;
  const out: RetryDefect[] = [];
  const row = (r: Record<string, unknown>, why: string): RetryDefect => ({
    request_id: String(r.request_id),
    round: Number(r.round),
    attempt: Number(r.attempt),
    sent_ms: Number(r.sent_ms),
    http_status: r.http_status === null ? null : Number(r.http_status),
    error_kind: (r.error_kind as string | null) ?? null,
    retry_reason: (r.retry_reason as string | null) ?? null,
    why,
  });
  for (const r of retried.toRecords()) {
    const status = r.http_status === null ? null : Number(r.http_status);
    const kind = (r.error_kind as string | null)?.split("+")[0] ?? null;
    const fallback = String(r.retry_reason ?? "").startsWith("fallback:");
    let why: string | null = null;
    if (status !== null && NEVER_RETRY_STATUSES.includes(status)) {
      why = `HTTP ${status} is a validation or authorization error: never retried`;
    } else if (kind !== null && NEVER_RETRY_KINDS.includes(kind)) {
      why = `error_kind ${kind} is never retried`;
    } else if (!fallback && status !== null && !p.retry_statuses.includes(status)) {
      why = `HTTP ${status} is not in run.json retry.retry_statuses`;
    } else if (!fallback && status === null && !p.retry_transport_errors) {
      why = "transport errors are not retried under run.json retry.retry_transport_errors = false";
    }
    if (why) out.push(row(r, why));
  }
  const seen = new Set<string>();
  for (const r of overCap.filter(pl.col("attempt").eq(pl.col("_last"))).toRecords()) {
    const k = `${r.request_id}/${r.round}`;
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(row(r, `${Number(r._n)} attempts in one round exceed max_attempts = ${p.max_attempts}`));
  }
  return out.sort((x, y) => x.sent_ms - y.sent_ms);
}
