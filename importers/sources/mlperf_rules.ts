/**
 * The LoadGen numbers read as headlines: each with its label in `mlperf_log_summary.txt`, its key in
 * `mlperf_log_detail.txt`, its unit and LoadGen's definition (mlcommons/inference `loadgen/results.cc`
 * `ProcessLatencies`, `ProcessTokenLatencies`, `PerfConstraintsMet`, `MinDurationMet`, `EarlyStopping`, `LogSummary`,
 * `LogDetail`; `loadgen/loadgen.cc` `SampleComplete`/`TokenComplete`, which time every sample from its query's
 * scheduled time).
 *
 * @module
 */

/** One LoadGen number: how to find it in either log, and what it means. */
export interface MlperfRule {
  /** The summary label (exact), or a pattern whose first group is the percentile ("99.00"). */
  summary: string | RegExp | null;
  /** The detail key, given the percentile when the summary label is a pattern. */
  detail: ((pct: string) => string) | string | null;
  unit: string;
  definition: (pct: string) => string;
  /** A word (VALID, Server, Yes), read as 1/0 when it is a yes/no. */
  text?: boolean;
}

const FROM_SCHEDULE = "timed from the query's scheduled issue time (LoadGen's own schedule: in Server a Poisson " +
  "process at target_qps), so time a query waited before the SUT took it counts";
const PCT = (p: string) =>
  `${p}th percentile as LoadGen takes it: the sorted value at index ⌊n × ${Number(p) / 100}⌋ (no interpolation)`;

const stats = (
  what: string,
  summary: { min: string; max: string; mean: string; pct: RegExp },
  detail: { min: string; max: string; mean: string; pct: (p: string) => string },
): MlperfRule[] => [
  { summary: summary.min, detail: detail.min, unit: "ns", definition: () => `minimum ${what}` },
  { summary: summary.max, detail: detail.max, unit: "ns", definition: () => `maximum ${what}` },
  { summary: summary.mean, detail: detail.mean, unit: "ns", definition: () => `mean ${what}` },
  { summary: summary.pct, detail: detail.pct, unit: "ns", definition: (p) => `${PCT(p)} of ${what}` },
];

/** The validity rules, stated once (results.cc `LogDetail`). */
export const VALIDITY = "VALID when every check LoadGen makes holds, else INVALID: min duration (Server: the last " +
  "query's scheduled time ≥ min_duration), min queries (queries issued ≥ min_query_count and samples ≥ " +
  "min_sample_count), the performance constraints (Server with token latencies: first-token latency at the target " +
  "percentile, 0.99, ≤ ttft_latency and time per output token at that percentile ≤ tpot_latency, each percentile " +
  "the sorted value at index ⌊n × 0.99⌋ over every sample, latencies from the scheduled time) and early stopping " +
  "(for TTFT and for TPOT: given the samples over the limit, enough queries ran that the percentile is under the " +
  "limit with 99% confidence). Accuracy is judged in a separate accuracy run, not in this log";

