/**
 * The knee's signal families: what each measures, its unit and which way is
 * worse, and the sample shape each family's statistical guard needs.
 *
 * @module
 */
import { GATE_ORDER } from "../goodput/classify.ts";

/** Whether a rising value is worse (`higher`) or a falling one (`lower`). */
export type Worse = "higher" | "lower";

/**
 * One signal's value at one point, with what its statistical guard needs:
 * `proportion` (num of den; `value` may be a transform of it),
 * `percentile` (its distribution-free CI; tested only when both sides' n
 * support it, lib/percentile_support.ts), `bootstrap` (a seeded 95 % percentile
 * bootstrap CI of a ratio over requests), or `none` (tolerance only; `note`
 * says why there is no test, when the signal states it).
 */
export type SignalSample =
  | { test: "proportion"; value: number | null; num: number; den: number }
  | {
    test: "percentile";
    /** The percentile, as a fraction (0.95 = p95). */
    p: number;
    value: number | null;
    n: number;
    lower: number | null;
    upper: number | null;
    /** n ≥ the n the percentile needs (lib/percentile_support.ts `percentileSupported`, the rule of the guard). */
    supported: boolean;
  }
  | { test: "bootstrap"; value: number | null; n: number; lower: number | null; upper: number | null }
  | { test: "none"; value: number | null; n: number; note?: string };

/** What a signal measures and which way is worse. */
export interface SignalSpec {
  worse: Worse;
  unit: string;
  definition: string;
}

const GATE_SPECS = Object.fromEntries(GATE_ORDER.map((g) => [
  `${g}_rate`,
  {
    worse: "lower",
    unit: "share",
    definition: `${g} true / ${g} evaluated (not null), over completed requests (outcome ok)`,
  },
])) as Record<`${typeof GATE_ORDER[number]}_rate`, SignalSpec>;

/** Every signal family; percentile families get a `@class` suffix (`@all` for every class together). */
export const SIGNALS: Record<string, SignalSpec> = {
  acceptance_rate: { worse: "lower", unit: "share", definition: "accepted / offered (SLO policy per class)" },
  rejection_rate: { worse: "higher", unit: "share", definition: "outcome rejected / offered" },
  error_rate: {
    worse: "higher",
    unit: "share",
    definition: "outcome http_error, transport_error, invalid_response, aborted or timeout / offered",
  },
  client_limit_rate: {
    worse: "higher",
    unit: "share",
    definition: "outcome not_sent or client_shed / offered (the load generator's own limit)",
  },
  ...GATE_SPECS,
  retry_amplification: {
    worse: "higher",
    unit: "calls per model call",
    definition: "HTTP attempts / distinct (request, round) model calls; the test is on retries / attempts",
  },
  tokens_per_accepted: {
    worse: "higher",
    unit: "tokens",
    definition:
      "input + output tokens of every attempt (failed and retried ones included) / accepted requests; the unit cost " +
      "when no price sheet is given (with one, cost_per_accepted is)",
  },
  cost_per_accepted: {
    worse: "higher",
    unit: "price-sheet currency per accepted task",
    definition:
      "the cost ledger's total for the level's requests / the level's accepted tasks, priced by ledger() under the " +
      "price sheet (and overheads sheet) with the window set to the level's stages: failed attempts, retries, tools, " +
      "overheads and fixed costs (GPU-hours, spare replicas, operations) over the level's seconds in the numerator; " +
      "only with a price sheet",
  },
  e2e_p95_ms: { worse: "higher", unit: "ms", definition: "p95 of completed_ms − scheduled_ms, completed requests" },
  e2e_p99_ms: { worse: "higher", unit: "ms", definition: "p99 of completed_ms − scheduled_ms, completed requests" },
  ttft_p95_ms: {
    worse: "higher",
    unit: "ms",
    definition: "p95 of first_token_ms − scheduled_ms, completed streamed requests (TTFT is not observable for a " +
      "request that was not streamed; a class none of whose requests was streamed has no TTFT signal)",
  },
  ttft_p99_ms: {
    worse: "higher",
    unit: "ms",
    definition: "p99 of first_token_ms − scheduled_ms, completed streamed requests (TTFT is not observable for a " +
      "request that was not streamed; a class none of whose requests was streamed has no TTFT signal)",
  },
  server_wait_p95_ms: {
    worse: "higher",
    unit: "ms",
    definition: "p95 of headers_ms − sent_ms of each request's first attempt (queue age seen by the client)",
  },
  server_queue_len_mean: {
    worse: "higher",
    unit: "requests",
    definition: "mean of the server timeline's queue_len (summed over routes) over the stage's seconds",
  },
  server_oldest_queued_max_ms: {
    worse: "higher",
    unit: "ms",
    definition: "max of the server timeline's oldest_queued_ms over the stage's seconds",
  },
};

/** The family of a signal key (`e2e_p95_ms@short_qa` → `e2e_p95_ms`). */
export function signalFamily(key: string): string {
  const at = key.indexOf("@");
  return at < 0 ? key : key.slice(0, at);
}
