import { z } from "zod";

/** Final state of an offered request. */
export const Outcome = z.enum([
  "ok",
  "http_error",
  "rejected",
  "client_shed",
  "not_sent",
  "timeout",
  "transport_error",
  "invalid_response",
  "aborted",
]);
export type Outcome = z.infer<typeof Outcome>;
export const OUTCOMES: readonly Outcome[] = Outcome.options;

/**
 * How a time column counts: an instant on the run's clock, an absolute instant (ms since 1970-01-01T00:00:00Z, the
 * Unix epoch: contract 1.6's epoch columns, {@linkcode EPOCH_COLUMNS}), or a length of time.
 */
export type TimeUnit = "ms since epoch_iso" | "ms since 1970-01-01T00:00:00Z" | "ms";
/** A point in time: float milliseconds since the run epoch (run.json `epoch_iso`, the ISO instant of ms 0). */
const instant = z.number().meta({ unit: "ms since epoch_iso" satisfies TimeUnit });
/** A length of time in float milliseconds (a lag, a wait, a gap, an age), not a point on the run's clock. */
const duration = z.number().meta({ unit: "ms" satisfies TimeUnit });
/** An instant that may not have happened (null: never reached). */
const ms = instant.nullable();
const count = z.number().int().nonnegative();
/** The run this row belongs to (run.json `run_id`; every shard of a sharded run shares it). */
const runId = z.string();
/** A gate: null when not evaluated, never silently true. */
const gate = z.boolean().nullable();

/** One row per offered task, written even if it was never sent. */
export const RequestRow = z.object({
  run_id: runId,
  request_id: z.string(),
  case_id: z.string(),
  class: z.string(),
  priority: z.number().int(),
  stage: z.string(),
  shard: z.number().int().nonnegative(),
  /** The route of the final outcome: the last attempt's route (never sent: the route the policy chose first). */
  route: z.string(),
  /** The user action: latency starts here. */
  scheduled_ms: instant,
  /**
   * The client's own lateness: the instant the request's first byte was written to the socket (`first_sent_ms`) −
   * `scheduled_ms`, less the waits the workload and the routes policy put before its first call (a retrieval step's
   * replayed latency, a wait for the route's limit). A first call that wrote nothing (no connection): the instant it
   * was handed to the HTTP client instead. A request the dispatcher did not start (`not_sent` past the lag bound,
   * `client_shed`) or that never reached its first call: its lateness at the dispatcher's turn; null: never begun
   * (the rest of a stopped run). Before contract 1.5 the runner recorded its lateness at the dispatcher's turn. Never
   * below 0: nothing is sent before its time.
   */
  send_lag_ms: duration.nonnegative().nullable(),
  /**
   * The instant the first byte of the request's first HTTP call was written to the socket (that attempt's `sent_ms`);
   * null when no call was made.
   */
  first_sent_ms: ms,
  first_token_ms: ms,
  /** Complete, actionable response, after tool rounds and validation. */
  completed_ms: ms,
  outcome: Outcome,
  http_status: z.number().int().nullable(),
  error_kind: z.string().nullable(),
  attempts: count,
  rounds: count,
  tool_calls: count,
  tool_ms: duration.nonnegative(),
  input_tokens: count,
  cached_input_tokens: count,
  output_tokens: count,
  finish_reason: z.string().nullable(),
  output_valid: gate,
  schema_ok: gate,
  quality_ok: gate,
  safety_ok: gate,
  auth_ok: gate,
  quality_detail: z.string().nullable(),
  prompt_sha256: z.string(),
  output_sha256: z.string().nullable(),
  // Added in contract 1.1 (a 1.0 log reads them as null: not recorded).
  /** The class was sent with `stream: true` (SSE): only then are TTFT and TPOT observable. */
  streamed: z.boolean().nullable(),
  /**
   * The gates that apply to this request, comma-separated in gate order: those its case defines (output_valid and
   * quality_ok always; schema_ok with an expected_output_schema; safety_ok for a safety case or a canary; auth_ok
   * when the case offers tools), plus any other gate the runner evaluated (a tool call on a case that offers none
   * is judged by auth_ok). A gate not listed is not applicable; a listed gate that is null was not evaluated.
   */
  applicable_gates: z.string().nullable(),
  /** The service mode of the attempt that gave the final answer (or final failure); null: none announced. */
  service_mode: z.string().nullable(),
  /** Reasoning tokens over every attempt, from the target's usage (null: no attempt reported them). */
  reasoning_tokens: count.nullable(),
  /** Prompt-cache write tokens over every attempt, from the target's usage (null: no attempt reported them). */
  cache_write_tokens: count.nullable(),
}).strict();
export type RequestRow = z.infer<typeof RequestRow>;

