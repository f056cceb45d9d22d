/**
 * AIPerf's metric tags, old and new names, the header its CSV prints for each, and AIPerf's definition, from
 * ai-dynamo/aiperf docs/metrics_reference.md (Record, Aggregate and Derived metrics) and the metric classes it
 * documents. The early (Oct 2025) export names the first-token metrics `ttft` / `ttst`; 0.8.0 names them
 * `time_to_first_token` / `time_to_second_token` and adds the server's `usage_*` counts and `http_req_*` timings.
 *
 * @module
 */

interface Tag {
  tags: string[];
  header: string;
  definition: string;
  /** The definition in the 0.8 form where it differs: its rates divide by the profiling phase's window. */
  phase?: string;
}

/** The duration AIPerf 0.8's rates divide by (src/aiperf/metrics/metric_dicts.py observation_duration). */
const PHASE = "the profiling phase's end_time − start_time (AIPerf 0.8's observation duration), not benchmark_duration";

const TOKENIZER = "AIPerf's tokenizer count unless the run used --use-server-token-count";

const TAGS: Tag[] = [
  {
    tags: ["ttft", "time_to_first_token"],
    header: "Time to First Token",
    definition: "first response chunk − request start (perf counter), per successful streamed request",
  },
  {
    tags: ["ttst", "time_to_second_token"],
    header: "Time to Second Token",
    definition: "second response chunk − first response chunk",
  },
  {
    tags: ["time_to_first_output_token"],
    header: "Time to First Output Token",
    definition: "first non-reasoning content chunk − request start",
  },
  {
    tags: ["inter_token_latency"],
    header: "Inter Token Latency",
    definition: "(request_latency − ttft) / (output_sequence_length − 1) per request: a per-request mean over " +
      `output tokens, reasoning tokens included (${TOKENIZER})`,
  },
  {
    tags: ["inter_chunk_latency"],
    header: "Inter Chunk Latency",
    definition: "every gap between consecutive response chunks (SSE messages) of a request",
  },
  {
    tags: ["output_token_throughput_per_user"],
    header: "Output Token Throughput Per User",
    definition: "1 / inter_token_latency in seconds per request: excludes TTFT",
  },
  {
    tags: ["request_latency"],
    header: "Request Latency",
    definition: "last response chunk − request start (perf counter), per successful request",
  },
  { tags: ["input_sequence_length"], header: "Input Sequence Length", definition: `prompt tokens (${TOKENIZER})` },
  {
    tags: ["output_sequence_length"],
    header: "Output Sequence Length",
    definition: `output_token_count + reasoning_token_count (${TOKENIZER})`,
  },
  {
    tags: ["output_token_count"],
    header: "Output Token Count",
    definition: `non-reasoning output tokens (${TOKENIZER})`,
  },
  { tags: ["reasoning_token_count"], header: "Reasoning Token Count", definition: `reasoning tokens (${TOKENIZER})` },
  {
    tags: ["usage_prompt_tokens"],
    header: "Usage Prompt Tokens",
    definition: "the server's usage.prompt_tokens",
  },
  {
    tags: ["usage_completion_tokens"],
    header: "Usage Completion Tokens",
    definition: "the server's usage.completion_tokens",
  },
  { tags: ["usage_total_tokens"], header: "Usage Total Tokens", definition: "the server's usage.total_tokens" },
  {
    tags: ["request_count"],
    header: "Request Count",
    definition: "successfully completed requests (valid records); errored and cancelled ones are not in it",
  },
  {
    tags: ["error_request_count"],
    header: "Error Request Count",
    definition: "requests that failed, cancelled ones included (error_summary counts them by type)",
  },
  {
    tags: ["request_throughput"],
    header: "Request Throughput",
    definition: "request_count / benchmark_duration: successful requests per second of the window from the first " +
      "request sent to the last response",
    phase: `request_count / ${PHASE}: successful profiling requests per second of the phase`,
  },
  {
    tags: ["benchmark_duration"],
    header: "Benchmark Duration",
    definition: "max_response_timestamp − min_request_timestamp (wall clock)",
  },
  {
    tags: ["min_request_timestamp"],
    header: "Minimum Request Timestamp",
    definition: "wall-clock time of the first request sent (epoch ns); on an early-form record, that record's own",
  },
  {
    tags: ["max_response_timestamp"],
    header: "Maximum Response Timestamp",
    definition: "wall-clock time of the last response (epoch ns); on an early-form record, that record's own",
  },
  {
    tags: ["output_token_throughput"],
    header: "Output Token Throughput",
    definition: "total_osl / benchmark_duration: output tokens, reasoning included, per second; includes TTFT",
    phase: `total_osl / ${PHASE}: output tokens, reasoning included, per second; includes TTFT`,
  },
  {
    tags: ["input_token_throughput"],
    header: "Input Token Throughput",
    definition: `total_isl / ${PHASE}`,
  },
  {
    tags: ["total_token_throughput"],
    header: "Total Token Throughput",
    definition: `(total_isl + total_osl) / ${PHASE}`,
  },
  {
    tags: ["prefill_throughput_per_user"],
    header: "Prefill Throughput Per User",
    definition: "input_sequence_length / time_to_first_token in seconds, per request",
  },
  {
    tags: ["e2e_output_token_throughput"],
    header: "E2E Output Token Throughput",
    definition: "output_sequence_length / request_latency in seconds, per request: includes TTFT",
  },
  {
    tags: ["requested_osl"],
    header: "Requested OSL",
    definition: "the output length the request asked for (--osl / max_tokens)",
  },
  {
    tags: ["osl_mismatch_diff_pct"],
    header: "OSL Mismatch Diff %",
    definition: "(output_sequence_length − requested_osl) / requested_osl × 100, per request",
  },
  {
    tags: ["osl_mismatch_count"],
    header: "OSL Mismatch Count",
    definition: "requests whose |output_sequence_length − requested_osl| exceeds min(5 % of requested_osl, 50 tokens)",
  },
  {
    tags: ["total_usage_prompt_tokens"],
    header: "Total Usage Prompt Tokens",
    definition: "sum of usage_prompt_tokens over successful requests",
  },
  {
    tags: ["total_usage_completion_tokens"],
    header: "Total Usage Completion Tokens",
    definition: "sum of usage_completion_tokens over successful requests",
  },
  {
    tags: ["total_usage_total_tokens"],
    header: "Total Usage Total Tokens",
    definition: "sum of usage_total_tokens over successful requests",
  },
  {
    tags: ["total_output_tokens"],
    header: "Total Output Tokens",
    definition: "sum of output_token_count (reasoning excluded) over successful requests",
  },
  {
    tags: ["total_osl"],
    header: "Total Output Sequence Length",
    definition: "sum of output_sequence_length over successful requests",
  },
  {
    tags: ["total_isl"],
    header: "Total Input Sequence Length",
    definition: "sum of input_sequence_length over successful requests",
  },
  {
    tags: ["total_reasoning_tokens"],
    header: "Total Reasoning Tokens",
    definition: "sum of reasoning_token_count over successful requests",
  },
];