export const MLPERF_RULES: MlperfRule[] = [
  {
    summary: "Scenario",
    detail: "effective_scenario",
    unit: "",
    text: true,
    definition: () =>
      "the LoadGen scenario (Server: queries arrive as a Poisson process at target_qps; the Interactive " +
      "category runs the Server scenario with tighter TTFT/TPOT limits)",
  },
  {
    summary: "Mode",
    detail: "effective_test_mode",
    unit: "",
    text: true,
    definition: () => "the test mode (PerformanceOnly: timing only, no accuracy check)",
  },
  { summary: "Result is", detail: "result_validity", unit: "1 = VALID", text: true, definition: () => VALIDITY },
  {
    summary: "Performance constraints satisfied",
    detail: "result_perf_constraints_met",
    unit: "1 = yes",
    text: true,
    definition: () =>
      "Server with token latencies: the first-token latency at target_latency_percentile ≤ ttft_latency AND the " +
      "time per output token at that percentile ≤ tpot_latency (without token latencies: the latency percentile ≤ " +
      "target_latency); percentiles taken over every completed sample, none excluded",
  },
  {
    summary: "Min duration satisfied",
    detail: "result_min_duration_met",
    unit: "1 = yes",
    text: true,
    definition: () => "Server: the last query's scheduled time ≥ min_duration (other scenarios: issue time)",
  },
  {
    summary: "Min queries satisfied",
    detail: "result_min_queries_met",
    unit: "1 = yes",
    text: true,
    definition: () =>
      "queries issued ≥ min_query_count and samples ≥ min_sample_count (the summary prints 'Skipped' when " +
      "max-duration enforcement is off)",
  },
  {
    summary: "Early stopping satisfied",
    detail: "early_stopping_met",
    unit: "1 = yes",
    text: true,
    definition: () =>
      "with token latencies, LoadGen's early-stopping test passes for TPOT and for TTFT: given the t samples over " +
      "the limit, enough queries ran that the target percentile is under the limit with 99% confidence",
  },
  {
    summary: "TTFT Early Stopping Result",
    detail: "early_stopping_ttft_result",
    unit: "",
    text: true,
    definition: () => "LoadGen's early-stopping verdict for TTFT, verbatim",
  },
  {
    summary: "TPOT Early Stopping Result",
    detail: "early_stopping_tpot_result",
    unit: "",
    text: true,
    definition: () => "LoadGen's early-stopping verdict for TPOT, verbatim",
  },
  {
    summary: "Completed samples per second",
    detail: "result_completed_samples_per_sec",
    unit: "samples/s",
    definition: () =>
      "(samples − 1) / the time the last sample completed, from the test's start: completed samples, every one " +
      "counted whatever its latency (the − 1 treats the last start as the open end)",
  },
  {
    summary: "Scheduled samples per second",
    detail: "result_scheduled_samples_per_sec",
    unit: "samples/s",
    definition: () => "(samples − 1) / the last query's scheduled time: the rate LoadGen's schedule offered",
  },
  {
    summary: "Completed tokens per second",
    detail: "result_completed_tokens_per_second",
    unit: "tokens/s",
    definition: () =>
      "the output tokens the SUT reported for all samples / the time the last sample completed (the SUT's own " +
      "token count, not counted by LoadGen)",
  },
  ...stats(`sample latency: completion − scheduled time, ${FROM_SCHEDULE}`, {
    min: "Min latency (ns)",
    max: "Max latency (ns)",
    mean: "Mean latency (ns)",
    pct: /^(\d+\.\d+) percentile latency \(ns\)$/,
  }, {
    min: "result_min_latency_ns",
    max: "result_max_latency_ns",
    mean: "result_mean_latency_ns",
    pct: (p) => `result_${p}_percentile_latency_ns`,
  }),
  ...stats(`first-token latency (TTFT): first token − scheduled time, ${FROM_SCHEDULE}`, {
    min: "Min First Token latency (ns)",
    max: "Max First Token latency (ns)",
    mean: "Mean First Token latency (ns)",
    pct: /^(\d+\.\d+) percentile first token latency \(ns\)$/,
  }, {
    min: "result_first_token_min_latency_ns",
    max: "result_first_token_max_latency_ns",
    mean: "result_first_token_mean_latency_ns",
    pct: (p) => `result_first_token_${p}_percentile_latency_ns`,
  }),
  ...stats(
    "time per output token (TPOT): LoadGen's per-sample time per output token after the first, from the " +
      "sample's completion, its first-token time and the token count the SUT reported",
    {
      min: "Min Time to Output Token (ns)",
      max: "Max Time to Output Token (ns)",
      mean: "Mean Time to Output Token (ns)",
      pct: /^(\d+\.\d+) percentile time to output token \(ns\)$/,
    },
    {
      min: "result_time_to_output_token_min",
      max: "result_time_to_output_token_max",
      mean: "result_time_to_output_token_mean",
      pct: (p) => `result_time_per_output_token_${p}_percentile_ns`,
    },
  ),
  {
    summary: "target_qps",
    detail: "effective_target_qps",
    unit: "queries/s",
    definition: () => "the arrival rate LoadGen scheduled (Server: the Poisson rate)",
  },
  {
    summary: "ttft_latency (ns)",
    detail: "requested_server_ttft_latency",
    unit: "ns",
    definition: () => "the TTFT limit the performance constraint and early stopping compare against",
  },
  {
    summary: "tpot_latency (ns)",
    detail: "requested_server_tpot_latency",
    unit: "ns",
    definition: () => "the TPOT limit the performance constraint and early stopping compare against",
  },
  {
    summary: null,
    detail: "effective_target_latency_percentile",
    unit: "fraction",
    definition: () => "the percentile the performance constraints and early stopping use",
  },
  {
    summary: null,
    detail: "effective_target_latency_ns",
    unit: "ns",
    definition: () => "target_latency: the e2e limit (0 when TTFT/TPOT are the constraints)",
  },
  {
    summary: "min_duration (ms)",
    detail: "effective_min_duration_ms",
    unit: "ms",
    definition: () => "the shortest run LoadGen accepts: min duration met is checked against it",
  },
  {
    summary: "min_query_count",
    detail: "effective_min_query_count",
    unit: "queries",
    definition: () => "the fewest queries LoadGen accepts: min queries met is checked against it",
  },
  {
    summary: null,
    detail: "effective_min_sample_count",
    unit: "samples",
    definition: () => "the fewest samples LoadGen accepts: min queries met checks it too",
  },
  {
    summary: "samples_per_query",
    detail: "effective_samples_per_query",
    unit: "samples",
    definition: () => "samples per query (1 in Server: each query is one request)",
  },
  {
    summary: "performance_sample_count",
    detail: "effective_performance_sample_count",
    unit: "samples",
    definition: () => "the samples loaded for the performance run",
  },
  {
    summary: null,
    detail: "result_query_count",
    unit: "queries",
    definition: () => "the queries LoadGen issued to the SUT in the run",
  },
  {
    summary: null,
    detail: "generated_query_count",
    unit: "queries",
    definition: () => "queries LoadGen generated for its schedule before the run",
  },
  {
    summary: null,
    detail: "generated_query_duration",
    unit: "ns",
    definition: () => "the scheduled time of the last generated query",
  },
  {
    summary: null,
    detail: "result_overlatency_query_count",
    unit: "queries",
    definition: () =>
      "Server: samples whose latency exceeds target_latency; with token latencies target_latency is 0, so every " +
      "sample counts — not a count of failed or late queries under the TTFT/TPOT limits",
  },
  {
    summary: null,
    detail: "num_errors",
    unit: "entries",
    definition: () => "errors LoadGen logged (entries marked is_error), not failed queries",
  },
  {
    summary: null,
    detail: "result_token_throughput_with_loadgen_overhead",
    unit: "tokens/s",
    definition: () => "LoadGen's token throughput with its own overhead, as written (used by non-Server scenarios)",
  },
  {
    summary: null,
    detail: "result_token_throughput",
    unit: "tokens/s",
    definition: () => "LoadGen's token throughput without its overhead, as written (not meaningful in Server)",
  },
];
