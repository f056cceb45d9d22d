/**
 * The peer tools' rules, pinned per tool and version range: for each entry, which duration its rates divide by, how it
 * takes a percentile, which requests its statistics count and what it does with a warm-up — each with the file and
 * function of the tool's source it comes from. {@linkcode ruleEntry} picks the entry for the version read from the
 * imported file; a version outside every entry gets the nearest one and a one-line caveat naming both, never silence.
 * docs/peer_definitions.md prints this table.
 *
 * @module
 */
import type { ImportedTool } from "../../schema/imported_manifest.ts";
import type { PercentileMethod } from "./percentile_by.ts";

/** One tool's rules over a range of its versions. */
export interface ToolRuleEntry {
  tool: ImportedTool;
  /** The entry as printed: "AIPerf ≥ 0.8". */
  label: string;
  /** The versions it covers: `from` inclusive, `below` exclusive (major.minor.patch); absent: unbounded. */
  from?: string;
  below?: string;
  /** The real published files (and their versions) a test checks the entry on, or "fixture only". */
  checked_on: string;
  /** Rates: amount / which duration. */
  rate: string;
  /** The percentile method, in words; `method` is the one the recomputation takes. */
  percentile: string;
  method: PercentileMethod;
  /** Which requests its statistics count. */
  requests: string;
  /** Warm-up handling. */
  warmup: string;
  /** The tool's source files and functions these rules come from. */
  source: string;
}

const AIPERF_OLD =
  "ai-dynamo/aiperf@db4f639 (Oct 2025) aiperf/metrics/types/request_throughput_metric.py RequestThroughputMetric, " +
  "output_token_throughput_metrics.py OutputTokenThroughputMetric, benchmark_duration_metric.py, " +
  "aiperf/common/models/record_models.py MetricResult (numpy.percentile)";
const AIPERF_NEW = "ai-dynamo/aiperf src/aiperf/metrics/metric_dicts.py MetricResultsDict.observation_duration " +
  "(window_end_ns − window_start_ns when a window is set, else benchmark_duration) and metric_result_from_array " +
  "(x[lo] + frac·(x[lo+1] − x[lo]) at (n−1)·q); src/aiperf/metrics/accumulator.py _summarize_for_export_context " +
  "(the profiling phase's start_ns/end_ns as the window; records masked by benchmark_phase)";

