/**
 * One recorded task's rows (recorder/types.ts `TaskRows`) as OpenTelemetry spans in OTLP/JSON, following the GenAI
 * semantic conventions: a root span for the user's task, a `chat {model}` span per attempt, an
 * `execute_tool {name}` span per tool step and a `phase {name}` span per phase. Every contract field that no
 * semantic-convention attribute carries is a `goodput.*` attribute, and every instant that is neither a span's start
 * nor its end is a span event, so the rows can be read back exactly (importers/sources/otlp.ts). docs/otlp.md has the
 * table.
 *
 * Ids are derived from the request id, so that the same task always has the same trace (a page and its service, or
 * an export run twice, agree): the trace id is the first 16 bytes of SHA-256(`goodput:` + request_id), a span id the
 * first 8 bytes of SHA-256(`goodput:` + request_id + `:` + the span's kind and index, e.g. `attempt:2`).
 *
 * @module
 */
import { createHash } from "node:crypto";
import type { AttemptRow, PhaseRow, RequestRow, ToolRow } from "../schema/events.ts";
import {
  type AnyValue,
  GENAI_OPERATION,
  GOODPUT_EVENT,
  GOODPUT_ROOT,
  type KeyValue,
  type OtlpEvent,
  type OtlpSpan,
  SEMCONV,
  SPAN_KIND,
  STATUS_CODE,
} from "../schema/otlp.ts";
import { SCHEMA_MINOR, SCHEMA_VERSION } from "../schema/version.ts";
import type { TaskRows } from "./types.ts";

const hash = (text: string, bytes: number) => createHash("sha256").update(text).digest("hex").slice(0, bytes * 2);

/** The trace id of a task: the first 16 bytes of SHA-256(`goodput:` + request_id), hex. */
export function traceIdOf(requestId: string): string {
  return hash(`goodput:${requestId}`, 16);
}

/** The id of one span of a task: the first 8 bytes of SHA-256(`goodput:` + request_id + `:` + which), hex. */
export function spanIdOf(requestId: string, which: string): string {
  return hash(`goodput:${requestId}:${which}`, 8);
}

