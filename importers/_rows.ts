/**
 * One source request as the contract's rows: its requests row and the attempt row of its one call, with the outcome
 * mapped, the gates null and not applicable, the class `imported` (importers/to_contract.ts states the rules).
 *
 * @module
 */
import type { AttemptRow, Outcome, RequestRow } from "../schema/events.ts";
import { IMPORTED_CLASS } from "../schema/imported_manifest.ts";
import type { SourceRequest, SourceTool } from "./source.ts";
import type { PlacedTimes } from "./_timeline.ts";

/** The contract outcome of a source request. */
export function contractOutcome(r: Pick<SourceRequest, "outcome" | "http_status">): Outcome {
  switch (r.outcome) {
    case "ok":
      return "ok";
    case "cancelled":
    case "incomplete":
      return "aborted";
    case "error":
      if (r.http_status === 429) return "rejected";
      return r.http_status !== null ? "http_error" : "transport_error";
  }
}

/** error_kind: the tool's own label, prefixed `source: ` (null for ok). */
function errorKind(r: SourceRequest): string | null {
  if (r.outcome === "ok") return null;
  const label = r.tool_status ?? (r.http_status !== null ? `HTTP ${r.http_status}` : r.outcome);
  return `source: ${r.outcome === "error" ? label : `${r.outcome}${r.tool_status ? `: ${r.tool_status}` : ""}`}`;
}

const tokens = (n: number | null) => (n !== null && Number.isInteger(n) && n >= 0 ? n : 0);

/** The median and the largest of the tool's inter-token gaps (null when it kept none). */
function gapStats(itl: number[] | null): { p50: number | null; max: number | null } {
  if (!itl || !itl.length) return { p50: null, max: null };
  const s = [...itl].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return { p50: s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2, max: s[s.length - 1]! };
}

/**
 * The requests row of one source request and, when the tool sent it, its one attempt row (run.json `mapping` states
 * the rules: importers/to_contract.ts MAPPING_RULES).
 */
export function requestRows(
  tool: SourceTool,
  r: SourceRequest,
  t: PlacedTimes,
  where: { run_id: string; route: string },
): { request: RequestRow; attempt: AttemptRow | null } {
  const { run_id, route } = where;
  const ok = r.outcome === "ok";
  const outcome = contractOutcome(r);
  const first = t.first_token;
  const streamed = first !== null || r.ttft_ms !== null ? true : null;
  const kind = errorKind(r);
  const input = tokens(r.input_tokens), output = tokens(r.output_tokens);
  const request: RequestRow = {
    run_id,
    request_id: r.id,
    case_id: "",
    class: IMPORTED_CLASS,
    priority: 0,
    stage: r.stage,
    shard: 0,
    route,
    scheduled_ms: t.scheduled,
    send_lag_ms: t.sent !== null && t.scheduled !== t.sent ? t.sent - t.scheduled : null,
    first_sent_ms: t.sent,
    first_token_ms: first,
    completed_ms: ok ? t.ended : null,
    outcome,
    http_status: r.http_status,
    error_kind: kind,
    attempts: t.sent === null ? 0 : 1,
    rounds: t.sent === null ? 0 : 1,
    tool_calls: 0,
    tool_ms: 0,
    input_tokens: input,
    cached_input_tokens: 0,
    output_tokens: output,
    finish_reason: null,
    output_valid: null,
    schema_ok: null,
    quality_ok: null,
    safety_ok: null,
    auth_ok: null,
    quality_detail: null,
    prompt_sha256: "",
    output_sha256: null,
    streamed,
    applicable_gates: "",
    service_mode: null,
    reasoning_tokens: null,
    cache_write_tokens: null,
  };
  if (t.sent === null) return { request, attempt: null };
  const gaps = gapStats(r.itl_ms);
  const attempt: AttemptRow = {
    run_id,
    request_id: r.id,
    round: 0,
    attempt: 1,
    route,
    provider: tool,
    model: route,
    sent_ms: t.sent,
    headers_ms: null,
    first_token_ms: first,
    last_token_ms: ok ? t.ended : null,
    completed_ms: t.ended,
    http_status: r.http_status,
    error_kind: kind,
    retry_reason: null,
    backoff_ms: null,
    input_tokens: input,
    cached_input_tokens: 0,
    output_tokens: output,
    token_source: r.token_source === "server_usage"
      ? "usage"
      : r.token_source === "tool_tokenizer"
      ? "tokenizer"
      : null,
    finish_reason: null,
    itl_p50_ms: gaps.p50,
    itl_max_ms: gaps.max,
    streamed,
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
  };
  return { request, attempt };
}
