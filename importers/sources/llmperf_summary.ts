/**
 * LLMPerf's `*_summary.json`: one flat object (LLMPerfResults, results format "2023-08-31") of the run's settings
 * and `results_*` aggregates, read as headlines under their own keys with the tool's definitions.
 *
 * Definitions from ray-project/llmperf `token_benchmark_ray.py` (`get_token_throughput_latencies`,
 * `metrics_summary`), `src/llmperf/ray_clients/openai_chat_completions_client.py` and `src/llmperf/utils.py`.
 *
 * @module
 */
import { z } from "zod";
import { InputError } from "../../schema/errors.ts";
import type { SourceHeadline } from "../source.ts";
import { checked, parseJson, type SourceText } from "./_source_text.ts";
import { parsePyNumberDict } from "./python_literal.ts";

/** What each per-request metric is, per request (the summary's `results_<metric>_*` describe it over requests). */
export const LLMPERF_METRICS: Record<string, { unit: string; definition: string }> = {
  ttft_s: {
    unit: "s",
    definition: "time.monotonic() from just before the HTTP request is sent to the first SSE chunk with non-empty " +
      "content: client-side, from send (closed loop: there is no schedule)",
  },
  end_to_end_latency_s: {
    unit: "s",
    definition: "time.monotonic() from just before the HTTP request is sent to the end of the stream",
  },
  inter_token_latency_s: {
    unit: "s/token",
    definition: "the sum of the gaps between content chunks counted from the request's start (so TTFT is included) " +
      "divided by the output tokens: ≈ (arrival of the last content chunk − start) / output tokens",
  },
  request_output_throughput_token_per_s: {
    unit: "tokens/s",
    definition: "output tokens / end_to_end_latency_s of the request",
  },
  number_input_tokens: {
    unit: "tokens",
    definition: "the prompt length the tool sampled and built the prompt to, by its own tokenizer (the last sonnet " +
      "line is cut by characters, so the prompt sent may differ slightly)",
  },
  number_output_tokens: {
    unit: "tokens",
    definition: "the generated text's length by the tool's own tokenizer, not the server's usage count",
  },
};

const SCALARS: Record<string, { unit: string; definition: string }> = {
  results_num_requests_started: {
    unit: "requests",
    definition: "the records the tool collected, completed and errored (a request still in flight when the test " +
      "timed out may be missing)",
  },
  results_number_errors: { unit: "requests", definition: "records with an error_code" },
  results_error_rate: { unit: "fraction", definition: "results_number_errors / results_num_requests_started" },
  results_num_completed_requests: { unit: "requests", definition: "records without an error_code" },
  results_num_completed_requests_per_min: {
    unit: "req/min",
    definition: "results_num_completed_requests / (end − start of the whole test, time.monotonic) × 60: the " +
      "completed numerator over the test's wall time",
  },
  results_mean_output_throughput_token_per_s: {
    unit: "tokens/s",
    definition: "the output tokens of records without error / (end − start of the whole test): over the test's wall " +
      "time, not a mean of per-request throughputs",
  },
  num_concurrent_requests: {
    unit: "requests",
    definition: "the configured number of concurrent requests (closed loop)",
  },
  mean_input_tokens: { unit: "tokens", definition: "the configured mean prompt length" },
  stddev_input_tokens: { unit: "tokens", definition: "the configured prompt-length standard deviation" },
  mean_output_tokens: { unit: "tokens", definition: "the configured mean max_tokens" },
  stddev_output_tokens: { unit: "tokens", definition: "the configured max_tokens standard deviation" },
};

const STAT = /^results_(\w+?)_(quantiles_p(\d+)|mean|min|max|stddev)$/;

const Summary = z.looseObject({
  version: z.string().optional(),
  model: z.string().optional(),
  num_concurrent_requests: z.number().int().positive(),
  results_num_requests_started: z.number().int().nonnegative(),
  results_number_errors: z.number().int().nonnegative(),
  results_num_completed_requests: z.number().int().nonnegative(),
  results_error_code_frequency: z.string(),
  timestamp: z.number().optional(),
});
export type LlmperfSummary = z.infer<typeof Summary>;

/** A summary read: the checked object, its headlines, and oddities found. */
export interface ReadSummary {
  summary: LlmperfSummary;
  headlines: SourceHeadline[];
  notes: string[];
}

/** Reads one `*_summary.json`. */
export function readLlmperfSummary(file: SourceText): ReadSummary {
  const value = parseJson(file.text, file.path);
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new InputError(`${file.path}: an LLMPerf summary is one JSON object`);
  }
  const summary = checked(Summary, value, file.path);
  const headlines: SourceHeadline[] = [];
  const stringNumbers: string[] = [];
  for (const [key, raw] of Object.entries(summary)) {
    let v = raw;
    if (typeof v === "string" && (STAT.test(key) || key in SCALARS)) {
      if (!/^[+-]?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(v)) {
        throw new InputError(`${file.path}: ${key}: expected a number, got ${JSON.stringify(v)}`);
      }
      v = Number(v);
      stringNumbers.push(key);
    }
    if (typeof v !== "number") continue;
    // results_num_completed_requests_per_min is a scalar, not the "min" statistic of a metric.
    const stat = key in SCALARS ? null : STAT.exec(key);
    if (stat) {
      const metric = LLMPERF_METRICS[stat[1]!];
      const which = stat[3]
        ? `p${stat[3]} (pandas quantile, linear interpolation)`
        : stat[2] === "stddev"
        ? "standard deviation (pandas, n − 1)"
        : stat[2]!;
      headlines.push({
        key,
        stage: null,
        value: v,
        unit: metric?.unit ?? "",
        definition: `${which} over records without error of: ${
          metric?.definition ?? `LLMPerf's ${stat[1]} as written`
        }`,
      });
    } else if (key in SCALARS) {
      headlines.push({ key, stage: null, value: v, ...SCALARS[key]! });
    }
  }
  let codes;
  try {
    codes = parsePyNumberDict(summary.results_error_code_frequency);
  } catch (e) {
    throw new InputError(`${file.path}: results_error_code_frequency: ${(e as Error).message}`, [], { cause: e });
  }
  for (const { key, value } of codes) {
    headlines.push({
      key: `results_error_code_frequency[${key}]`,
      stage: null,
      value,
      unit: "requests",
      definition: "records with this error_code (pandas value_counts of the error codes; the key as Python printed it)",
    });
  }
  const notes: string[] = [];
  if (stringNumbers.length) {
    notes.push(
      `${file.path}: ${stringNumbers.join(", ")} are written as strings (numpy integers saved with ` +
        "json.dump(default=str)); read as numbers",
    );
  }
  const sum = codes.reduce((s, c) => s + c.value, 0);
  if (sum !== summary.results_number_errors) {
    notes.push(
      `${file.path}: results_error_code_frequency adds up to ${sum}, results_number_errors says ` +
        `${summary.results_number_errors}`,
    );
  }
  if (summary.timestamp !== undefined) {
    notes.push(
      `${file.path}: timestamp ${new Date(summary.timestamp * 1000).toISOString()} is when LLMPerf wrote the ` +
        "result (int(time.time()) in LLMPerfResults), not when the test started",
    );
  }
  return { summary, headlines, notes };
}
