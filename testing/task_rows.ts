/**
 * Rows of recorded tasks built by hand (recorder/types.ts `TaskRows`), for the tests and examples of what reads
 * them: the OpenTelemetry exporter, the OTLP import. Every builder takes overrides; the defaults are one answered
 * chat task of class `chat` with one streamed attempt, times in ms since the run's epoch.
 *
 * @module
 */
import type { AttemptRow, PhaseRow, RequestRow, ToolRow } from "../schema/events.ts";
import type { TaskRows } from "../recorder/types.ts";

/** The run's epoch used by the builders: 2026-12-01T10:00:00.000Z plus a quarter of a ms (a fractional epoch). */
export const EXAMPLE_EPOCH_MS = Date.UTC(2026, 11, 1, 10, 0, 0) + 0.25;

/** A request row: answered (`ok`) 1200 ms after its user action at 100 ms, one attempt, gates passed. */
export function exampleRequestRow(over: Partial<RequestRow> = {}): RequestRow {
  return {
    run_id: "prod-1",
    request_id: "r-1",
    case_id: "",
    class: "chat",
    priority: 0,
    stage: "h0000",
    shard: 0,
    route: "app",
    scheduled_ms: 100,
    send_lag_ms: null,
    first_sent_ms: 112.5,
    first_token_ms: 480.125,
    completed_ms: 1300,
    outcome: "ok",
    http_status: 200,
    error_kind: null,
    attempts: 1,
    rounds: 1,
    tool_calls: 0,
    tool_ms: 0,
    input_tokens: 42,
    cached_input_tokens: 0,
    output_tokens: 17,
    finish_reason: "stop",
    output_valid: true,
    schema_ok: null,
    quality_ok: true,
    safety_ok: null,
    auth_ok: null,
    quality_detail: null,
    prompt_sha256: "",
    output_sha256: null,
    streamed: true,
    applicable_gates: "output_valid,quality_ok",
    service_mode: null,
    reasoning_tokens: null,
    cache_write_tokens: null,
    ...over,
  };
}

/** An attempt row: a streamed 200 with usage, sent at 112.5 ms. */
export function exampleAttemptRow(over: Partial<AttemptRow> = {}): AttemptRow {
  return {
    run_id: "prod-1",
    request_id: "r-1",
    round: 0,
    attempt: 1,
    route: "app",
    provider: "127.0.0.1:8787",
    model: "sim-llm",
    sent_ms: 112.5,
    headers_ms: 300,
    first_token_ms: 480.125,
    last_token_ms: 1250,
    completed_ms: 1251,
    http_status: 200,
    error_kind: null,
    retry_reason: null,
    backoff_ms: null,
    input_tokens: 42,
    cached_input_tokens: 0,
    output_tokens: 17,
    token_source: "usage",
    finish_reason: "stop",
    itl_p50_ms: 40,
    itl_max_ms: 95.5,
    streamed: true,
    service_mode: null,
    reasoning_tokens: null,
    cache_write_tokens: null,
    retry_after_ms: null,
    service_tier_requested: null,
    service_tier: null,
    rl_limit_requests: null,
    rl_remaining_requests: null,
    rl_limit_tokens: null,
    rl_remaining_tokens: null,
    rl_reset_requests_ms: null,
    rl_reset_tokens_ms: null,
    ...over,
  };
}

/** A tool row: a retrieval step of round 0 from 101 to 110.75 ms. */
export function exampleToolRow(over: Partial<ToolRow> = {}): ToolRow {
  return {
    run_id: "prod-1",
    request_id: "r-1",
    round: 0,
    tool: "retrieval",
    started_ms: 101,
    ended_ms: 110.75,
    ok: true,
    error_kind: null,
    ...over,
  };
}

/** A phase row: the service phase, from receiving the request at 100.5 ms to its last byte at 1299 ms. */
export function examplePhaseRow(over: Partial<PhaseRow> = {}): PhaseRow {
  return {
    run_id: "prod-1",
    request_id: "r-1",
    phase: "service",
    side: "service",
    started_ms: 100.5,
    ended_ms: 1299,
    clock_offset_ms: null,
    clock_error_ms: null,
    ...over,
  };
}

/** A finished task: the request row with one attempt (no tool step, no phase) unless told otherwise. */
export function exampleTaskRows(over: Partial<TaskRows> = {}): TaskRows {
  return {
    request: exampleRequestRow(),
    attempts: [exampleAttemptRow()],
    tools: [],
    phases: [],
    epoch_ms: EXAMPLE_EPOCH_MS,
    ...over,
  };
}
