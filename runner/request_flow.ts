/**
 * One offered task from start to end: retrieval, model rounds (each run by
 * runner/fallback.ts with retries and fallbacks), frozen tool executions,
 * inline checks, and the rows it writes to the log.
 *
 * @module
 */
import { createHash } from "node:crypto";
import type { AttemptRow, FrozenToolResponse, RequestRow, ToolRow, WorkloadCase } from "../schema/mod.ts";
import type { AttemptResult } from "./attempt.ts";
import type { ObservedToolCall } from "./checks/check.ts";
import { applicableGates, evaluateChecks, failureDetail, notEvaluated } from "./checks/mod.ts";
import { batchRound } from "./batch/mod.ts";
import { attemptWithFallback, type FallbackContext, type RoundResult } from "./fallback.ts";
import { prefixFirstUser } from "./cache_bust.ts";
import type { WireMessage } from "./dialects/dialect.ts";
import type { AttemptTarget } from "./attempt.ts";
import { countTokens } from "./tokens.ts";
import { recordRunnerError, type RequestInFlight } from "./request_guard.ts";
import { sumReported } from "./usage.ts";

export type { FlowRoute, FlowRouter } from "./fallback.ts";

/** Appends rows to a log table. */
export interface RowSink<R> {
  append(row: R): void;
}

/** Everything a request needs from its run. */
export interface FlowContext extends FallbackContext {
  requestTimeoutMs: number;
  /** Run-wide output cap (run conditions), or null for each case's own max_output_tokens. */
  outputCap: number | null;
  /** Streaming per class (class defaults). */
  stream: (cls: string) => boolean;
  /** Most model rounds of a tool-calling request. */
  maxRounds: number;
  sinks: { requests: RowSink<RequestRow>; attempts: RowSink<AttemptRow>; tools: RowSink<ToolRow> };
  /** Where output texts go when saving outputs is on. */
  outputs: RowSink<{ request_id: string; text: string; tool_calls: string }> | null;
  /** Attempts whose tokens the tokenizer did not count (text over runner/token_caps.ts's bound). */
  tokensNotCounted?: { attempts: number };
  /** The cache-busting prefix of a request (runner/cache_bust.ts); absent or null: none. */
  cacheBust?: ((requestId: string) => string) | null;
}

/** The planned identity of a request. */
export interface PlannedRequest {
  request_id: string;
  scheduled_ms: number;
  stage: string;
  shard: number;
}

const bodyCache = new WeakMap<WorkloadCase, Map<string, string>>();

/**
 * Runs one offered task to its end: retrieval, model rounds with retries
 * and fallbacks, frozen tool executions, inline checks. Writes its attempts
 * and tools rows as they happen and its request row at the end, and returns
 * that row. Later rounds stay on the route that answered the round before
 * (the conversation continues with the model that asked for the tools).
 */
export async function executeRequest(
  ctx: FlowContext,
  req: PlannedRequest,
  c: WorkloadCase,
  startedMs: number,
): Promise<RequestRow> {
  const flight: RequestInFlight = {
    req,
    c,
    startedMs,
    written: { attemptsAppended: 0, request: false, attemptRows: [], counting: [] },
  };
  try {
    return await runRequest(ctx, flight);
  } catch (err) {
    return await recordRunnerError(ctx, flight, err);
  }
}

