import {
  type AttemptRow,
  EPOCH_COLUMNS,
  type PhaseRow,
  type RequestRow,
  type ServerRow,
  type TableName,
  type ToolRow,
} from "../../../schema/events.ts";

/** The epoch of the sinks' tests (2026-01-01T00:00:00.000Z) in ms since the Unix epoch: a sink's `epochMs`. */
export const EPOCH_MS = 1767225600000;
/** The sink options of the sinks' tests. */
export const AT_EPOCH = { epochMs: EPOCH_MS } as const;

/**
 * `rows` as a reader of their file sees them: each with the table's epoch column (contract 1.6) last, `EPOCH_MS` +
 * its anchor (e.g. tools: started_epoch_ms = 1767225600000 + started_ms).
 */
export function withEpoch(table: TableName, rows: readonly object[]): Record<string, unknown>[] {
  const { name, of } = EPOCH_COLUMNS[table];
  return rows.map((r) => ({ ...r, [name]: EPOCH_MS + ((r as Record<string, number>)[of] as number) }));
}

/** A request row with every kind of awkward value a log may hold. */
export function requestRow(over: Partial<RequestRow> = {}): RequestRow {
  return {
    run_id: "run-1",
    request_id: "r-1",
    case_id: 'case,with "quotes"',
    class: "interactive",
    priority: 0,
    stage: "steady",
    shard: 0,
    route: "sim",
    scheduled_ms: 0.1 + 0.2,
    send_lag_ms: 1e-7,
    first_sent_ms: 12.000000000000002,
    first_token_ms: null,
    completed_ms: 123456789.12345679,
    outcome: "ok",
    http_status: 200,
    error_kind: null,
    attempts: 1,
    rounds: 2,
    tool_calls: 3,
    tool_ms: 0,
    input_tokens: 9007199254740991,
    cached_input_tokens: 0,
    output_tokens: 42,
    finish_reason: "stop",
    output_valid: true,
    schema_ok: null,
    quality_ok: false,
    safety_ok: null,
    auth_ok: true,
    quality_detail: 'line one\nline two, "quoted"\r\nthird ✓ 日本語 😀',
    prompt_sha256: "ab".repeat(32),
    output_sha256: "",
    streamed: false,
    applicable_gates: "output_valid,quality_ok,auth_ok",
    service_mode: 'degraded:short, "quoted"',
    reasoning_tokens: 0,
    cache_write_tokens: null,
    ...over,
  };
}

/** An attempt row with nulls in every nullable column. */
export function attemptRow(over: Partial<AttemptRow> = {}): AttemptRow {
  return {
    run_id: "run-1",
    request_id: "r-1",
    round: 0,
    attempt: 1,
    route: "sim",
    provider: "simulator",
    model: "sim-1",
    sent_ms: 5.5,
    headers_ms: null,
    first_token_ms: null,
    last_token_ms: null,
    completed_ms: null,
    http_status: null,
    error_kind: "connect_refused",
    retry_reason: null,
    backoff_ms: null,
    input_tokens: 10,
    cached_input_tokens: 0,
    output_tokens: 0,
    token_source: null,
    finish_reason: null,
    itl_p50_ms: null,
    itl_max_ms: null,
    streamed: null,
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

/** A tool row. */
export function toolRow(over: Partial<ToolRow> = {}): ToolRow {
  return {
    run_id: "run-1",
    request_id: "r-1",
    round: 1,
    tool: "lookup_order",
    started_ms: 10.25,
    ended_ms: 31.75,
    ok: true,
    error_kind: null,
    ...over,
  };
}

/** A server timeline row. */
export function serverRow(over: Partial<ServerRow> = {}): ServerRow {
  return {
    run_id: "run-1",
    t_ms: 1000,
    route: "self-hosted",
    queue_len: 4,
    oldest_queued_ms: 250.5,
    running: 16,
    replicas: 2,
    replicas_warming: 1,
    shed: 0,
    rate_limited: 3,
    errors: 0,
    admitted: 20,
    finished: 18,
    kv_tokens: 65536,
    ...over,
  };
}

/** A phase row placed on the run's clock with a page clock offset (a formula-like phase name to escape in CSV). */
export function phaseRow(over: Partial<PhaseRow> = {}): PhaseRow {
  return {
    run_id: "run-1",
    request_id: "r-1",
    phase: "network_up",
    side: "network",
    started_ms: 1000.25,
    ended_ms: 1012.5,
    clock_offset_ms: -3.75,
    clock_error_ms: 0.5,
    ...over,
  };
}
