/**
 * A recorded task's rows in the contract's tables (requests, attempts, tools, phases): where each definition of
 * docs/recorder.md is computed. Pure: the task's state and the run's context in, rows out.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { AttemptRow, type Outcome, PhaseRow, RequestRow, ToolRow } from "../schema/events.ts";
import { ROW_CHECKS } from "../schema/column_kinds.ts";
import type { AttemptState } from "./attempt.ts";
import { pagePhases, toService } from "./page_join.ts";
import type { TaskState } from "./task.ts";
import type { TaskRows } from "./types.ts";

/** What building a task's rows needs from its recorder. */
export interface RowContext {
  run_id: string;
  /** ms 0 of the run, ms since the Unix epoch. */
  epoch_ms: number;
  /** requests.route / attempts.route / provider / model when nothing names one. */
  route: string;
  provider: string;
  model: string;
  /** The length of a stage window, ms. */
  stage_ms: number;
  /** Now (service clock, ms since the Unix epoch): the last window a task can be in. */
  now: number;
  /** Why a task still open is written now (null: it ended). */
  unfinished: "unfinished_timeout" | "unfinished_at_close" | null;
}

/** sha256 of a text's UTF-8 bytes, hex. */
export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** The name of stage window `i` (`w0000`, `w0001`, …). */
export function stageName(i: number): string {
  return `w${String(i).padStart(4, "0")}`;
}

/** The stage window of an instant on the run's clock: floor(t / window), kept within [0, the window of now]. */
export function stageIndex(t: number, stageMs: number, nowMs: number): number {
  const last = Math.max(0, Math.floor(nowMs / stageMs));
  return Math.min(last, Math.max(0, Math.floor(t / stageMs)));
}

/** The user action of a task on the service clock: the page's action when joined, else `TaskStart.at`, else `begin`. */
export function actionTime(s: TaskState): number {
  return s.page ? toService(s.page, s.page.action_ms) : s.at ?? s.begun;
}

/** The outcome a final model call gives a task that `complete()` ended (docs/recorder.md). */
function callOutcome(a: AttemptState): { outcome: Outcome; error_kind: string | null } {
  const end = a.end;
  if (end === null) return { outcome: "aborted", error_kind: "attempt_not_ended" };
  if (end.ok) return { outcome: "ok", error_kind: null };
  const status = end.http_status ?? a.status;
  const kind = attemptErrorKind(a);
  if (status === 429) return { outcome: "rejected", error_kind: kind };
  if (status !== null && (status < 200 || status >= 300)) return { outcome: "http_error", error_kind: kind };
  if (kind !== null && kind.includes("timeout")) return { outcome: "timeout", error_kind: kind };
  if (status !== null) return { outcome: "invalid_response", error_kind: kind };
  return { outcome: "transport_error", error_kind: kind };
}

/** An attempt's error_kind: as told; for a failure told none, `http_<status>` (not 2xx) or `attempt_failed`. */
function attemptErrorKind(a: AttemptState): string | null {
  const end = a.end;
  if (end === null) return "attempt_not_ended";
  if (end.error_kind !== undefined && end.error_kind !== null) return end.error_kind;
  if (end.ok) return null;
  const status = end.http_status ?? a.status;
  return status !== null && (status < 200 || status >= 300) ? `http_${status}` : "attempt_failed";
}

/** Median and largest gap (the runner's ITL: the mean of the middle two for an even count); null below one gap. */
function itl(gaps: readonly number[]): { p50: number | null; max: number | null } {
  if (!gaps.length) return { p50: null, max: null };
  const s = Float64Array.from(gaps).sort();
  const mid = s.length >> 1;
  return { p50: s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2, max: s[s.length - 1]! };
}