async function runRequest(ctx: FlowContext, flight: RequestInFlight): Promise<RequestRow> {
  const { req, c, startedMs, written } = flight;
  const chain = ctx.router.chain(req.request_id, c.class);
  // A batch route's answers come whole from the provider's batch results (docs/batch.md).
  const stream = chain[0]!.batcher ? false : ctx.stream(c.class);
  const row = offeredRow({ runId: ctx.runId, route: chain[0]!.route, stream }, req, c, startedMs - req.scheduled_ms);
  const deadlineMs = req.scheduled_ms + ctx.requestTimeoutMs;
  const maxTokens = Math.min(c.max_output_tokens, ctx.outputCap ?? Infinity);
  const messages: WireMessage[] = c.messages.map((m) => ({ ...m } as WireMessage));
  // A unique prefix keeps the target's prefix cache from serving this prompt from another request's (--cache-bust).
  const bust = ctx.cacheBust?.(req.request_id) ?? null;
  const busted = bust !== null && prefixFirstUser(messages, bust);
  const allCalls: ObservedToolCall[] = [];

  if (c.retrieval) {
    const retrieval = { tool: "retrieval", latencyMs: c.retrieval.latency_ms, ok: true };
    row.tool_ms += await replayTool(ctx, { requestId: req.request_id, round: 0, ...retrieval });
  }
  // The workload's own wait before the first call: not the client's lateness.
  const retrievalMs = row.tool_ms;

  let last: RoundResult | null = null;
  // Attempt rows and token counts are settled at the end, so counting tokens never delays a send.
  const attemptRows = written.attemptRows;
  const counting = written.counting;
  const answered: AttemptRow[] = [];
  let at = 0;
  for (let round = 0; round < ctx.maxRounds; round++) {
    const sentMessages = round === 0 ? messages : messages.slice();
    const bodyFor = round === 0 && !busted
      ? (r: AttemptTarget) => cachedBody(c, messages, r, { stream, maxTokens })
      : (r: AttemptTarget) => r.dialect.body(c, sentMessages, { model: r.model, stream, maxTokens }, r.prepared);
    const settle = (r: AttemptResult) => {
      attemptRows.push(r.row);
      counting.push(fillTokens(ctx, r, { case: c, round, messages: sentMessages, prefix: busted ? bust : null }));
    };
    const route = chain[at]!;
    // A batch route's round is one item of its open batch: no retries, no fallback, no request deadline.
    last = route.batcher
      ? await batchRound({ ...route, batcher: route.batcher }, {
        runId: ctx.runId,
        requestId: req.request_id,
        round,
        body: bodyFor(route),
        at,
        settle,
      })
      : await attemptWithFallback(ctx, {
        requestId: req.request_id,
        round,
        chain,
        at,
        bodyFor,
        stream,
        deadlineMs,
        settle,
      });
    at = last.at;
    row.route = chain[at]!.route;
    row.attempts += last.row.attempt;
    row.rounds = round + 1;
    row.first_sent_ms ??= last.firstSentMs;
    if (round === 0 && last.firstSentMs !== null) row.send_lag_ms = sendLag(req, last, retrievalMs);
    if (last.failure) break;
    row.first_token_ms ??= last.state.firstTokenMs;
    answered.push(last.row);
    const calls = last.state.toolCalls();
    if (last.state.finishReason !== "tool_calls" || calls.length === 0) break;
    allCalls.push(...calls);
    row.tool_calls += calls.length;
    messages.push({
      role: "assistant",
      content: last.state.text || null,
      tool_calls: calls.map((tc, i) => ({
        id: tc.id || `call_${round}_${i}`,
        type: "function",
        function: { name: tc.name, arguments: tc.raw_arguments },
      })),
    });
    for (const [i, tc] of calls.entries()) {
      const frozen = findFrozen(c.tool_responses, tc);
      const ok = frozen?.ok ?? false;
      const replay = { tool: tc.name, latencyMs: frozen?.latency_ms ?? 0, ok, frozen };
      row.tool_ms += await replayTool(ctx, { requestId: req.request_id, round: round + 1, ...replay });
      messages.push({
        role: "tool",
        tool_call_id: tc.id || `call_${round}_${i}`,
        content: frozen ? frozen.content : `error: no such tool or arguments (${tc.name})`,
      });
    }
  }

  if (last && !last.failure && last.state.finishReason === "tool_calls") {
    last.failure = { status: null, kind: "max_rounds", outcome: "invalid_response" };
  }
  await Promise.all(counting);
  for (const a of answered) {
    row.input_tokens += a.input_tokens;
    row.cached_input_tokens += a.cached_input_tokens;
    row.output_tokens += a.output_tokens;
  }
  // Reasoning and cache writes are billed on every attempt that reported them, so the row sums all of them.
  row.reasoning_tokens = sumReported(attemptRows, "reasoning_tokens");
  row.cache_write_tokens = sumReported(attemptRows, "cache_write_tokens");
  finishRow(ctx, row, { case: c, last, calls: allCalls, maxTokens });
  for (const a of attemptRows) {
    ctx.sinks.attempts.append(a);
    written.attemptsAppended++;
  }
  ctx.sinks.requests.append(row);
  written.request = true;
  return row;
}