/** Every entry; within a tool, in version order. */
export const TOOL_RULES: readonly ToolRuleEntry[] = [
  {
    tool: "aiperf",
    label: "AIPerf < 0.8 (records form)",
    below: "0.8.0",
    checked_on: "ai-dynamo/aiperf examples/artifacts/run1 (records form, no version in the file)",
    rate: "request_count (or total_osl) / benchmark_duration = max_response_timestamp − min_request_timestamp " +
      "(first request sent → last response)",
    percentile: "numpy.percentile, linear interpolation",
    method: "linear",
    requests: "successful records only (request_count); errored and cancelled ones are counted apart",
    warmup: "no warm-up phase in this form",
    source: AIPERF_OLD,
  },
  {
    tool: "aiperf",
    label: "AIPerf 0.8",
    from: "0.8.0",
    below: "0.9.0",
    checked_on: "SemiAnalysisAI/InferenceX AIPerf 0.8.0 kimik2.7 conc1 (profile_export_aiperf.json, .jsonl, .csv)",
    rate: "request_count (or total_osl) / the profiling phase's window end_time − start_time (observation " +
      "duration), NOT benchmark_duration (first request → last response, also written)",
    percentile: "linear interpolation between closest ranks at (n−1)·q (numpy.percentile's default)",
    method: "linear",
    requests: "successful records of the profiling phase only (benchmark_phase = profiling)",
    warmup: "warm-up records are a phase of their own (benchmark_phase = warmup), left out of every profiling " +
      "statistic and summarised apart (warmup_metrics)",
    source: AIPERF_NEW,
  },
  {
    tool: "vllm-bench-serve",
    label: "vLLM bench serve",
    checked_on: "llm-d-benchmark fixture vllm_benchmark_results.json (summary only)",
    rate: "completed (or total_output_tokens) / duration = benchmark end − start (time.perf_counter around the " +
      "whole run)",
    percentile: "numpy.percentile, linear interpolation",
    method: "linear",
    requests: "successful requests only (outputs with success = True)",
    warmup: "none measured: the optional warm-up request is sent before the clock starts",
    source: "vllm-project/vllm vllm/benchmarks/serve.py calculate_metrics and benchmark",
  },
  {
    tool: "guidellm",
    label: "GuideLLM < 0.4",
    below: "0.4.0",
    checked_on: "vllm-project/guidellm benchmarks_stripped.json (v0.3.0, 1 of 47 records kept: totals only)",
    rate: "successful requests / the benchmark's duration (requests_per_second's mean)",
    percentile: "the first value whose cumulative probability (running sum of 1/n) reaches p: nearest rank, " +
      "no interpolation",
    method: "inverse_cdf_each",
    requests: "successful requests (the .successful distribution; errored and incomplete apart)",
    warmup: "every request of the benchmark (no warm-up window in this form)",
    source: "vllm-project/guidellm@v0.3.0 src/guidellm/objects/statistics.py " +
      "DistributionSummary.from_distribution_function (cdf[argmax(cdf ≥ p)])",
  },
  {
    tool: "guidellm",
    label: "GuideLLM 0.4 – 0.8",
    from: "0.4.0",
    below: "0.9.0",
    checked_on: "llm-d-benchmark guidellm_report_v2.json (GuideLLM 0.8.0.dev18, two benchmarks of 2 requests)",
    rate: "successful requests in the measurement window / (measure_end − measure_start) " +
      "(requests_per_second's mean: rates weighted by their intervals)",
    percentile: "searchsorted(cumsum(pdf), p, 'left') over the distinct values (weights count/n): nearest " +
      "rank x₍⌈p·n⌉₎, no interpolation",
    method: "inverse_cdf",
    requests: "successful requests inside the measurement window (get_within_range); errored and incomplete apart",
    warmup: "requests outside measure_start → measure_end (warm-up, cool-down) are left out",
    source: "vllm-project/guidellm src/guidellm/schemas/statistics.py Percentiles.from_pdf, " +
      "DistributionSummary.from_values, rate_distribution_from_timings; " +
      "src/guidellm/benchmark/schemas/metrics.py GenerativeMetrics.compile",
  },
  {
    tool: "llmperf",
    label: "LLMPerf",
    checked_on: "ray-project/llmperf-leaderboard bedrock_70b and groq_70b (individual + summary)",
    rate: "records without error / (end − start of the whole test) (× 60 per minute); the test's wall time is " +
      "not written, so each rate's window is implied by the other",
    percentile: "pandas Series.quantile, linear interpolation",
    method: "linear",
    requests: "records without error_code",
    warmup: "none",
    source: "ray-project/llmperf token_benchmark_ray.py metrics_summary",
  },
  {
    tool: "inference-perf",
    label: "inference-perf",
    checked_on: "kubernetes-sigs/inference-perf kubecon-na-2025 lifecycle reports (summary only)",
    rate: "successful requests / (max end_time − min start_time over every recorded request of the stage)",
    percentile: "numpy.percentile, linear interpolation",
    method: "linear",
    requests: "successful requests (failures counted apart)",
    warmup: "none: every request of the stage",
    source: "kubernetes-sigs/inference-perf inference_perf/reportgen/base.py summarize_requests",
  },
  {
    tool: "mlperf-loadgen",
    label: "MLPerf LoadGen v4.x",
    checked_on: "mlcommons inference_results AMD 8xMI300X llama2-70b-99.9 Interactive run_1 (summary + detail)",
    rate: "completed samples / (last completion − first scheduled issue) (Server: completed_samples_per_sec)",
    percentile: "the sorted value at index ⌊n·p⌋, no interpolation",
    method: "index_floor",
    requests: "every completed sample; latency from its query's scheduled time",
    warmup: "none measured: LoadGen's performance run has no warm-up phase (the SUT warms up before it)",
    source: "mlcommons/inference loadgen/results.cc ProcessLatencies, ProcessTokenLatencies; " +
      "loadgen/loadgen.cc SampleComplete",
  },
  {
    tool: "genai-perf",
    label: "GenAI-Perf",
    checked_on: "fixture only (test/fixtures/genai_perf/, written from the documented format: no real file)",
    rate: "request count / (last response − first request) of perf_analyzer's measurement window",
    percentile: "numpy.percentile, linear interpolation",
    method: "linear",
    requests: "the requests in perf_analyzer's profile export (request_count = their number)",
    warmup: "not stated in the summary exports (warm-up is perf_analyzer's, before its export)",
    source: "triton-inference-server/perf_analyzer genai-perf/genai_perf/metrics/llm_statistics.py Statistics " +
      "(np.percentile), llm_metrics.py and profile_data_parser/llm_profile_data_parser.py",
  },
];

