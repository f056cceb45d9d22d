/**
 * The rules of LLMPerf's and inference-perf's headline keys (see {@linkcode headlineRecipe}): both in seconds, both
 * numpy/pandas linear-interpolation percentiles over the successful requests, from the send.
 *
 * @module
 */
import { METHOD_TEXT } from "./percentile_by.ts";
import type { HeadlineRecipe, ToolRules } from "./tool_rule_types.ts";

const LLMPERF = "LLMPerf (ray-project/llmperf token_benchmark_ray.py metrics_summary: pandas Series.quantile, " +
  "linear interpolation, over the records without error; seconds)";
const LLMPERF_REQ_RATE = "results_num_completed_requests_per_min";
const LLMPERF_TOKEN_RATE = "results_mean_output_throughput_token_per_s";

/** LLMPerf's summary keys (durations only: rates over the window the other rate implies). */
export function llmperf(key: string): HeadlineRecipe | null {
  const base = { denominator: "successful", start: "send", window: "implied_by_tool_rate" } as const;
  const count = { ...base, unit: "requests", to_ms: 1 };
  if (key === "results_num_completed_requests") {
    return { kind: "count", of: "successful", rules: { ...count, text: `${LLMPERF}: records without error` } };
  }
  if (key === "results_number_errors") {
    return { kind: "count", of: "failed", rules: { ...count, text: `${LLMPERF}: records with an error_code` } };
  }
  // The test's wall time (end − start of the whole test) is not written: each rate's window is implied by the other.
  if (key === LLMPERF_REQ_RATE) {
    return {
      kind: "request_rate",
      rules: {
        ...base,
        window_key: LLMPERF_TOKEN_RATE,
        per_seconds: 60,
        unit: "req/min",
        to_ms: 1,
        text: `${LLMPERF}: records without error / (end − start of the test) × 60; the test's wall time is not ` +
          `written, it is implied by ${LLMPERF_TOKEN_RATE} (the output tokens of the same records over the same time)`,
      },
    };
  }
  if (key === LLMPERF_TOKEN_RATE) {
    return {
      kind: "output_token_rate",
      rules: {
        ...base,
        window_key: LLMPERF_REQ_RATE,
        unit: "tokens/s",
        to_ms: 1,
        text: `${LLMPERF}: output tokens (the tool's tokenizer) of records without error / (end − start of the ` +
          `test); the test's wall time is not written, it is implied by ${LLMPERF_REQ_RATE}`,
      },
    };
  }
  const m = /^results_(ttft_s|end_to_end_latency_s)_(quantiles_p(\d+)|mean)$/.exec(key);
  if (!m) return null;
  const latency = m[1] === "ttft_s" ? "ttft" : "e2e";
  const rules: ToolRules = {
    ...base,
    unit: "s",
    to_ms: 1000,
    text: `${LLMPERF}: ${m[1]} per record without error, from the request's send (closed loop, no schedule)` +
      (m[3] === undefined ? ", arithmetic mean" : `, quantile by ${METHOD_TEXT.linear}`),
  };
  if (m[3] === undefined) return { kind: "latency_mean", latency, rules };
  return { kind: "latency_percentile", latency, p: Number(m[3]) / 100, method: "linear", rules };
}

const INFERENCE_PERF = "inference-perf (kubernetes-sigs/inference-perf inference_perf/reportgen/base.py " +
  "summarize_requests: numpy.percentile over the successful requests, seconds; needs per_request_lifecycle_metrics.json)";

/** inference-perf's report keys (recomputed only from its per-request file). */
export function inferencePerf(key: string): HeadlineRecipe | null {
  const base = { denominator: "successful", start: "send", window: "first_send_to_last_response" } as const;
  const count = { ...base, unit: "requests", to_ms: 1 };
  if (key === "successes.count") {
    return { kind: "count", of: "successful", rules: { ...count, text: `${INFERENCE_PERF}: requests with no error` } };
  }
  if (key === "failures.count") {
    return { kind: "count", of: "failed", rules: { ...count, text: `${INFERENCE_PERF}: requests with an error` } };
  }
  const window = "(max(end_time) − min(start_time) over every recorded request, failures included)";
  if (key === "successes.throughput.requests_per_sec") {
    return {
      kind: "request_rate",
      rules: { ...base, unit: "req/s", to_ms: 1, text: `${INFERENCE_PERF}: successful requests / ${window}` },
    };
  }
  if (key === "successes.throughput.output_tokens_per_sec") {
    return {
      kind: "output_token_rate",
      rules: {
        ...base,
        unit: "tokens/s",
        to_ms: 1,
        text: `${INFERENCE_PERF}: output tokens of successful requests / ${window}`,
      },
    };
  }
  const m = /^successes\.latency\.(request_latency|time_to_first_token)\.(mean|median|p(\d+(?:\.\d+)?))$/.exec(key);
  if (!m) return null;
  const latency = m[1] === "request_latency" ? "e2e" : "ttft";
  const rules: ToolRules = {
    ...base,
    unit: "s",
    to_ms: 1000,
    text: `${INFERENCE_PERF}: ${m[1]} per successful request, from start_time (the send)` +
      (latency === "ttft"
        ? " (the tool's: streamed requests with more than one token time; here: with a first token)"
        : "") +
      (m[2] === "mean" ? ", arithmetic mean" : `, percentile by ${METHOD_TEXT.linear}`),
  };
  if (m[2] === "mean") return { kind: "latency_mean", latency, rules };
  const p = m[2] === "median" ? 0.5 : Number(m[3]) / 100;
  return { kind: "latency_percentile", latency, p, method: "linear", rules };
}