/**
 * `send_lag_ms` of a request whose first call was made: its first byte's instant (the first attempt's `sent_ms`) −
 * `scheduled_ms`, less the waits the workload and the routes policy put before that call (a retrieval step's replayed
 * latency, the wait for the route's limit), which are not the client's lateness (docs/runner.md, "Send lag"). Each
 * wait is measured inside the span from the dispatcher's start (never before `scheduled_ms`) to the send, so the lag
 * is never below 0; the floor at 0 takes away what the three float subtractions can leave below it.
 */
function sendLag(req: PlannedRequest, first: RoundResult, retrievalMs: number): number {
  return Math.max(0, first.firstSentMs! - req.scheduled_ms - retrievalMs - first.limitWaitMs);
}

/**
 * Without usage from the server, tokens are counted with the tokenizer (never by characters). A text
 * over the tokenizer bound (runner/token_caps.ts) is not counted: the attempt keeps 0 tokens and
 * token_source null, and the run counts it in run.json `tokenizer.attempts_not_counted`.
 */
async function fillTokens(
  ctx: FlowContext,
  r: AttemptResult,
  sent: { case: WorkloadCase; round: number; messages: readonly WireMessage[]; prefix: string | null },
) {
  const { case: c, round, messages, prefix } = sent;
  if (r.row.token_source === "usage") return;
  const produced = r.state.text + r.state.toolCalls().map((t) => t.name + t.raw_arguments).join("");
  const reachedModel = r.row.http_status !== null && r.row.http_status >= 200 && r.row.http_status < 300;
  if (!reachedModel) return;
  const output = produced ? await countTokens(produced) : 0;
  // Round 0 is the case's prompt (its counted input_tokens), plus the cache-busting prefix counted alone.
  const input = round === 0
    ? c.input_tokens + (prefix === null ? 0 : await countTokens(prefix) ?? 0)
    : await countTokens(messages.map(contentOf).join(""));
  if (output === null || input === null) {
    if (ctx.tokensNotCounted) ctx.tokensNotCounted.attempts++;
    return;
  }
  r.row.output_tokens = output;
  r.row.input_tokens = input;
  r.row.token_source = "tokenizer";
}

function contentOf(m: WireMessage): string {
  if (m.role === "assistant") return (m.content ?? "") + (m.tool_calls ?? []).map((t) => t.function.arguments).join("");
  return m.content;
}

/** Fills the request's row from its last answer: outcome, status, the gates, the complete time. */
function finishRow(
  ctx: FlowContext,
  row: RequestRow,
  end: { case: WorkloadCase; last: AttemptResult | null; calls: ObservedToolCall[]; maxTokens: number },
): void {
  const { case: c, last, calls, maxTokens } = end;
  if (!last) {
    row.outcome = "invalid_response";
    row.error_kind = "no_rounds";
    return;
  }
  row.http_status = last.row.http_status;
  row.finish_reason = last.state.finishReason;
  // The mode the target announced for the final answer (or the final failure).
  row.service_mode = last.row.service_mode;
  if (last.failure) {
    row.outcome = last.failure.outcome;
    row.error_kind = last.failure.kind;
    return;
  }
  const text = last.state.text;
  const checksStart = ctx.clock.now();
  const gates = evaluateChecks({
    case: c,
    text,
    finish_reason: last.state.finishReason,
    tool_calls: calls,
    max_tokens: maxTokens,
    output_tokens: last.row.output_tokens,
  });
  row.output_valid = gates.output_valid.value;
  row.schema_ok = gates.schema_ok.value;
  row.quality_ok = gates.quality_ok.value;
  row.safety_ok = gates.safety_ok.value;
  row.auth_ok = gates.auth_ok.value;
  row.applicable_gates = applicableGates(c, gates);
  row.quality_detail = failureDetail(gates);
  row.output_sha256 = createHash("sha256").update(text).digest("hex");
  row.outcome = "ok";
  // Complete and actionable: the last answer's end plus the time its checks took
  // (token counting by the runner is not part of the service's latency).
  row.completed_ms = last.row.completed_ms! + (ctx.clock.now() - checksStart);
  ctx.outputs?.append({ request_id: row.request_id, text, tool_calls: JSON.stringify(calls) });
}