/** An instant of the recorder's clock (ms since its epoch) as OTLP unix nanoseconds, exact to the nanosecond. */
export class NanoClock {
  readonly #epochNs: bigint;
  constructor(epochMs: number) {
    const whole = Math.floor(epochMs);
    this.#epochNs = BigInt(whole) * 1_000_000n + BigInt(Math.round((epochMs - whole) * 1e6));
  }
  /** The epoch itself, as a decimal string of nanoseconds. */
  get epoch(): string {
    return this.#epochNs.toString();
  }
  at(ms: number): string {
    return (this.#epochNs + BigInt(Math.round(ms * 1e6))).toString();
  }
}

type Value = string | number | boolean | string[] | null | undefined;
/** An attribute list builder: null and undefined are left out (the contract's null: not recorded). */
class Attrs {
  readonly list: KeyValue[] = [];
  /** A string, boolean, whole count or string list. */
  set(key: string, v: Value): this {
    if (v === null || v === undefined) return this;
    let value: AnyValue;
    if (Array.isArray(v)) value = { arrayValue: { values: v.map((s) => ({ stringValue: s })) } };
    else if (typeof v === "string") value = { stringValue: v };
    else if (typeof v === "boolean") value = { boolValue: v };
    else value = { intValue: String(v) };
    this.list.push({ key, value });
    return this;
  }
  /** A length of time in ms (a double, whole or not). */
  ms(key: string, v: number | null | undefined): this {
    if (v !== null && v !== undefined) this.list.push({ key, value: { doubleValue: v } });
    return this;
  }
}

const g = (field: string) => `goodput.${field}`;

function events(clock: NanoClock, instants: [string, number | null][]): OtlpEvent[] {
  return instants.filter((e): e is [string, number] => e[1] !== null).map(([name, t]) => ({
    timeUnixNano: clock.at(t),
    name,
  }));
}

function status(error: boolean, message: string | null): OtlpSpan["status"] {
  return error ? { code: STATUS_CODE.error, ...(message ? { message } : {}) } : { code: STATUS_CODE.unset };
}

const latest = (...ts: (number | null)[]) => Math.max(...ts.filter((t): t is number => t !== null));

function rootSpan(rows: TaskRows, clock: NanoClock, traceId: string, spanId: string): OtlpSpan {
  const r: RequestRow = rows.request;
  const a = new Attrs()
    .set(GOODPUT_ROOT.contract, `${SCHEMA_VERSION}.${SCHEMA_MINOR}`)
    .set(GOODPUT_ROOT.epochUnixNano, clock.epoch)
    .set(g("run_id"), r.run_id).set(g("request_id"), r.request_id).set(g("case_id"), r.case_id)
    .set(g("class"), r.class).set(g("priority"), r.priority).set(g("stage"), r.stage).set(g("shard"), r.shard)
    .set(g("route"), r.route).ms(g("send_lag_ms"), r.send_lag_ms).set(g("outcome"), r.outcome)
    .set(SEMCONV.httpStatus, r.http_status).set(SEMCONV.errorType, r.error_kind)
    .set(g("attempts"), r.attempts).set(g("rounds"), r.rounds).set(g("tool_calls"), r.tool_calls)
    .ms(g("tool_ms"), r.tool_ms).set(g("input_tokens"), r.input_tokens)
    .set(g("cached_input_tokens"), r.cached_input_tokens).set(g("output_tokens"), r.output_tokens)
    .set(g("finish_reason"), r.finish_reason).set(g("output_valid"), r.output_valid).set(g("schema_ok"), r.schema_ok)
    .set(g("quality_ok"), r.quality_ok).set(g("safety_ok"), r.safety_ok).set(g("auth_ok"), r.auth_ok)
    .set(g("quality_detail"), r.quality_detail).set(g("prompt_sha256"), r.prompt_sha256)
    .set(g("output_sha256"), r.output_sha256).set(g("streamed"), r.streamed)
    .set(g("applicable_gates"), r.applicable_gates).set(g("service_mode"), r.service_mode)
    .set(g("reasoning_tokens"), r.reasoning_tokens).set(g("cache_write_tokens"), r.cache_write_tokens);
  const ends = [
    r.scheduled_ms,
    r.first_sent_ms,
    r.first_token_ms,
    ...rows.attempts.flatMap((x) => [x.sent_ms, x.headers_ms, x.last_token_ms, x.completed_ms]),
    ...rows.tools.map((t) => t.ended_ms),
    ...rows.phases.map((p) => p.ended_ms),
  ];
  return {
    traceId,
    spanId,
    name: `task ${r.class}`,
    kind: SPAN_KIND.server,
    startTimeUnixNano: clock.at(r.scheduled_ms),
    // An unfinished task ends at the last instant it recorded (its `goodput.completed` event is absent).
    endTimeUnixNano: clock.at(r.completed_ms ?? latest(...ends)),
    attributes: a.list,
    events: events(clock, [
      [GOODPUT_EVENT.firstSent, r.first_sent_ms],
      [GOODPUT_EVENT.firstToken, r.first_token_ms],
      [GOODPUT_EVENT.completed, r.completed_ms],
    ]),
    status: status(r.outcome !== "ok", r.error_kind ?? r.outcome),
  };
}

function attemptSpan(x: AttemptRow, clock: NanoClock, traceId: string, parent: string, i: number): OtlpSpan {
  const a = new Attrs()
    .set(SEMCONV.operation, GENAI_OPERATION.chat).set(SEMCONV.provider, x.provider).set(SEMCONV.system, x.provider)
    .set(SEMCONV.requestModel, x.model).set(g("round"), x.round).set(g("attempt"), x.attempt).set(g("route"), x.route)
    .set(SEMCONV.httpStatus, x.http_status).set(SEMCONV.errorType, x.error_kind)
    .set(g("retry_reason"), x.retry_reason).ms(g("backoff_ms"), x.backoff_ms)
    .set(SEMCONV.inputTokens, x.input_tokens).set(SEMCONV.outputTokens, x.output_tokens)
    .set(SEMCONV.cacheReadTokens, x.cached_input_tokens).set(SEMCONV.cacheCreationTokens, x.cache_write_tokens)
    .set(SEMCONV.reasoningTokens, x.reasoning_tokens).set(g("token_source"), x.token_source)
    .set(SEMCONV.finishReasons, x.finish_reason === null ? null : [x.finish_reason])
    .ms(g("itl_p50_ms"), x.itl_p50_ms).ms(g("itl_max_ms"), x.itl_max_ms).set(g("streamed"), x.streamed)
    .set(g("service_mode"), x.service_mode).ms(g("retry_after_ms"), x.retry_after_ms);
  return {
    traceId,
    spanId: spanIdOf(x.request_id, `attempt:${i}`),
    parentSpanId: parent,
    name: `${GENAI_OPERATION.chat} ${x.model}`,
    kind: SPAN_KIND.client,
    startTimeUnixNano: clock.at(x.sent_ms),
    endTimeUnixNano: clock.at(
      x.completed_ms ?? latest(x.sent_ms, x.headers_ms, x.first_token_ms, x.last_token_ms),
    ),
    attributes: a.list,
    events: events(clock, [
      [GOODPUT_EVENT.headers, x.headers_ms],
      [GOODPUT_EVENT.firstToken, x.first_token_ms],
      [GOODPUT_EVENT.lastToken, x.last_token_ms],
      [GOODPUT_EVENT.completed, x.completed_ms],
    ]),
    status: status(x.error_kind !== null, x.error_kind),
  };
}

function toolSpan(t: ToolRow, clock: NanoClock, traceId: string, parent: string, i: number): OtlpSpan {
  const a = new Attrs().set(SEMCONV.operation, GENAI_OPERATION.executeTool).set(SEMCONV.toolName, t.tool)
    .set(g("round"), t.round).set(SEMCONV.errorType, t.error_kind);
  return {
    traceId,
    spanId: spanIdOf(t.request_id, `tool:${i}`),
    parentSpanId: parent,
    name: `${GENAI_OPERATION.executeTool} ${t.tool}`,
    kind: SPAN_KIND.internal,
    startTimeUnixNano: clock.at(t.started_ms),
    endTimeUnixNano: clock.at(t.ended_ms),
    attributes: a.list,
    events: [],
    status: status(!t.ok, t.error_kind),
  };
}

function phaseSpan(p: PhaseRow, clock: NanoClock, traceId: string, parent: string, i: number): OtlpSpan {
  const a = new Attrs().set(g("phase"), p.phase).set(g("side"), p.side)
    .ms(g("clock_offset_ms"), p.clock_offset_ms).ms(g("clock_error_ms"), p.clock_error_ms);
  return {
    traceId,
    spanId: spanIdOf(p.request_id, `phase:${i}`),
    parentSpanId: parent,
    name: `phase ${p.phase}`,
    kind: SPAN_KIND.internal,
    startTimeUnixNano: clock.at(p.started_ms),
    endTimeUnixNano: clock.at(p.ended_ms),
    attributes: a.list,
    events: [],
    status: status(false, null),
  };
}

/**
 * The spans of one task: its root span first, then one per attempt, tool step and phase, in row order.
 *
 * @example A task with one attempt: the root and a `chat` child in the same trace
 * ```ts
 * import assert from "node:assert/strict";
 * import { taskSpans, traceIdOf } from "./otlp_spans.ts";
 * import type { TaskRows } from "./types.ts";
 * // The columns the example needs (a written task has them all).
 * const request = { request_id: "r-1", class: "chat", scheduled_ms: 0, first_sent_ms: 2, first_token_ms: 40,
 *   completed_ms: 900, outcome: "ok" };
 * const attempt = { request_id: "r-1", provider: "openai", model: "sim-llm", sent_ms: 2, headers_ms: 30,
 *   first_token_ms: 40, last_token_ms: 880, completed_ms: 890, error_kind: null, finish_reason: "stop" };
 * const rows = { request, attempts: [attempt], tools: [], phases: [], epoch_ms: Date.UTC(2026, 0, 1) };
 * const spans = taskSpans(rows as unknown as TaskRows);
 * assert.deepEqual(spans.map((s) => s.name), ["task chat", "chat sim-llm"]);
 * assert.equal(spans[1]!.traceId, traceIdOf("r-1"));
 * assert.equal(spans[1]!.parentSpanId, spans[0]!.spanId);
 * ```
 */
export function taskSpans(rows: TaskRows): OtlpSpan[] {
  const clock = new NanoClock(rows.epoch_ms);
  const id = rows.request.request_id;
  const traceId = traceIdOf(id);
  const root = spanIdOf(id, "task");
  return [
    rootSpan(rows, clock, traceId, root),
    ...rows.attempts.map((x, i) => attemptSpan(x, clock, traceId, root, i)),
    ...rows.tools.map((t, i) => toolSpan(t, clock, traceId, root, i)),
    ...rows.phases.map((p, i) => phaseSpan(p, clock, traceId, root, i)),
  ];
}
