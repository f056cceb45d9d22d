/**
 * What a peer tool's headline is and the tool's stated rules for it: the recipe {@linkcode headlineRecipe}
 * (tool_rules.ts) returns. Apart from the tables so that each tool's table (tool_rules.ts,
 * tool_rules_llmperf_inference_perf.ts) shares them without importing the other.
 *
 * @module
 */
import type { PercentileMethod } from "./percentile_by.ts";

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
  /** The rule entry applied and the version it was chosen by ("rule entry AIPerf 0.8 (version read …)"). */
  entry?: string;
  /** One line when the entry is not certain (a version outside every entry, or none in the file). */
  caveat?: string;
  /** Unit of the tool's value, and the factor to ms (latency) or 1 (rates, counts). */
  unit: string;
  to_ms: number;
}
