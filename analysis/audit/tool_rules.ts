/**
 * A peer tool's headline read as a recipe: which quantity it is (a request rate, an output-token rate, a count, a
 * latency percentile or mean) and the tool's stated rules for it — its denominator, where its latency clock starts,
 * its percentile method and its window — so that {@linkcode auditHeadline} can recompute it from the per-request rows
 * under those rules. The rules are pinned per tool version (tool_rules_table.ts, each entry citing the tool's source);
 * the entry applied and the version read are stated with the rules. A key not in this table is not recomputed, and the
 * audit says so.
 *
 * @module
 */
import type { ImportedTool } from "../../schema/imported_manifest.ts";
import { METHOD_TEXT } from "./percentile_by.ts";
import type { HeadlineLatency, HeadlineRecipe, ToolRules } from "./tool_rule_types.ts";
import { inferencePerf, llmperf } from "./tool_rules_llmperf_inference_perf.ts";
import { ruleEntry } from "./tool_rules_table.ts";

export { METHOD_TEXT, percentileBy, type PercentileMethod } from "./percentile_by.ts";
export { ruleEntry, TOOL_RULES, type ToolRuleEntry } from "./tool_rules_table.ts";

export type { HeadlineLatency, HeadlineRecipe, ToolRules } from "./tool_rule_types.ts";

const VLLM = "vLLM bench serve (vllm/benchmarks/serve.py calculate_metrics: np.percentile, completed/duration)";

/** AIPerf's tags of the latencies the rows hold, old (< 0.8) and new (0.8) names. */
const AIPERF_LATENCY: Record<string, HeadlineLatency> = {
  ttft: "ttft",
  time_to_first_token: "ttft",
  request_latency: "e2e",
  inter_token_latency: "itl_per_request",
};

function aiperf(key: string, version: string | null): HeadlineRecipe | null {
  const m = /^(records\.)?([a-z_]+)\.(avg|p[\d.]+)$/.exec(key);
  if (!m) return null;
  const [, records, tag, stat] = m as unknown as [string, string | undefined, string, string];
  // The records form is the early export's (< 0.8); the flat form (top-level metric dicts) is 0.8's.
  const choice = ruleEntry("aiperf", version, records ? "AIPerf < 0.8" : "AIPerf 0.8")!;
  const e = choice.entry;
  const phase = e.label === "AIPerf 0.8";
  const window = phase ? "tool_duration" as const : "first_send_to_last_response" as const;
  const base = {
    denominator: "successful",
    start: "send",
    window,
    entry: choice.disclosure,
    ...(choice.caveat ? { caveat: choice.caveat } : {}),
  } as const;
  const head = `${choice.disclosure}: ${e.source}`;
  const duration = phase
    ? "the profiling phase's end_time − start_time (observation duration), not benchmark_duration"
    : "benchmark_duration = last response − first request sent";
  if (tag === "request_throughput" && stat === "avg") {
    return {
      kind: "request_rate",
      rules: {
        ...base,
        unit: "requests/sec",
        to_ms: 1,
        text: `${head}: request_count / ${duration}; request_count = ${e.requests}`,
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
        text: `${head}: total_osl / ${duration}; total_osl = output tokens (reasoning included) of ${e.requests}`,
      },
    };
  }
  if (tag === "request_count" && stat === "avg") {
    return { kind: "count", rules: { ...base, unit: "requests", to_ms: 1, text: `${head}: ${e.requests}` } };
  }
  const latency: HeadlineLatency | undefined = AIPERF_LATENCY[tag];
  if (!latency) return null;
  const rules: ToolRules = {
    ...base,
    unit: "ms",
    to_ms: 1,
    text: `${head}: ${tag} per request of ${e.requests}, timed from the request's send` +
      (latency === "itl_per_request" ? ", (request_latency − ttft) / (output_sequence_length − 1)" : "") +
      (stat === "avg" ? ", arithmetic mean" : `, percentile by ${METHOD_TEXT[e.method]}`),
  };
  if (stat === "avg") return { kind: "latency_mean", latency, rules };
  return { kind: "latency_percentile", latency, p: Number(stat.slice(1)) / 100, method: e.method, rules };
}

function vllm(key: string, version: string | null): HeadlineRecipe | null {
  const choice = ruleEntry("vllm-bench-serve", version)!;
  const base = { denominator: "successful", start: "send", window: "tool_duration", entry: choice.disclosure } as const;
  const head = `${choice.disclosure}: ${VLLM}`;
  if (key === "request_throughput") {
    return { kind: "request_rate", rules: { ...base, unit: "req/s", to_ms: 1, text: `${head}: completed / duration` } };
  }
  if (key === "output_throughput") {
    return {
      kind: "output_token_rate",
      rules: { ...base, unit: "tok/s", to_ms: 1, text: `${head}: total_output_tokens / duration` },
    };
  }
  if (key === "completed") {
    return { kind: "count", rules: { ...base, unit: "requests", to_ms: 1, text: `${head}: successful requests` } };
  }
  const m = /^(mean|median|p[\d.]+)_(ttft|e2el)_ms$/.exec(key);
  if (!m) return null;
  const latency = m[2] === "ttft" ? "ttft" : "e2e";
  const rules: ToolRules = {
    ...base,
    unit: "ms",
    to_ms: 1,
    text: `${head}: ${m[2]} per successful request, timed from the POST` +
      (m[1] === "mean" ? ", arithmetic mean" : `, percentile by ${METHOD_TEXT.linear}`),
  };
  if (m[1] === "mean") return { kind: "latency_mean", latency, rules };
  const p = m[1] === "median" ? 0.5 : Number(m[1]!.slice(1)) / 100;
  return { kind: "latency_percentile", latency, p, method: "linear", rules };
}

