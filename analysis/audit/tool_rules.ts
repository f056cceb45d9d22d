/**
 * A peer tool's headline read as a recipe: which quantity it is (a request rate, an output-token rate, a count, a
 * latency percentile or mean) and the tool's stated rules for it — its denominator, where its latency clock starts,
 * its percentile method and its window — so that {@linkcode auditHeadline} can recompute it from the per-request rows
 * under those rules. The rules come from the tools' sources (cited per entry); a key not in this table is not
 * recomputed, and the audit says so.
 *
 * @module
 */
import type { ImportedTool } from "../../schema/imported_manifest.ts";

/** How a percentile is taken from n sorted values. */
export type PercentileMethod = "linear" | "nearest_rank" | "lower" | "higher";

/** Words for each method, as stated in the audit. */
export const METHOD_TEXT: Record<PercentileMethod, string> = {
  linear: "linear interpolation between closest ranks (numpy.percentile default: x[(n−1)·p])",
  nearest_rank: "nearest rank x₍⌈p·n⌉₎ (this toolkit's)",
  lower: "the lower closest rank x[⌊(n−1)·p⌋]",
  higher: "the higher closest rank x[⌈(n−1)·p⌉]",
};

/** The latency a headline is about: time to first token, end-to-end, or AIPerf's per-request inter-token mean. */
export type HeadlineLatency = "ttft" | "e2e" | "itl_per_request";

/** What a headline is and the tool's rules for it. */
export type HeadlineRecipe =
  | { kind: "request_rate" | "output_token_rate"; rules: ToolRules }
  /** A count of the successful requests, or (`failed`) of the records the tool counted as errors. */
  | { kind: "count"; of?: "successful" | "failed"; rules: ToolRules }
  | { kind: "latency_percentile"; latency: HeadlineLatency; p: number; method: PercentileMethod; rules: ToolRules }
  | { kind: "latency_mean"; latency: HeadlineLatency; rules: ToolRules };

/** The tool's stated rules, in words and as the choices the recomputation takes. */
export interface ToolRules {
  /** Which requests count: the tool's successful ones only. */
  denominator: "successful";
  /** Where the latency clock starts: the tool's send time. */
  start: "send";
  /**
   * The window of a rate: the tool's own duration, first send → last response over the records, or (a source of
   * durations only, whose tool writes no duration) the window implied by another rate of the tool's over the same
   * window, `window_key`: its amount over the records (successful requests, or their output tokens) / its value.
   */
  window: "tool_duration" | "first_send_to_last_response" | "implied_by_tool_rate";
  /** The tool's other rate over the same window (`implied_by_tool_rate` only). */
  window_key?: string;
  /** The rate's time unit in seconds: 1 (per second, the default) or 60 (per minute). */
  per_seconds?: number;
  /** The rules in words, with the source file they come from. */
  text: string;
  /** Unit of the tool's value, and the factor to ms (latency) or 1 (rates, counts). */
  unit: string;
  to_ms: number;
}

const AIPERF =
  "AIPerf (aiperf/metrics/types/*.py; aiperf/common/models/record_models.py MetricResult: numpy percentiles)";
const VLLM = "vLLM bench serve (vllm/benchmarks/serve.py calculate_metrics: np.percentile, completed/duration)";
const GUIDELLM = "GuideLLM v0.2–0.3 (guidellm/benchmark/benchmark.py GenerativeMetrics over successful requests)";

function aiperf(key: string): HeadlineRecipe | null {
  const m = /^(?:records\.)?([a-z_]+)\.(avg|p[\d.]+)$/.exec(key);
  if (!m) return null;
  const [, tag, stat] = m as unknown as [string, string, string];
  const window = "first_send_to_last_response" as const;
  const base = { denominator: "successful", start: "send", window } as const;
  if (tag === "request_throughput" && stat === "avg") {
    return {
      kind: "request_rate",
      rules: {
        ...base,
        unit: "requests/sec",
        to_ms: 1,
        text: `${AIPERF}: request_count / benchmark_duration, ` +
          "request_count = successful requests, benchmark_duration = last response − first request sent",
      },
    };
  }
  if (tag === "output_token_throughput" && stat === "avg") {
    return {
      kind: "output_token_rate",
      rules: {
        ...base,
        unit: "tokens/sec",
        to_ms: 1,
        text: `${AIPERF}: total_osl / benchmark_duration, total_osl = ` +
          "output tokens (reasoning included) of successful requests",
      },
    };
  }
  if (tag === "request_count" && stat === "avg") {
    return { kind: "count", rules: { ...base, unit: "requests", to_ms: 1, text: `${AIPERF}: successful requests` } };
  }
  const LAT: Record<string, HeadlineLatency> = {
    ttft: "ttft",
    request_latency: "e2e",
    inter_token_latency: "itl_per_request",
  };
  const latency: HeadlineLatency | undefined = LAT[tag];
  if (!latency) return null;
  const rules: ToolRules = {
    ...base,
    unit: "ms",
    to_ms: 1,
    text: `${AIPERF}: ${tag} per successful request, timed from the request's send` +
      (latency === "itl_per_request" ? ", (request_latency − ttft) / (output_sequence_length − 1)" : "") +
      (stat === "avg" ? ", arithmetic mean" : `, percentile by ${METHOD_TEXT.linear}`),
  };
  if (stat === "avg") return { kind: "latency_mean", latency, rules };
  return { kind: "latency_percentile", latency, p: Number(stat.slice(1)) / 100, method: "linear", rules };
}

