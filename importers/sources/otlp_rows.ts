/**
 * One task of an OTLP trace — a root span and the spans under it — as the contract's rows: the root is the requests
 * row, each GenAI inference span (`chat`, `text_completion`, `generate_content`) an attempts row, each `execute_tool`
 * or `retrieval` span a tools row, each span with a `goodput.phase` attribute a phases row. A span the recorder wrote
 * carries every contract field (`goodput.*` attributes and events, recorder/otlp_spans.ts) and is read back exactly;
 * a span of any other app is read through the semantic conventions, and what it does not say is derived as
 * importers/sources/_otlp_terms.ts states (or left null).
 *
 * @module
 */
import {
  type AttemptRow,
  AttemptRow as AttemptSchema,
  type PhaseRow,
  PhaseRow as PhaseSchema,
  type RequestRow,
  RequestRow as RequestSchema,
  type ToolRow,
  ToolRow as ToolSchema,
} from "../../schema/events.ts";
import { IMPORTED_CLASS } from "../../schema/imported_manifest.ts";
import { GENAI_OPERATION, GOODPUT_EVENT, INFERENCE_OPERATIONS, SEMCONV } from "../../schema/otlp.ts";
import type { z } from "zod";
import type { SourceOutcome, SourceRequest } from "../source.ts";
import type { ReadSpan, SpanTask } from "./otlp_spans.ts";
import { reader } from "./_otlp_attrs.ts";

/** The stage of a task whose root states none. */
export const DEFAULT_STAGE = "traces";

/** An event name another app may give to a call's first token or chunk. */
export const FIRST_TOKEN_EVENT = /first[ _.-]?(token|chunk)/i;

/** A task's rows, its neutral record, and whether the recorder wrote it. */
export interface TaskRowsRead {
  request: RequestRow;
  attempts: AttemptRow[];
  tools: ToolRow[];
  phases: PhaseRow[];
  source: SourceRequest;
  /** The root carries `goodput.outcome`: the recorder's exporter wrote it, every field is stated. */
  recorded: boolean;
}

const op = (s: ReadSpan) => s.attrs.get(SEMCONV.operation);
/** The span is a model call. */
export const isInference = (s: ReadSpan) => INFERENCE_OPERATIONS.includes(op(s) as string);
const isTool = (s: ReadSpan) => op(s) === GENAI_OPERATION.executeTool || op(s) === GENAI_OPERATION.retrieval;
const isPhase = (s: ReadSpan) => s.attrs.has("goodput.phase");

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
/** The sum of the reported counts, null when none was reported. */
const sumReported = (xs: (number | null)[]) => xs.some((x) => x !== null) ? sum(xs.map((x) => x ?? 0)) : null;

/** The error kind of a span of another app: its `error.type` (or status message), prefixed `source: `. */
function sourceError(span: ReadSpan, errorType: string | null, http: number | null): string | null {
  if (!span.error && errorType === null) return null;
  return `source: ${errorType ?? span.statusMessage ?? (http !== null ? `HTTP ${http}` : "error")}`;
}

