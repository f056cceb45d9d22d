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
import { METHOD_TEXT } from "./percentile_by.ts";
import type { HeadlineLatency, HeadlineRecipe, ToolRules } from "./tool_rule_types.ts";
import { inferencePerf, llmperf } from "./tool_rules_llmperf_inference_perf.ts";

export { METHOD_TEXT, percentileBy, type PercentileMethod } from "./percentile_by.ts";

export type { HeadlineLatency, HeadlineRecipe, ToolRules } from "./tool_rule_types.ts";

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

/** The recipe of a tool's headline key, or null when this table does not know it. */
export function headlineRecipe(tool: ImportedTool, key: string): HeadlineRecipe | null {
  if (tool === "aiperf") return aiperf(key);
  if (tool === "vllm-bench-serve") return vllm(key);
  if (tool === "guidellm") return guidellm(key);
  if (tool === "llmperf") return llmperf(key);
  if (tool === "inference-perf") return inferencePerf(key);
  return null;
}