/** One row per HTTP call: retries, fallbacks and tool rounds. */
export const AttemptRow = z.object({
  // Added in contract 1.3 (a reader fills it from run.json for an older log).
  run_id: runId,
  request_id: z.string(),
  round: count,
  attempt: count,
  /** The route this attempt was sent to, and its provider and model (a fallback attempt has its own). */
  route: z.string(),
  provider: z.string(),
  model: z.string(),
  /**
   * The instant the call's first byte was written to the socket (`raw` client: as its first write returned; `fetch`:
   * as the call was handed to fetch, the last instant it shows before the answer). A call that wrote nothing (no
   * connection, aborted first): the instant it was handed to the HTTP client; `route_limit_wait`: when the wait ended.
   * Before contract 1.5: the instant the call was handed to the HTTP client.
   */
  sent_ms: instant,
  headers_ms: ms,
  first_token_ms: ms,
  last_token_ms: ms,
  completed_ms: ms,
  http_status: z.number().int().nullable(),
  error_kind: z.string().nullable(),
  /** Why this attempt was retried (null if it was not). */
  retry_reason: z.string().nullable(),
  /** Backoff waited before the next attempt. */
  backoff_ms: duration.nonnegative().nullable(),
  input_tokens: count,
  cached_input_tokens: count,
  output_tokens: count,
  token_source: z.enum(["usage", "tokenizer"]).nullable(),
  finish_reason: z.string().nullable(),
  /** The median gap between the call's streamed tokens (null: no gap was measured); never below 0. */
  itl_p50_ms: duration.nonnegative().nullable(),
  /** The largest such gap. */
  itl_max_ms: duration.nonnegative().nullable(),
  // Added in contract 1.1 (a 1.0 log reads them as null: not recorded).
  /** This call asked for an SSE stream (`stream: true`); false: one JSON body, whose first token is its last. */
  streamed: z.boolean().nullable(),
  /**
   * The service mode the target announced for this answer in its `x-service-mode` header (null: none; `!malformed`:
   * a value that is not 1–64 of `A-Z a-z 0-9 _ . : -`; schema/service_mode.ts).
   */
  service_mode: z.string().nullable(),
  /** Usage `completion_tokens_details.reasoning_tokens` (null: not reported). Part of `output_tokens`. */
  reasoning_tokens: count.nullable(),
  /** Prompt-cache write tokens from usage (null: not reported). */
  cache_write_tokens: count.nullable(),
  /**
   * The Retry-After the target sent with this response (delta seconds or an HTTP date), in ms; null when it sent
   * none or one the runner cannot read (a negative delay among them; an HTTP date already past is 0). A refusal is
   * clean only with it (429/503 + Retry-After).
   */
  retry_after_ms: duration.nonnegative().nullable(),
  // Added in contract 1.7 (an older log reads them as null: not recorded).
  /**
   * The service tier the route asked for (its `dialect_options.service_tier`, e.g. `flex`, `priority`); null when it
   * asked for none.
   */
  service_tier_requested: z.string().nullable(),
  /**
   * The service tier the provider says served this answer (OpenAI's and Anthropic's `service_tier` in the answer);
   * null when the answer did not say (an error, a provider or target that names none).
   */
  service_tier: z.string().nullable(),
  /**
   * The provider's stated rate limits in this response's head (OpenAI `x-ratelimit-*`, Anthropic
   * `anthropic-ratelimit-*`…; runner/dialects): requests and tokens allowed per window, and how many remain after
   * this call. Null when the head did not carry that one.
   */
  rl_limit_requests: count.nullable(),
  rl_remaining_requests: count.nullable(),
  rl_limit_tokens: count.nullable(),
  rl_remaining_tokens: count.nullable(),
  /** Time until the provider's request window resets, ms, as the head states it; null when not stated. */
  rl_reset_requests_ms: duration.nonnegative().nullable(),
  /** Time until the provider's token window resets, ms; null when not stated. */
  rl_reset_tokens_ms: duration.nonnegative().nullable(),
}).strict();
export type AttemptRow = z.infer<typeof AttemptRow>;