function attemptRows(s: TaskState, ctx: RowContext): AttemptRow[] {
  const rel = (t: number | null) => (t === null ? null : t - ctx.epoch_ms);
  return s.attempts.map((a, i) => {
    const end = a.end;
    const next = s.attempts.slice(i + 1).find((b) => b.round === a.round) ?? null;
    const status = end?.http_status ?? a.status;
    const error_kind = attemptErrorKind(a);
    // Retried: it ended without a usable answer and another call of the same round followed.
    let retry_reason: string | null;
    if (end?.retry_reason !== undefined) retry_reason = end.retry_reason;
    else retry_reason = end && !end.ok && next ? (status !== null ? `http_${status}` : error_kind) : null;
    let backoff_ms: number | null;
    if (end?.backoff_ms !== undefined) backoff_ms = end.backoff_ms;
    else backoff_ms = end && retry_reason !== null && next ? Math.max(0, next.sent - end.at) : null;
    const u = end?.usage ?? null;
    const gaps = itl(a.gaps);
    return {
      run_id: ctx.run_id,
      request_id: s.request_id,
      round: a.round,
      attempt: a.attempt,
      route: a.route ?? ctx.route,
      provider: a.provider ?? ctx.provider,
      model: a.model ?? ctx.model,
      sent_ms: a.sent - ctx.epoch_ms,
      headers_ms: rel(a.headers),
      first_token_ms: rel(a.first_token),
      last_token_ms: rel(a.last_token),
      completed_ms: end?.ok ? end.at - ctx.epoch_ms : null,
      http_status: status,
      error_kind,
      retry_reason,
      backoff_ms,
      input_tokens: u?.input_tokens ?? 0,
      cached_input_tokens: u?.cached_input_tokens ?? 0,
      output_tokens: u?.output_tokens ?? 0,
      token_source: u ? "usage" : null,
      finish_reason: end?.finish_reason ?? null,
      itl_p50_ms: gaps.p50,
      itl_max_ms: gaps.max,
      streamed: a.streamed,
      service_mode: end?.service_mode ?? null,
      reasoning_tokens: u?.reasoning_tokens ?? null,
      cache_write_tokens: u?.cache_write_tokens ?? null,
      retry_after_ms: end?.retry_after_ms ?? null,
      service_tier_requested: null,
      service_tier: null,
      rl_limit_requests: null,
      rl_remaining_requests: null,
      rl_limit_tokens: null,
      rl_remaining_tokens: null,
      rl_reset_requests_ms: null,
      rl_reset_tokens_ms: null,
    };
  });
}

/** A count reported by some attempts: their sum, null when none reported it (as the runner's `sumReported`). */
function sumReported(rows: readonly AttemptRow[], key: "reasoning_tokens" | "cache_write_tokens"): number | null {
  let sum: number | null = null;
  for (const r of rows) if (r[key] !== null) sum = (sum ?? 0) + r[key]!;
  return sum;
}

/** The task's outcome and error kind (docs/recorder.md "Outcome"). */
function outcomeOf(s: TaskState, ctx: RowContext, final: AttemptState | null) {
  if (s.done === null) return { outcome: "aborted" as Outcome, error_kind: ctx.unfinished ?? "unfinished_at_close" };
  if (s.failure) return s.failure;
  const called = final ? callOutcome(final) : { outcome: "ok" as Outcome, error_kind: null };
  // The user never held an answer the page gave up on, or never painted.
  if (called.outcome === "ok" && s.page && (s.page.error || s.page.rendered_ms === null)) {
    return { outcome: "aborted" as Outcome, error_kind: `page:${s.page.error ?? "not_rendered"}` };
  }
  return called;
}

/** The gates `applicable_gates` lists, in gate order (output_valid and quality_ok always, as the runner does). */
function applicableGates(c: TaskState["completion"]): string {
  const listed = ["output_valid"];
  if (c && "schema_ok" in c) listed.push("schema_ok");
  listed.push("quality_ok");
  if (c && "safety_ok" in c) listed.push("safety_ok");
  if (c && "auth_ok" in c) listed.push("auth_ok");
  return listed.join(",");
}

/**
 * The rows of one task (times on the run's clock: ms since `epoch_ms`), by the definitions of docs/recorder.md:
 * `scheduled_ms` the user's action (the page's, else `TaskStart.at`, else `begin`), `first_sent_ms` the page's send
 * (else `sent()`, else the first model call's), `first_token_ms` the page's first paint of a token (else
 * `firstToken()`, else the final model call's first token), `completed_ms` (ok only) the page's render (else
 * `rendered()`, else `complete()`); tokens over the model calls that answered, reasoning and cache writes over all.
 */
