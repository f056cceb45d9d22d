/**
 * Writes our own requests as AIPerf's per-request export, `profile_export.jsonl`, for the round trip through the
 * AIPerf reader: the 0.8.0 form (`request_start_ns`, `request_end_ns`, `credit_issued_ns`, `benchmark_phase`, no
 * `error` key on success) or the early form (`timestamp_ns`, `credit_phase`, `error: null`).
 *
 * Mapping: send is `request_start_ns` (epoch ns), completion `request_end_ns`, first token `time_to_first_token`
 * (ms after the send); our `scheduled_ms` is written as `credit_issued_ns` (AIPerf's release of the request to a
 * worker; the reader does not take it for a schedule). A success is our `ok`; `aborted` is a cancellation (code 499,
 * `RequestCancellationError`); every other sent failure is an error record with our HTTP status as its code.
 * Never-sent rows are left out. Per-chunk times are not kept by our rows: `inter_chunk_latency` spreads the decode
 * time evenly over output_tokens − 1 gaps. Token counts are written as the server's usage (`usage_*`, as with
 * --use-server-token-count) and as ISL/OSL.
 *
 * @module
 */
import type { RequestRow } from "../../schema/events.ts";
import { answered, epochMs, evenGaps, failureText, sentRows } from "./_rows.ts";

/** Options of {@linkcode exportAiperf}. */
export interface AiperfExportOptions {
  /** The run's epoch (run.json `epoch_iso`): AIPerf's times are epoch ns. */
  epoch_iso: string;
  /** Stages written as AIPerf's warmup phase. @default [] */
  warmup_stages?: string[];
  /** @default "0.8" */
  form?: "0.8" | "early";
}

const metric = (value: number | number[], unit: string) => ({ value, unit });

/** The text of a profile_export.jsonl for our rows. */
export function exportAiperf(rows: readonly RequestRow[], options: AiperfExportOptions): string {
  const epoch = epochMs(options.epoch_iso);
  const ns = (ms: number) => Math.round((epoch + ms) * 1e6);
  const early = options.form === "early";
  const lines = sentRows(rows).map((r) => {
    const phase = options.warmup_stages?.includes(r.stage) ? "warmup" : "profiling";
    const ok = answered(r);
    const cancelled = r.outcome === "aborted";
    const metadata: Record<string, unknown> = {
      x_request_id: r.request_id,
      x_correlation_id: r.request_id,
      conversation_id: r.case_id,
      turn_index: 0,
      ...(early ? { timestamp_ns: ns(r.first_sent_ms!), credit_phase: phase } : {
        credit_issued_ns: ns(r.scheduled_ms),
        request_start_ns: ns(r.first_sent_ms!),
        ...(r.completed_ms !== null ? { request_end_ns: ns(r.completed_ms) } : {}),
        benchmark_phase: phase,
        was_cancelled: cancelled,
      }),
      worker_id: "worker_export",
    };
    if (!ok) {
      const error = {
        code: cancelled ? 499 : r.http_status,
        type: cancelled ? "RequestCancellationError" : r.error_kind ?? r.outcome,
        message: failureText(r),
      };
      return JSON.stringify({ metadata, metrics: { error_request_count: metric(1, "requests") }, error });
    }
    const ttft = r.first_token_ms! - r.first_sent_ms!;
    const latency = r.completed_ms! - r.first_sent_ms!;
    const gaps = evenGaps(r.completed_ms! - r.first_token_ms!, r.output_tokens);
    const metrics: Record<string, unknown> = {
      [early ? "ttft" : "time_to_first_token"]: metric(ttft, "ms"),
      request_latency: metric(latency, "ms"),
      input_sequence_length: metric(r.input_tokens, "tokens"),
      output_sequence_length: metric(r.output_tokens, "tokens"),
      output_token_count: metric(r.output_tokens, "tokens"),
      ...(gaps.length ? { inter_chunk_latency: metric(gaps, "ms") } : {}),
      ...(r.output_tokens > 1 ? { inter_token_latency: metric((latency - ttft) / (r.output_tokens - 1), "ms") } : {}),
      ...(early
        ? {
          min_request_timestamp: metric(ns(r.first_sent_ms!), "ns"),
          max_response_timestamp: metric(ns(r.completed_ms!), "ns"),
        }
        : {
          usage_prompt_tokens: metric(r.input_tokens, "tokens"),
          usage_completion_tokens: metric(r.output_tokens, "tokens"),
        }),
    };
    return JSON.stringify({ metadata, metrics, ...(early ? { error: null } : {}) });
  });
  return lines.join("\n") + "\n";
}