/** One row per tool execution (the retrieval step is the tool `retrieval`, round 0). */
export const ToolRow = z.object({
  // Added in contract 1.3 (a reader fills it from run.json for an older log).
  run_id: runId,
  request_id: z.string(),
  round: count,
  tool: z.string(),
  started_ms: instant,
  ended_ms: instant,
  ok: z.boolean(),
  error_kind: z.string().nullable(),
}).strict();
export type ToolRow = z.infer<typeof ToolRow>;

/** The target's own timeline, one row per second. */
export const ServerRow = z.object({
  // Added in contract 1.3 (a reader fills it from run.json for an older log).
  run_id: runId,
  t_ms: instant,
  /** The route whose target this is (routes sharing one target: their names joined by "+"). */
  route: z.string(),
  queue_len: count,
  oldest_queued_ms: duration.nonnegative(),
  running: count,
  replicas: count,
  replicas_warming: count,
  /** Requests shed by the queue (429, overload). */
  shed: count,
  /** Requests refused by the target's rate limits (429, quota), apart from shedding. */
  rate_limited: count,
  errors: count,
  /** Sequences admitted, finished, KV tokens in use during this second (simulator extras). */
  admitted: count,
  finished: count,
  kv_tokens: count,
}).strict();
export type ServerRow = z.infer<typeof ServerRow>;

/** Which clock a phase was measured on: the page's, the service's, or both (a network phase spans the two). */
export const PhaseSide = z.enum(["page", "service", "network"]);
export type PhaseSide = z.infer<typeof PhaseSide>;

/**
 * One row per measured phase of a recorded task that is neither a model call (attempts) nor a tool step (tools):
 * contract 1.5, written only by the recorder (recorder/). The recorder's own phases are `page` (the user's action to
 * the page sending the request), `network_up` (the page's send to the service receiving it), `service` (the service
 * receiving the request to it writing the last byte of its answer), `network_down` (that last byte to the page
 * holding it) and `render` (the page holding the answer to the first paint after the final DOM update); an app may
 * record its own service-side phases (e.g. `queue`). A phase with a page-clock end is placed on the run's clock with
 * the page's estimated clock offset, stated per row.
 */
export const PhaseRow = z.object({
  run_id: runId,
  request_id: z.string(),
  phase: z.string().min(1),
  side: PhaseSide,
  started_ms: instant,
  ended_ms: instant,
  /** Page clock − service clock, estimated by the page (ms); null for a phase measured on the service alone. */
  clock_offset_ms: duration.nullable(),
  /** The bound on that estimate's error (half the best round trip of the page's clock probes), ms; null likewise. */
  clock_error_ms: duration.nonnegative().nullable(),
}).strict();
export type PhaseRow = z.infer<typeof PhaseRow>;

/**
 * Contract 1.6: each table's absolute time column, the last column of its file: the table's anchor instant (`of`, ms
 * since run.json `epoch_iso`) as ms since the Unix epoch, `Date.parse(epoch_iso) + of` in float64 — the relative
 * instant's fraction kept (the sum's float64 step is 2^-12 ms ≈ 0.24 µs at today's dates), not floored to an integer.
 * A writer derives it from the row at write time (schema/log_encode.ts, schema/log_parquet.ts): the rows a writer is
 * given (`RequestRow` …) do not hold it, so no row builder takes a clock reading for it. A reader of an older log
 * derives it the same way from run.json, so every log reads with it.
 */
export const EPOCH_COLUMNS = {
  requests: { name: "scheduled_epoch_ms", of: "scheduled_ms" },
  attempts: { name: "sent_epoch_ms", of: "sent_ms" },
  tools: { name: "started_epoch_ms", of: "started_ms" },
  server: { name: "t_epoch_ms", of: "t_ms" },
  phases: { name: "started_epoch_ms", of: "started_ms" },
} as const;

/** The zod schema of every epoch column: an absolute instant, never null (its anchor is never null). */
export const EpochMs = z.number().meta({ unit: "ms since 1970-01-01T00:00:00Z" satisfies TimeUnit });