/** [major, minor, patch] of a version string ("0.8.0.dev18" → [0, 8, 0]); null when it has none. */
export function versionParts(v: string | null): [number, number, number] | null {
  const m = v === null ? null : /(\d+)\.(\d+)(?:\.(\d+))?/.exec(v);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : null;
}

const cmp = (a: [number, number, number], b: [number, number, number]) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** The entry that applies, what was read, and a one-line caveat when the entry is not certain. */
export interface RuleChoice {
  entry: ToolRuleEntry;
  /** "rule entry AIPerf 0.8 (version read from the file: 0.8.0)". */
  disclosure: string;
  caveat: string | null;
}

/**
 * The rule entry of `tool` for the version read from its file (`version`, null when the file states none). `hint`
 * names an entry's label prefix the file's form points to when it states no version (AIPerf's records form).
 */
export function ruleEntry(tool: ImportedTool, version: string | null, hint?: string): RuleChoice | null {
  const entries = TOOL_RULES.filter((e) => e.tool === tool);
  if (!entries.length) return null;
  const read = version === null ? "no version in the file" : `version read from the file: ${version}`;
  const single = entries.length === 1 && entries[0]!.from === undefined && entries[0]!.below === undefined;
  if (single) return { entry: entries[0]!, disclosure: `rule entry ${entries[0]!.label} (${read})`, caveat: null };
  const v = versionParts(version);
  if (v === null) {
    const hinted = hint === undefined ? undefined : entries.find((e) => e.label.startsWith(hint));
    const entry = hinted ?? entries[entries.length - 1]!;
    return {
      entry,
      disclosure: `rule entry ${entry.label} (${read}${hinted ? "; taken from the file's form" : ""})`,
      caveat: hinted ? null : `the file states no ${tool} version: the newest rule entry, ${entry.label}, is applied`,
    };
  }
  const within = entries.find((e) =>
    (e.from === undefined || cmp(v, versionParts(e.from)!) >= 0) &&
    (e.below === undefined || cmp(v, versionParts(e.below)!) < 0)
  );
  if (within) return { entry: within, disclosure: `rule entry ${within.label} (${read})`, caveat: null };
  // Outside every range: the nearest entry by its bounds.
  const distance = (e: ToolRuleEntry) => {
    const lo = e.from === undefined ? null : versionParts(e.from)!;
    const hi = e.below === undefined ? null : versionParts(e.below)!;
    const gap = (a: [number, number, number], b: [number, number, number]) =>
      Math.abs((a[0] - b[0]) * 1e6 + (a[1] - b[1]) * 1e3 + (a[2] - b[2]));
    return Math.min(lo ? gap(v, lo) : Infinity, hi ? gap(v, hi) : Infinity);
  };
  const nearest = [...entries].sort((a, b) => distance(a) - distance(b))[0]!;
  return {
    entry: nearest,
    disclosure: `rule entry ${nearest.label} (${read})`,
    caveat: `${tool} ${version} is outside the known rule entries: the nearest, ${nearest.label} (checked on ` +
      `${nearest.checked_on}), is applied`,
  };
}
