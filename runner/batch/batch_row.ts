/**
 * The attempt row of a batch item: the one place a batch attempt's row is
 * built ({@linkcode batchAttemptRow}), and how an item's result is read by
 * the route's dialect into an answer or a failure ({@linkcode readBatchItem}).
 * docs/batch.md says what each column means for a batch item.
 *
 * @module
 */
import { providerSignals } from "../provider_signals.ts";
import type { AttemptRow } from "../../schema/mod.ts";
import type { AttemptResult, AttemptTarget } from "../attempt.ts";
import { classifyBody } from "../attempt.ts";
import type { AnswerParser } from "../dialects/dialect.ts";
import type { BatchItemResult } from "./provider.ts";

/** An item's result read: the dialect's parser fed with its body, and the failure (null: a usable answer). */
export interface ReadItem {
  state: AnswerParser;
  failure: AttemptResult["failure"];
  /** The HTTP status the provider gave the item (null: none). */
  status: number | null;
}

/**
 * Reads one item's result with the route's dialect: an answer body through `feedBody` at `collectedMs` (its tokens
 * all arrive then) and judged like any unstreamed answer (runner/attempt.ts `classifyBody`); an error status through
 * the dialect's `classifyError`; a failed item as it is.
 */
export function readBatchItem(target: AttemptTarget, r: BatchItemResult, collectedMs: number): ReadItem {
  const state = target.dialect.newAnswer();
  if (r.kind === "answer") {
    const failure = classifyBody({
      stream: false,
      contentType: "application/json",
      sse: null,
      parts: [new TextEncoder().encode(r.body)],
      state,
      dialect: target.dialect,
      endMs: collectedMs,
    });
    return { state, failure, status: r.status };
  }
  if (r.kind === "error_status") {
    const verdict = target.dialect.classifyError(r.status, new Map(), r.body);
    return { state, failure: { status: r.status, ...verdict }, status: r.status };
  }
  return { state, failure: { status: r.status, kind: r.errorKind, outcome: r.outcome }, status: r.status };
}

/**
 * The attempt row of one batch item (its only attempt: batch items are not retried inside the run).
 *
 * - `sent_ms`: the batch's submission (the start of its upload); `headers_ms`, `first_token_ms`, `last_token_ms` and
 *   (for a usable answer) `completed_ms`: when the item's result was collected (an unstreamed answer arrives whole);
 * - `http_status`: the status the provider gave the item (OpenAI `response.status_code`; Anthropic `succeeded` is
 *   200); null when it gave none;
 * - `streamed`: false; usage from the item's body, read by the dialect.
 *
 * - `service_tier_requested` and `service_tier`: `"batch"` (the price sheet's batch prices apply: docs/batch.md);
 *   no rate-limit columns (a batch answer has no response head of its own).
 */
export function batchAttemptRow(
  runId: string,
  target: AttemptTarget,
  item: { requestId: string; round: number; sentMs: number; collectedMs: number | null; read: ReadItem },
): AttemptRow {
  const { state, failure, status } = item.read;
  const usage = state.usage;
  const at = item.collectedMs;
  return {
    run_id: runId,
    request_id: item.requestId,
    round: item.round,
    attempt: 1,
    route: target.route,
    provider: target.provider,
    model: target.model,
    sent_ms: item.sentMs,
    headers_ms: status !== null ? at : null,
    first_token_ms: state.firstTokenMs,
    last_token_ms: state.lastTokenMs,
    completed_ms: failure ? null : at,
    http_status: status,
    error_kind: failure?.kind ?? null,
    retry_reason: null,
    backoff_ms: null,
    input_tokens: usage?.prompt_tokens ?? 0,
    cached_input_tokens: usage?.cached_tokens ?? 0,
    output_tokens: usage?.completion_tokens ?? 0,
    token_source: usage ? "usage" : null,
    finish_reason: state.finishReason,
    itl_p50_ms: null,
    itl_max_ms: null,
    streamed: false,
    service_mode: null,
    reasoning_tokens: usage?.reasoning_tokens ?? null,
    cache_write_tokens: usage?.cache_write_tokens ?? null,
    retry_after_ms: null,
    ...providerSignals(null, "batch", "batch"),
  };
}