function vllm(key: string): HeadlineRecipe | null {
  const base = { denominator: "successful", start: "send", window: "tool_duration" } as const;
  if (key === "request_throughput") {
    return { kind: "request_rate", rules: { ...base, unit: "req/s", to_ms: 1, text: `${VLLM}: completed / duration` } };
  }
  if (key === "output_throughput") {
    return {
      kind: "output_token_rate",
      rules: { ...base, unit: "tok/s", to_ms: 1, text: `${VLLM}: total_output_tokens / duration` },
    };
  }
  if (key === "completed") {
    return { kind: "count", rules: { ...base, unit: "requests", to_ms: 1, text: `${VLLM}: successful requests` } };
  }
  const m = /^(mean|median|p[\d.]+)_(ttft|e2el)_ms$/.exec(key);
  if (!m) return null;
  const latency = m[2] === "ttft" ? "ttft" : "e2e";
  const rules: ToolRules = {
    ...base,
    unit: "ms",
    to_ms: 1,
    text: `${VLLM}: ${m[2]} per successful request, timed from the POST` +
      (m[1] === "mean" ? ", arithmetic mean" : `, percentile by ${METHOD_TEXT.linear}`),
  };
  if (m[1] === "mean") return { kind: "latency_mean", latency, rules };
  const p = m[1] === "median" ? 0.5 : Number(m[1]!.slice(1)) / 100;
  return { kind: "latency_percentile", latency, p, method: "linear", rules };
}

function guidellm(key: string): HeadlineRecipe | null {
  const m =
    /metrics\.(requests_per_second|request_latency|time_to_first_token_ms)\.successful\.(mean|median|percentiles\.p(\d+))$/
      .exec(key);
  if (!m) return null;
  const base = { denominator: "successful", start: "send", window: "tool_duration" } as const;
  if (m[1] === "requests_per_second") {
    if (m[2] !== "mean") return null;
    return {
      kind: "request_rate",
      rules: {
        ...base,
        unit: "req/s",
        to_ms: 1,
        text: `${GUIDELLM}: successful requests over the benchmark's ` +
          "duration (the tool's mean of its rate over time; taken here as successful / duration)",
      },
    };
  }
  const latency = m[1] === "request_latency" ? "e2e" : "ttft";
  const to_ms = m[1] === "request_latency" ? 1000 : 1;
  const text = `${GUIDELLM}: ${m[1]} per successful request, from the request's start`;
  if (m[2] === "mean") {
    return { kind: "latency_mean", latency, rules: { ...base, unit: to_ms === 1 ? "ms" : "s", to_ms, text } };
  }
  const digits = m[3];
  const p = digits === undefined
    ? 0.5
    : ({ "001": 0.001, "01": 0.01, "05": 0.05, "999": 0.999 } as Record<string, number>)[digits] ??
      Number(digits) / 100;
  return {
    kind: "latency_percentile",
    latency,
    p,
    method: "linear",
    rules: { ...base, unit: to_ms === 1 ? "ms" : "s", to_ms, text: `${text}, percentile by ${METHOD_TEXT.linear}` },
  };
}

const LLMPERF = "LLMPerf (ray-project/llmperf token_benchmark_ray.py metrics_summary: pandas Series.quantile, " +
  "linear interpolation, over the records without error; seconds)";
const LLMPERF_REQ_RATE = "results_num_completed_requests_per_min";
const LLMPERF_TOKEN_RATE = "results_mean_output_throughput_token_per_s";

function llmperf(key: string): HeadlineRecipe | null {
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

function inferencePerf(key: string): HeadlineRecipe | null {
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

/** The recipe of a tool's headline key, or null when this table does not know it. */
export function headlineRecipe(tool: ImportedTool, key: string): HeadlineRecipe | null {
  if (tool === "aiperf") return aiperf(key);
  if (tool === "vllm-bench-serve") return vllm(key);
  if (tool === "guidellm") return guidellm(key);
  if (tool === "llmperf") return llmperf(key);
  if (tool === "inference-perf") return inferencePerf(key);
  return null;
}

/** A percentile of ascending values by `method` (NaN when empty); p in (0, 1]. */
export function percentileBy(sorted: readonly number[], p: number, method: PercentileMethod): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  if (method === "nearest_rank") {
    const exact = p * n;
    const r = Math.round(exact);
    const k = Math.abs(exact - r) < 1e-9 * Math.max(1, exact) ? r : Math.ceil(exact);
    return sorted[Math.min(n, Math.max(1, k)) - 1]!;
  }
  const h = (n - 1) * p;
  const lo = Math.floor(h + 1e-12);
  const hi = Math.min(n - 1, Math.ceil(h - 1e-12));
  if (method === "lower") return sorted[lo]!;
  if (method === "higher") return sorted[hi]!;
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}