/**
 * The row of an offered request before anything happened to it: outcome
 * `aborted`, every gate null (not evaluated), no times past `scheduled_ms`.
 * `sendLagMs` is null for a request the runner never began.
 */
export function offeredRow(
  run: { runId: string; route: string; stream: boolean },
  req: PlannedRequest,
  c: WorkloadCase,
  sendLagMs: number | null,
): RequestRow {
  const gates = notEvaluated();
  return {
    run_id: run.runId,
    request_id: req.request_id,
    case_id: c.case_id,
    class: c.class,
    priority: c.priority,
    stage: req.stage,
    shard: req.shard,
    route: run.route,
    scheduled_ms: req.scheduled_ms,
    send_lag_ms: sendLagMs,
    first_sent_ms: null,
    first_token_ms: null,
    completed_ms: null,
    outcome: "aborted",
    http_status: null,
    error_kind: null,
    attempts: 0,
    rounds: 0,
    tool_calls: 0,
    tool_ms: 0,
    input_tokens: 0,
    cached_input_tokens: 0,
    output_tokens: 0,
    finish_reason: null,
    output_valid: gates.output_valid.value,
    schema_ok: gates.schema_ok.value,
    quality_ok: gates.quality_ok.value,
    safety_ok: gates.safety_ok.value,
    auth_ok: gates.auth_ok.value,
    quality_detail: null,
    prompt_sha256: c.prompt_sha256,
    output_sha256: null,
    streamed: run.stream,
    applicable_gates: applicableGates(c, gates),
    service_mode: null,
    reasoning_tokens: null,
    cache_write_tokens: null,
  };
}

/** One tool call (or retrieval) replayed from the workload's frozen answers. */
interface ToolReplay {
  requestId: string;
  round: number;
  tool: string;
  latencyMs: number;
  ok: boolean;
  frozen?: FrozenToolResponse | undefined;
}

/** Waits the frozen latency and writes the tools row; returns the ms it took. */
async function replayTool(ctx: FlowContext, call: ToolReplay): Promise<number> {
  const { requestId, round, tool, latencyMs, ok, frozen } = call;
  const started = ctx.clock.now();
  if (latencyMs > 0) await sleep(latencyMs);
  const ended = ctx.clock.now();
  const errorKind = ok ? null : frozen ? "tool_failed" : "no_frozen_response";
  ctx.sinks.tools.append({
    run_id: ctx.runId,
    request_id: requestId,
    round,
    tool,
    started_ms: started,
    ended_ms: ended,
    ok,
    error_kind: errorKind,
  });
  return ended - started;
}

function findFrozen(responses: readonly FrozenToolResponse[], call: ObservedToolCall): FrozenToolResponse | undefined {
  if (!call.arguments) return undefined;
  const args = canonical(call.arguments);
  return responses.find((r) => r.name === call.name && canonical(r.arguments) === args);
}

/** JSON with sorted keys, so argument order does not matter. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v !== null && typeof v === "object") {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o).sort().map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`).join(",")}}`;
  }
  return JSON.stringify(v);
}

/** The first round's body, built once per case and body options (a case repeats across a run). */
function cachedBody(
  c: WorkloadCase,
  m: WireMessage[],
  r: AttemptTarget,
  options: { stream: boolean; maxTokens: number },
): string {
  const { stream, maxTokens } = options;
  let byKey = bodyCache.get(c);
  if (!byKey) bodyCache.set(c, byKey = new Map());
  // One body per route: routes differ in dialect, model and the options their bodies carry (a service tier).
  const key = `${stream}|${r.dialect.name}|${r.route}|${r.model}|${r.prepared.serviceTier}|${maxTokens}`;
  let body = byKey.get(key);
  if (body === undefined) {
    byKey.set(key, body = r.dialect.body(c, m, { model: r.model, stream, maxTokens }, r.prepared));
  }
  return body;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