export function taskRows(s: TaskState, ctx: RowContext): TaskRows {
  const rel = (t: number | null) => (t === null ? null : t - ctx.epoch_ms);
  const page = s.page;
  const onPage = (t: number | null) => (page === null || t === null ? null : toService(page, t) - ctx.epoch_ms);
  const attempts = attemptRows(s, ctx);
  const final = s.attempts.at(-1) ?? null;
  const finalRow = attempts.at(-1) ?? null;
  const { outcome, error_kind } = outcomeOf(s, ctx, final);
  const c = s.completion;

  const scheduled = actionTime(s) - ctx.epoch_ms;
  const firstSent = page ? onPage(page.sent_ms) : rel(s.sent ?? s.attempts[0]?.sent ?? null);
  const firstToken = page ? onPage(page.first_paint_ms) : rel(s.first_token ?? final?.first_token ?? null);
  const completed = outcome !== "ok" ? null : page ? onPage(page.rendered_ms) : rel(s.rendered ?? c?.at ?? null);

  const answered = attempts.filter((_a, i) => s.attempts[i]!.end?.ok === true);
  const sum = (k: "input_tokens" | "cached_input_tokens" | "output_tokens") => answered.reduce((n, a) => n + a[k], 0);
  const request: RequestRow = {
    run_id: ctx.run_id,
    request_id: s.request_id,
    case_id: s.case_id,
    class: s.class,
    priority: s.priority,
    stage: stageName(stageIndex(scheduled, ctx.stage_ms, ctx.now - ctx.epoch_ms)),
    shard: 0,
    route: finalRow?.route ?? ctx.route,
    scheduled_ms: scheduled,
    send_lag_ms: firstSent === null ? null : firstSent - scheduled,
    first_sent_ms: firstSent,
    first_token_ms: firstToken,
    completed_ms: completed,
    outcome,
    http_status: finalRow?.http_status ?? null,
    error_kind,
    attempts: attempts.length,
    rounds: new Set(attempts.map((a) => a.round)).size,
    tool_calls: s.spans.filter((t) => t.tool !== "retrieval").length,
    tool_ms: s.spans.reduce((n, t) => n + Math.max(0, t.ended - t.started), 0),
    input_tokens: sum("input_tokens"),
    cached_input_tokens: sum("cached_input_tokens"),
    output_tokens: sum("output_tokens"),
    finish_reason: c?.finish_reason ?? finalRow?.finish_reason ?? null,
    output_valid: c?.valid ?? null,
    schema_ok: c?.schema_ok ?? null,
    quality_ok: c?.quality_ok ?? null,
    safety_ok: c?.safety_ok ?? null,
    auth_ok: c?.auth_ok ?? null,
    quality_detail: c?.quality_detail ?? null,
    prompt_sha256: sha256(s.prompt ?? s.case_id),
    output_sha256: typeof c?.output === "string" ? sha256(c.output) : null,
    streamed: finalRow?.streamed ?? null,
    applicable_gates: applicableGates(c),
    service_mode: finalRow?.service_mode ?? null,
    reasoning_tokens: sumReported(attempts, "reasoning_tokens"),
    cache_write_tokens: sumReported(attempts, "cache_write_tokens"),
  };
  const tools: ToolRow[] = s.spans.map((t) => ({
    run_id: ctx.run_id,
    request_id: s.request_id,
    round: t.round,
    tool: t.tool,
    started_ms: t.started - ctx.epoch_ms,
    ended_ms: t.ended - ctx.epoch_ms,
    ok: t.ok,
    error_kind: t.error_kind,
  }));
  const service = (phase: string, started: number, ended: number): PhaseRow => ({
    run_id: ctx.run_id,
    request_id: s.request_id,
    phase,
    side: "service",
    started_ms: started - ctx.epoch_ms,
    ended_ms: ended - ctx.epoch_ms,
    clock_offset_ms: null,
    clock_error_ms: null,
  });
  const phases: PhaseRow[] = [];
  if (page) phases.push(...pagePhases(page, s, ctx));
  if (s.received !== null && s.responded !== null) phases.push(service("service", s.received, s.responded));
  for (const p of s.phases) phases.push(service(p.phase, p.started, p.ended));
  // In the order they began: page, network_up, service (and the app's own), network_down, render.
  phases.sort((a, b) => a.started_ms - b.started_ms);
  return { request, attempts, tools, phases, epoch_ms: ctx.epoch_ms };
}

/**
 * The first problem of a task's rows against the contract's row schemas, or null: a row the log cannot hold (a value
 * the app passed that no check caught) is never written, so no part's Parquet can fail on it. The compiled checks
 * (schema/column_kinds.ts `ROW_CHECKS`) pass a task's rows without allocating; zod itself is asked only for rows they
 * refuse, for its message.
 */
export function rowsProblem(t: TaskRows): string | null {
  if (
    ROW_CHECKS.requests(t.request) && t.attempts.every(ROW_CHECKS.attempts) && t.tools.every(ROW_CHECKS.tools) &&
    t.phases.every(ROW_CHECKS.phases)
  ) return null;
  const check = (schema: { safeParse(v: unknown): { success: boolean; error?: { message: string } } }, v: unknown) => {
    const r = schema.safeParse(v);
    return r.success ? null : r.error!.message;
  };
  return check(RequestRow, t.request) ?? t.attempts.map((a) => check(AttemptRow, a)).find((p) => p) ??
    t.tools.map((a) => check(ToolRow, a)).find((p) => p) ?? t.phases.map((a) => check(PhaseRow, a)).find((p) => p) ??
    null;
}