/**
 * The ms since the Unix epoch of run.json `epoch_iso` (ms 0 of the run), what every epoch column adds its anchor to.
 * An `epoch_iso` that is not an instant is a `TypeError` naming it.
 *
 * @example
 * ```ts
 * import { epochMsOf } from "./events.ts";
 * import assert from "node:assert/strict";
 * assert.equal(epochMsOf("2026-01-01T00:00:00.250Z"), 1767225600250);
 * ```
 */
export function epochMsOf(epochIso: string): number {
  const ms = Date.parse(epochIso);
  if (!Number.isFinite(ms)) throw new TypeError(`epoch_iso ${JSON.stringify(epochIso)} is not an ISO instant`);
  return ms;
}

/**
 * The contract minor version that added each column (columns not listed are
 * in 1.0). A reader of a log with an older minor fills these with null (not
 * recorded), except `run_id` (1.3 in attempts, tools and server), which it
 * fills with run.json `run_id`: the value every row of the run holds, and the
 * epoch columns (1.6), which it derives from run.json `epoch_iso` and their anchor.
 */
export const COLUMN_SINCE_MINOR: Partial<Record<TableName, Record<string, number>>> = {
  requests: {
    streamed: 1,
    applicable_gates: 1,
    service_mode: 1,
    reasoning_tokens: 1,
    cache_write_tokens: 1,
    scheduled_epoch_ms: 6,
  },
  attempts: {
    run_id: 3,
    streamed: 1,
    service_mode: 1,
    reasoning_tokens: 1,
    cache_write_tokens: 1,
    retry_after_ms: 1,
    sent_epoch_ms: 6,
    service_tier_requested: 7,
    service_tier: 7,
    rl_limit_requests: 7,
    rl_remaining_requests: 7,
    rl_limit_tokens: 7,
    rl_remaining_tokens: 7,
    rl_reset_requests_ms: 7,
    rl_reset_tokens_ms: 7,
  },
  tools: { run_id: 3, started_epoch_ms: 6 },
  server: { run_id: 3, t_epoch_ms: 6 },
  phases: { started_epoch_ms: 6 },
};

/**
 * The attempts columns of contract 1.7 that hold what the provider said about itself: the service tier asked for and
 * served, and the rate limits stated in the response head. No runner before 1.7 read them, so an older log lacks
 * nothing a reader could miss: its attempts read them as null, and the analysis says no quota was recorded.
 */
export const PROVIDER_SIGNAL_COLUMNS = [
  "service_tier_requested",
  "service_tier",
  "rl_limit_requests",
  "rl_remaining_requests",
  "rl_limit_tokens",
  "rl_remaining_tokens",
  "rl_reset_requests_ms",
  "rl_reset_tokens_ms",
] as const satisfies readonly (keyof AttemptRow)[];

/** A table's row columns (its zod schema's keys), then its epoch column. */
function fileColumns<K extends string, E extends string>(shape: Record<K, unknown>, epoch: E): (K | E)[] {
  return [...Object.keys(shape) as K[], epoch];
}

/** Column names of each log table, in file order: the row's columns, then the table's epoch column (1.6). */
export const COLUMNS = {
  requests: fileColumns(RequestRow.shape, EPOCH_COLUMNS.requests.name),
  attempts: fileColumns(AttemptRow.shape, EPOCH_COLUMNS.attempts.name),
  tools: fileColumns(ToolRow.shape, EPOCH_COLUMNS.tools.name),
  server: fileColumns(ServerRow.shape, EPOCH_COLUMNS.server.name),
  phases: fileColumns(PhaseRow.shape, EPOCH_COLUMNS.phases.name),
} as const;
export type TableName = keyof typeof COLUMNS;
export const TABLES = Object.keys(COLUMNS) as TableName[];

/**
 * The contract minor version that added each table (tables not listed are in 1.0). A log of an older minor has no
 * such table: a reader reads it as empty.
 */
export const TABLE_SINCE_MINOR: Partial<Record<TableName, number>> = { phases: 5 };

/** The columns a log of contract minor version `minor` has, in file order. */
export function columnsAt(table: TableName, minor: number): string[] {
  const since = COLUMN_SINCE_MINOR[table] ?? {};
  return (COLUMNS[table] as readonly string[]).filter((c) => (since[c] ?? 0) <= minor);
}