/** GuideLLM's percentile names: p001 = 0.1th, p01 = 1st, p05 = 5th, p999 = 99.9th, else the number. */
const guidellmP = (digits: string) =>
  ({ "001": 0.001, "01": 0.01, "05": 0.05, "999": 0.999 } as Record<string, number>)[digits] ?? Number(digits) / 100;

function guidellm(key: string, version: string | null): HeadlineRecipe | null {
  const m =
    /metrics\.(requests_per_second|request_latency|time_to_first_token_ms)\.successful\.(mean|median|percentiles\.p(\d+))$/
      .exec(key);
  if (!m) return null;
  const choice = ruleEntry("guidellm", version, "GuideLLM < 0.4")!;
  const e = choice.entry;
  const base = {
    denominator: "successful",
    start: "send",
    window: "tool_duration",
    entry: choice.disclosure,
    ...(choice.caveat ? { caveat: choice.caveat } : {}),
  } as const;
  const head = `${choice.disclosure}: ${e.source}`;
  if (m[1] === "requests_per_second") {
    if (m[2] !== "mean") return null;
    return {
      kind: "request_rate",
      rules: { ...base, unit: "req/s", to_ms: 1, text: `${head}: ${e.rate}; ${e.warmup}` },
    };
  }
  const latency = m[1] === "request_latency" ? "e2e" : "ttft";
  const to_ms = m[1] === "request_latency" ? 1000 : 1;
  const unit = to_ms === 1 ? "ms" : "s";
  const text = `${head}: ${m[1]} per request of the ${e.requests}, from the request's start; ${e.warmup}`;
  if (m[2] === "mean") return { kind: "latency_mean", latency, rules: { ...base, unit, to_ms, text } };
  const p = m[3] === undefined ? 0.5 : guidellmP(m[3]);
  return {
    kind: "latency_percentile",
    latency,
    p,
    method: e.method,
    rules: { ...base, unit, to_ms, text: `${text}, percentile by ${METHOD_TEXT[e.method]}` },
  };
}

function genaiPerf(key: string, version: string | null): HeadlineRecipe | null {
  const m = /^([a-z_]+)\.(avg|p\d+)$/.exec(key);
  if (!m) return null;
  const choice = ruleEntry("genai-perf", version)!;
  const e = choice.entry;
  const base = {
    denominator: "successful",
    start: "send",
    window: "first_send_to_last_response",
    entry: choice.disclosure,
  } as const;
  const head = `${choice.disclosure}: ${e.source}`;
  const [, metric, stat] = m as unknown as [string, string, string];
  if (stat === "avg" && metric === "request_throughput") {
    return { kind: "request_rate", rules: { ...base, unit: "requests/sec", to_ms: 1, text: `${head}: ${e.rate}` } };
  }
  if (stat === "avg" && metric === "output_token_throughput") {
    return {
      kind: "output_token_rate",
      rules: { ...base, unit: "tokens/sec", to_ms: 1, text: `${head}: output tokens / the same window` },
    };
  }
  if (stat === "avg" && metric === "request_count") {
    return { kind: "count", rules: { ...base, unit: "count", to_ms: 1, text: `${head}: ${e.requests}` } };
  }
  const latency = metric === "time_to_first_token" ? "ttft" : metric === "request_latency" ? "e2e" : null;
  if (!latency) return null;
  const rules: ToolRules = {
    ...base,
    unit: "ms",
    to_ms: 1,
    text: `${head}: ${metric} per request, from the request's timestamp (the send)` +
      (stat === "avg" ? ", arithmetic mean" : `, percentile by ${METHOD_TEXT[e.method]}`),
  };
  if (stat === "avg") return { kind: "latency_mean", latency, rules };
  return { kind: "latency_percentile", latency, p: Number(stat.slice(1)) / 100, method: e.method, rules };
}

/** With the rule entry stated: LLMPerf's and inference-perf's recipes (one entry each, no version in their files). */
function stated(tool: ImportedTool, version: string | null, recipe: HeadlineRecipe | null): HeadlineRecipe | null {
  if (!recipe) return null;
  const choice = ruleEntry(tool, version)!;
  return {
    ...recipe,
    rules: { ...recipe.rules, entry: choice.disclosure, text: `${choice.disclosure}: ${recipe.rules.text}` },
  };
}

/**
 * The recipe of a tool's headline key under the rule entry for `version` (the version read from the tool's file;
 * null when it states none), or null when this table does not know the key.
 */
export function headlineRecipe(tool: ImportedTool, key: string, version: string | null = null): HeadlineRecipe | null {
  if (tool === "aiperf") return aiperf(key, version);
  if (tool === "vllm-bench-serve") return vllm(key, version);
  if (tool === "guidellm") return guidellm(key, version);
  if (tool === "llmperf") return stated(tool, version, llmperf(key));
  if (tool === "inference-perf") return stated(tool, version, inferencePerf(key));
  if (tool === "genai-perf") return genaiPerf(key, version);
  return null;
}
