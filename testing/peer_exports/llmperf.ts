/**
 * Our rows as LLMPerf's `*_individual_responses.json` (token_benchmark_ray.py), for round-trip tests of the LLMPerf
 * reader.
 *
 * What the export can and cannot carry: LLMPerf keeps durations only — no times, no ids — so the run's epoch and
 * every absolute time are lost, and records are in completion order (the order the tool collects results). Rows
 * never sent are left out. An answered row: `ttft_s` = first token − sent, `end_to_end_latency_s` = completed − sent,
 * `inter_token_latency_s` = that e2e / output tokens (the tool's definition up to the last content chunk, which a
 * request row does not hold). A failed row is written as LLMPerf's client writes an exception: `error_code` = the HTTP
 * status (−1 without one), `end_to_end_latency_s` 0 (never measured), `ttft_s` the first token if one came, else 0.
 *
 * @module
 */
import type { AttemptRow, RequestRow } from "../../schema/events.ts";
import { endMs, failureText, sentRows } from "./_rows.ts";

/** Options of {@linkcode exportLlmperf}. */
export interface LlmperfExportOptions {
  /** The run's attempts: used to order failed rows by when they ended. */
  attempts?: readonly AttemptRow[];
}

/** The text of LLMPerf's `*_individual_responses.json` for these rows. */
export function exportLlmperf(rows: readonly RequestRow[], options: LlmperfExportOptions = {}): string {
  const records = sentRows(rows).map((r) => {
    const sent = r.first_sent_ms!;
    const ttft = r.first_token_ms === null ? 0 : (r.first_token_ms - sent) / 1000;
    const base = {
      number_input_tokens: r.input_tokens,
      number_output_tokens: r.output_tokens,
      number_total_tokens: r.input_tokens + r.output_tokens,
    };
    if (r.outcome !== "ok") {
      return {
        end: endMs(r, options.attempts),
        record: {
          error_code: r.http_status ?? -1,
          error_msg: failureText(r),
          inter_token_latency_s: 0,
          ttft_s: ttft,
          end_to_end_latency_s: 0,
          request_output_throughput_token_per_s: 0,
          ...base,
        },
      };
    }
    const e2e = (r.completed_ms! - sent) / 1000;
    return {
      end: r.completed_ms!,
      record: {
        error_code: null,
        error_msg: "",
        inter_token_latency_s: r.output_tokens > 0 ? e2e / r.output_tokens : 0,
        ttft_s: ttft,
        end_to_end_latency_s: e2e,
        request_output_throughput_token_per_s: e2e > 0 ? r.output_tokens / e2e : 0,
        ...base,
      },
    };
  });
  records.sort((a, b) => a.end - b.end);
  return JSON.stringify(records.map((x) => x.record), null, 4);
}