/** Maps one task's spans onto rows (times in ms since `originNs`); problems are added to `problems`. */
export function taskRows(task: SpanTask, originNs: bigint, problems: string[]): TaskRowsRead {
  const ms = (ns: bigint) => Number(ns - originNs) / 1e6;
  const event = (s: ReadSpan, name: string | RegExp) => {
    const e = s.events.find((e) => typeof name === "string" ? e.name === name : name.test(e.name));
    return e ? ms(e.timeNs) : null;
  };
  const { root } = task;
  const inference = [...(isInference(root) ? [root] : []), ...task.descendants.filter(isInference)];

  const rank = new Map<ReadSpan, number>();
  const byRound = new Map<number, ReadSpan[]>();
  for (const s of inference) {
    const round = reader(s, []).count("goodput.round") ?? 0;
    byRound.set(round, [...(byRound.get(round) ?? []), s]);
  }
  for (const spans of byRound.values()) {
    [...spans].sort((a, b) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0))
      .forEach((s, i) => rank.set(s, i + 1));
  }

  const attempts = inference.map((s): AttemptRow => {
    const a = reader(s, problems);
    const mine = s.attrs.has("goodput.round");
    const model = a.str(SEMCONV.requestModel) ?? a.str(SEMCONV.responseModel) ?? "(not stated)";
    const http = a.int(SEMCONV.httpStatus) ?? a.int("http.status_code");
    const errorType = a.str(SEMCONV.errorType);
    const first = event(s, GOODPUT_EVENT.firstToken) ?? (mine ? null : event(s, FIRST_TOKEN_EVENT));
    const input = a.count(SEMCONV.inputTokens) ?? a.count(SEMCONV.promptTokensOld);
    const output = a.count(SEMCONV.outputTokens) ?? a.count(SEMCONV.completionTokensOld);
    return {
      run_id: "",
      request_id: "",
      round: a.count("goodput.round") ?? 0,
      attempt: a.count("goodput.attempt") ?? rank.get(s)!,
      route: a.str("goodput.route") ?? model,
      provider: a.str(SEMCONV.provider) ?? a.str(SEMCONV.system) ?? "(not stated)",
      model,
      sent_ms: ms(s.startNs),
      headers_ms: event(s, GOODPUT_EVENT.headers),
      first_token_ms: first,
      last_token_ms: event(s, GOODPUT_EVENT.lastToken),
      completed_ms: mine ? event(s, GOODPUT_EVENT.completed) : s.error ? null : ms(s.endNs),
      http_status: http,
      error_kind: mine ? errorType : sourceError(s, errorType, http),
      retry_reason: a.str("goodput.retry_reason"),
      backoff_ms: a.num("goodput.backoff_ms"),
      input_tokens: input ?? 0,
      cached_input_tokens: a.count(SEMCONV.cacheReadTokens) ?? 0,
      output_tokens: output ?? 0,
      token_source: mine
        ? (a.str("goodput.token_source") as AttemptRow["token_source"])
        : input !== null || output !== null
        ? "usage"
        : null,
      finish_reason: a.first(SEMCONV.finishReasons),
      itl_p50_ms: a.num("goodput.itl_p50_ms"),
      itl_max_ms: a.num("goodput.itl_max_ms"),
      streamed: a.bool("goodput.streamed") ?? (mine || first === null ? null : true),
      service_mode: a.str("goodput.service_mode"),
      reasoning_tokens: a.count(SEMCONV.reasoningTokens),
      cache_write_tokens: a.count(SEMCONV.cacheCreationTokens),
      retry_after_ms: a.num("goodput.retry_after_ms"),
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

  const tools = task.descendants.filter(isTool).map((s): ToolRow => {
    const a = reader(s, problems);
    const errorType = a.str(SEMCONV.errorType);
    const named = a.str(SEMCONV.toolName);
    return {
      run_id: "",
      request_id: "",
      round: a.count("goodput.round") ?? 0,
      tool: named ?? (op(s) === GENAI_OPERATION.retrieval ? "retrieval" : s.name.replace(/^execute_tool /, "")),
      started_ms: ms(s.startNs),
      ended_ms: ms(s.endNs),
      ok: !s.error,
      error_kind: s.attrs.has("goodput.round") ? errorType : sourceError(s, errorType, null),
    };
  });

  const phases = task.descendants.filter(isPhase).map((s): PhaseRow => {
    const a = reader(s, problems);
    return {
      run_id: "",
      request_id: "",
      phase: a.str("goodput.phase") ?? "",
      // An unknown side is named by the row check below.
      side: (a.str("goodput.side") ?? "service") as PhaseRow["side"],
      started_ms: ms(s.startNs),
      ended_ms: ms(s.endNs),
      clock_offset_ms: a.num("goodput.clock_offset_ms"),
      clock_error_ms: a.num("goodput.clock_error_ms"),
    };
  });

  const r = reader(root, problems);
  const mine = root.attrs.has("goodput.outcome");
  const byStart = [...attempts].sort((a, b) => a.sent_ms - b.sent_ms);
  const last = byStart[byStart.length - 1] ?? null;
  const http = r.int(SEMCONV.httpStatus) ?? (mine ? null : last?.http_status ?? null);
  const errorType = r.str(SEMCONV.errorType);
  const request_id = r.str("goodput.request_id") ?? task.fallbackId;
  const outcome = mine
    ? r.str("goodput.outcome") as RequestRow["outcome"]
    : !root.error
    ? "ok"
    : http === 429
    ? "rejected"
    : http !== null
    ? "http_error"
    : "transport_error";
  const derived = <T>(key: string, read: (k: string) => T | null, other: () => T): T =>
    read(key) ?? (mine ? null as T : other());
  const request: RequestRow = {
    run_id: "",
    request_id,
    case_id: r.str("goodput.case_id") ?? "",
    class: r.str("goodput.class") ?? IMPORTED_CLASS,
    priority: r.int("goodput.priority") ?? 0,
    stage: r.str("goodput.stage") ?? DEFAULT_STAGE,
    shard: r.count("goodput.shard") ?? 0,
    route: r.str("goodput.route") ?? last?.route ?? "(not stated)",
    scheduled_ms: ms(root.startNs),
    send_lag_ms: r.num("goodput.send_lag_ms"),
    first_sent_ms: event(root, GOODPUT_EVENT.firstSent) ?? (mine ? null : byStart[0]?.sent_ms ?? null),
    first_token_ms: event(root, GOODPUT_EVENT.firstToken) ??
      (mine ? null : byStart.find((a) => a.error_kind === null && a.first_token_ms !== null)?.first_token_ms ?? null),
    completed_ms: mine ? event(root, GOODPUT_EVENT.completed) : root.error ? null : ms(root.endNs),
    outcome,
    http_status: http,
    // Another app's failed root that names no error takes its last model call's.
    error_kind: mine
      ? errorType
      : !root.error
      ? null
      : errorType === null && root.statusMessage === null && last?.error_kind
      ? last.error_kind
      : sourceError(root, errorType, null),
    attempts: derived("goodput.attempts", r.count, () => attempts.length),
    rounds: derived(
      "goodput.rounds",
      r.count,
      () => attempts.length ? Math.max(...attempts.map((a) => a.round)) + 1 : 0,
    ),
    tool_calls: derived("goodput.tool_calls", r.count, () => tools.filter((t) => t.tool !== "retrieval").length),
    tool_ms: derived("goodput.tool_ms", r.num, () => sum(tools.map((t) => t.ended_ms - t.started_ms))),
    input_tokens: derived("goodput.input_tokens", r.count, () => sum(attempts.map((a) => a.input_tokens))),
    cached_input_tokens: derived(
      "goodput.cached_input_tokens",
      r.count,
      () => sum(attempts.map((a) => a.cached_input_tokens)),
    ),
    output_tokens: derived("goodput.output_tokens", r.count, () => sum(attempts.map((a) => a.output_tokens))),
    finish_reason: derived("goodput.finish_reason", r.str, () => last?.finish_reason ?? null),
    output_valid: r.bool("goodput.output_valid"),
    schema_ok: r.bool("goodput.schema_ok"),
    quality_ok: r.bool("goodput.quality_ok"),
    safety_ok: r.bool("goodput.safety_ok"),
    auth_ok: r.bool("goodput.auth_ok"),
    quality_detail: r.str("goodput.quality_detail"),
    prompt_sha256: r.str("goodput.prompt_sha256") ?? "",
    output_sha256: r.str("goodput.output_sha256"),
    streamed: derived("goodput.streamed", r.bool, () => attempts.some((a) => a.streamed) ? true : null),
    applicable_gates: derived("goodput.applicable_gates", r.str, () => ""),
    service_mode: derived("goodput.service_mode", r.str, () => last?.service_mode ?? null),
    reasoning_tokens: derived(
      "goodput.reasoning_tokens",
      r.count,
      () => sumReported(attempts.map((a) => a.reasoning_tokens)),
    ),
    cache_write_tokens: derived(
      "goodput.cache_write_tokens",
      r.count,
      () => sumReported(attempts.map((a) => a.cache_write_tokens)),
    ),
  };
  for (const rows of [attempts, tools, phases]) for (const row of rows) row.request_id = request_id;
  const where = `${root.at}: task ${JSON.stringify(request_id)}`;
  const check = (schema: z.ZodType, row: unknown, what: string) => {
    const res = schema.safeParse(row);
    if (!res.success) {
      for (const i of res.error.issues) problems.push(`${where}: ${what}: ${i.path.join(".")}: ${i.message}`);
    }
  };
  check(RequestSchema, request, "request");
  attempts.forEach((a, i) => check(AttemptSchema, a, `attempt ${i + 1}`));
  tools.forEach((t, i) => check(ToolSchema, t, `tool step ${i + 1}`));
  phases.forEach((p, i) => check(PhaseSchema, p, `phase ${i + 1}`));
  return { request, attempts, tools, phases, source: neutral(), recorded: mine };

  function neutral(): SourceRequest {
    const epoch = (t: number | null) => (t === null ? null : Number(originNs) / 1e6 + t);
    const kind: SourceOutcome = outcome === "ok" ? "ok" : outcome === "aborted" ? "cancelled" : "error";
    return {
      id: request_id,
      at: root.at,
      stage: request.stage,
      outcome: kind,
      tool_status: request.error_kind,
      http_status: request.http_status,
      scheduled_epoch_ms: epoch(request.scheduled_ms),
      sent_epoch_ms: epoch(request.first_sent_ms),
      first_token_epoch_ms: epoch(request.first_token_ms),
      completed_epoch_ms: epoch(request.completed_ms),
      ttft_ms: null,
      e2e_ms: null,
      itl_ms: null,
      input_tokens: request.input_tokens,
      output_tokens: request.output_tokens,
      token_source: attempts.some((a) => a.token_source === "usage") ? "server_usage" : null,
      tool_metrics: {},
    };
  }
}
