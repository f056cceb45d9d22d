/**
 * GuideLLM's definitions of its per-request numbers and of the `metrics` distributions of a report, by schema:
 *
 * - the v0.2–0.3 report (`benchmarks[]` of `generative_benchmark`, records of `generative_text_response` /
 *   `generative_text_error`): src/guidellm/benchmark/benchmark.py (`GenerativeTextResponseStats`,
 *   `GenerativeMetrics`, `GenerativeBenchmark.from_stats`);
 * - the `metadata.version: 2` report (0.4 and later, the 0.8 fixture): src/guidellm/schemas/request_stats.py
 *   (`GenerativeRequestStats`) and src/guidellm/schemas/info.py (`RequestTimings`).
 *
 * The two differ in `time_per_output_token_ms`: v0.2–0.3 divides last − first token by the output tokens (the first
 * token counted in the denominator, TTFT not in the numerator); version 2 divides last token − request start, TTFT
 * included. Both weigh it by output tokens in the distribution.
 *
 * @module
 */

/** The report schemas read. */
export type GuidellmSchema = "v0.3" | "v2";

const TPOT: Record<GuidellmSchema, string> = {
  "v0.3": "time per output token: 1000 × (last_token_time − first_token_time) / output_tokens per request — the " +
    "first token is counted in the denominator but TTFT is not in the numerator; distribution weighted by " +
    "output tokens",
  "v2": "time per output token including the first: 1000 × (last token − request start) / output_tokens per " +
    "request, so TTFT is inside it; distribution weighted by output tokens",
};

const DEFINITIONS: Record<string, string> = {
  requests_per_second: "rate of requests over the benchmark, from the requests' start and end times " +
    "(StatusDistributionSummary.from_request_times, rate); its successful mean is the Req/s GuideLLM prints",
  request_concurrency: "requests in flight over the benchmark, from the requests' start and end times " +
    "(StatusDistributionSummary.from_request_times, concurrency)",
  request_latency: "request latency: end − start of the request (backend send to last response), seconds; not " +
    "from the targeted (scheduled) start",
  prompt_token_count: "prompt tokens per request (the server's usage when reported, else GuideLLM's processor)",
  output_token_count: "output tokens per request (the server's usage when reported, else GuideLLM's count)",
  total_token_count: "prompt + output tokens per request",
  time_to_first_token_ms: "time to first token: 1000 × (first token − request start); from the actual send, not " +
    "from the targeted start",
  time_to_first_output_token_ms: "time to the first non-reasoning token: 1000 × (first content token − request " +
    "start); equals TTFT when no reasoning tokens are streamed",
  inter_token_latency_ms: "inter-token latency: 1000 × (last token − first token) / (output_tokens − 1) per " +
    "request (a per-request mean, the first token excluded)",
  output_tokens_per_second: "output tokens per second over the benchmark, from each token's time",
  tokens_per_second: "prompt + output tokens per second over the benchmark",
  prompt_tokens_per_second: "prompt tokens per second over the benchmark",
  request_streaming_iterations_count: "streamed chunks (iterations) per request",
  output_tokens_per_iteration: "output tokens per streamed chunk",
  iter_tokens_per_iteration: "output tokens per streamed chunk after the first",
  time_to_last_round_trip_ms: "time to the last round trip of a multi-turn request (0 for single requests)",
  avg_round_trip_time_ms: "mean round-trip time of a multi-turn request (0 for single requests)",
};

/** GuideLLM's definition of a metric, for a schema. */
export function guidellmDefinition(metric: string, schema: GuidellmSchema): string {
  if (metric === "time_per_output_token_ms") return TPOT[schema];
  return DEFINITIONS[metric] ?? "a GuideLLM metric with no definition in this reader's table";
}

/** The unit of a metric, from its name (GuideLLM states units only in names). */
export function guidellmUnit(metric: string): string {
  if (metric.endsWith("_ms")) return "ms";
  if (metric === "request_latency") return "s";
  if (metric === "requests_per_second") return "req/s";
  if (metric === "request_concurrency") return "requests";
  if (metric.endsWith("tokens_per_second")) return "tokens/s";
  if (metric.endsWith("_per_iteration")) return "tokens/iteration";
  if (metric.endsWith("_count")) return metric.includes("token") ? "tokens" : "iterations";
  return "";
}

/** GuideLLM's percentile keys: p001 is the 0.1th, p999 the 99.9th. */
const PERCENTILES: Record<string, string> = {
  p001: "0.1",
  p01: "1",
  p05: "5",
  p10: "10",
  p25: "25",
  p50: "50",
  p75: "75",
  p90: "90",
  p95: "95",
  p99: "99",
  p999: "99.9",
};

/** What a statistic of a status split means. */
export function guidellmStat(split: string, stat: string): string {
  const of = split === "total" ? "all requests (successful, errored and incomplete)" : `the ${split} requests`;
  const word: Record<string, string> = {
    mean: "mean",
    median: "median",
    mode: "mode",
    std_dev: "standard deviation",
    variance: "variance",
    min: "minimum",
    max: "maximum",
    count: "number of values",
    total_sum: "sum",
  };
  const w = word[stat] ?? (PERCENTILES[stat] ? `percentile ${PERCENTILES[stat]}` : stat);
  return `${w} over ${of}`;
}