const BY_TAG = new Map(TAGS.flatMap((t) => t.tags.map((n) => [n, t] as const)));
const BY_HEADER = new Map(TAGS.map((t) => [t.header.toLowerCase(), t]));

const UNKNOWN = "an AIPerf metric with no definition in this reader's table (see AIPerf's docs/metrics_reference.md)";
const HTTP = "an HTTP timing of AIPerf's request trace, named after k6's http_req_* metrics";

/** The export's form: the early records form (< 0.8) or 0.8's flat form, whose rates use the phase window. */
export type AiperfForm = "early" | "0.8";

const defined = (t: Tag | undefined, form: AiperfForm) => (form === "0.8" ? t?.phase : undefined) ?? t?.definition;

/** AIPerf's definition of a metric tag (old or new name) in the export's form. */
export function aiperfDefinition(tag: string, form: AiperfForm = "early"): string {
  return defined(BY_TAG.get(tag), form) ?? (tag.startsWith("http_req_") ? HTTP : UNKNOWN);
}

/** AIPerf's definition of a CSV label ("Time to First Token (ms)"), by the header before the unit. */
export function aiperfHeaderDefinition(label: string, form: AiperfForm = "early"): string {
  const header = label.replace(/\s*\([^)]*\)\s*$/, "").toLowerCase();
  return defined(BY_HEADER.get(header), form) ?? (header.startsWith("http ") ? HTTP : UNKNOWN);
}

/** A value in `unit` as ms; null when the unit is not a time unit. */
export function toMs(value: number, unit: string): number | null {
  const factor: Record<string, number> = { ns: 1e-6, us: 1e-3, ms: 1, s: 1000, sec: 1000 };
  return unit in factor ? value * factor[unit]! : null;
}

/** A unit as a key suffix: "tokens/sec/user" → "tokens_per_sec_per_user", "%" → "pct". */
export const unitSuffix = (unit: string): string =>
  unit.replace(/%/g, "pct").replace(/\//g, "_per_").replace(/[^A-Za-z0-9_]+/g, "_").toLowerCase();
