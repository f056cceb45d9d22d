/**
 * Our rows as inference-perf's `per_request_lifecycle_metrics.json` (the shape of its late-2025 reports: `info`
 * with `request_metrics` and `response_metrics`), for round-trip tests of the inference-perf reader.
 *
 * What the export can and cannot carry: inference-perf writes monotonic `time.perf_counter()` seconds, so the run's
 * epoch is not written — times become `monotonic_origin_s + run ms / 1000`. A request row holds no per-token times,
 * so a streamed answer becomes two SSE chunks: one token at `first_token_ms` and the rest at `completed_ms` (the
 * tool's TTFT and e2e survive; its TPOT and ITL are those of that two-chunk timeline). Rows never sent are left out
 * (the tool records a request only once sent); records are in completion order, as the tool appends them.
 *
 * @module
 */
import type { AttemptRow, RequestRow } from "../../schema/events.ts";
import { endMs, failureText, sentRows } from "./_rows.ts";

/** Options of {@linkcode exportInferencePerf}. */
export interface InferencePerfExportOptions {
  /** The perf_counter reading (s) at the run's ms 0. @default 1000 */
  monotonic_origin_s?: number;
  /** The run's attempts: the end of a failed request is taken from them (else it ends when sent). */
  attempts?: readonly AttemptRow[];
  /** The model name written into each request body. @default "sim" */
  model?: string;
}

const chunk = (text: string) => JSON.stringify({ choices: [{ index: 0, delta: { content: text } }] });

/** The text of inference-perf's `per_request_lifecycle_metrics.json` for these rows. */
export function exportInferencePerf(rows: readonly RequestRow[], options: InferencePerfExportOptions = {}): string {
  const origin = options.monotonic_origin_s ?? 1000;
  const t = (ms: number) => origin + ms / 1000;
  const records = sentRows(rows).map((r) => {
    const end = endMs(r, options.attempts);
    const requestMetrics = { text: { input_tokens: r.input_tokens }, image: null, video: null, audio: null };
    const usage = {
      prompt_tokens: r.input_tokens,
      completion_tokens: r.output_tokens,
      total_tokens: r.input_tokens + r.output_tokens,
    };
    let responseMetrics: Record<string, unknown> | null = null;
    if (r.outcome === "ok") {
      responseMetrics = { output_tokens: r.output_tokens, server_usage: usage };
      if (r.first_token_ms !== null && r.streamed !== false) {
        const chunks = [chunk("t")];
        const times = [t(r.first_token_ms)];
        if (r.output_tokens > 1) {
          chunks.push(chunk(" t".repeat(r.output_tokens - 1)));
          times.push(t(end));
        }
        responseMetrics.response_chunks = chunks;
        responseMetrics.chunk_times = times;
      }
    }
    return {
      end,
      record: {
        start_time: t(r.first_sent_ms!),
        end_time: t(end),
        request: JSON.stringify({
          model: options.model ?? "sim",
          messages: [{ role: "user", content: `prompt ${r.prompt_sha256}` }],
          stream: r.streamed !== false,
        }),
        response: r.outcome === "ok" ? "" : failureText(r),
        info: { request_metrics: requestMetrics, response_metrics: responseMetrics, input_tokens: r.input_tokens },
        error: r.outcome === "ok" ? null : {
          error_type: r.http_status !== null ? `HTTP Error ${r.http_status}` : failureText(r),
          error_msg: failureText(r),
        },
      },
    };
  });
  records.sort((a, b) => a.end - b.end);
  return JSON.stringify(records.map((x) => x.record), null, 2);
}
