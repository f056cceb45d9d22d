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

const ms = z.number().nullable();
const count = z.number().int().nonnegative();
/** A gate: null when not evaluated, never silently true. */
const gate = z.boolean().nullable();

/** One row per offered task, written even if it was never sent. */
export const RequestRow = z.object({
  run_id: z.string(),
  request_id: z.string(),
  case_id: z.string(),
  class: z.string(),
  priority: z.number().int(),
  stage: z.string(),
  shard: z.number().int().nonnegative(),
  /** The route of the final outcome: the last attempt's route (never sent: the route the policy chose first). */
  route: z.string(),
  /** The user action: latency starts here. */
  scheduled_ms: z.number(),
  /** When the runner began the request minus `scheduled_ms` (the client's own lateness); null if never begun. */
  send_lag_ms: ms,
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
  tool_ms: z.number().nonnegative(),
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
}).strict();
export type RequestRow = z.infer<typeof RequestRow>;

/** One row per HTTP call: retries, fallbacks and tool rounds. */
export const AttemptRow = z.object({
  request_id: z.string(),
  round: count,
  attempt: count,
  /** The route this attempt was sent to, and its provider and model (a fallback attempt has its own). */
  route: z.string(),
  provider: z.string(),
  model: z.string(),
  sent_ms: z.number(),
  headers_ms: ms,
  first_token_ms: ms,
  last_token_ms: ms,
  completed_ms: ms,
  http_status: z.number().int().nullable(),
  error_kind: z.string().nullable(),
  /** Why this attempt was retried (null if it was not). */
  retry_reason: z.string().nullable(),
  /** Backoff waited before the next attempt. */
  backoff_ms: z.number().nonnegative().nullable(),
  input_tokens: count,
  cached_input_tokens: count,
  output_tokens: count,
  token_source: z.enum(["usage", "tokenizer"]).nullable(),
  finish_reason: z.string().nullable(),
  itl_p50_ms: ms,
  itl_max_ms: ms,
}).strict();
export type AttemptRow = z.infer<typeof AttemptRow>;

/** One row per tool execution (the retrieval step is the tool `retrieval`, round 0). */
export const ToolRow = z.object({
  request_id: z.string(),
  round: count,
  tool: z.string(),
  started_ms: z.number(),
  ended_ms: z.number(),
  ok: z.boolean(),
  error_kind: z.string().nullable(),
}).strict();
export type ToolRow = z.infer<typeof ToolRow>;

/** The target's own timeline, one row per second. */
export const ServerRow = z.object({
  t_ms: z.number(),
  /** The route whose target this is (routes sharing one target: their names joined by "+"). */
  route: z.string(),
  queue_len: count,
  oldest_queued_ms: z.number().nonnegative(),
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

/** Column names of each log table, in file order. */
export const COLUMNS = {
  requests: Object.keys(RequestRow.shape) as (keyof RequestRow)[],
  attempts: Object.keys(AttemptRow.shape) as (keyof AttemptRow)[],
  tools: Object.keys(ToolRow.shape) as (keyof ToolRow)[],
  server: Object.keys(ServerRow.shape) as (keyof ServerRow)[],
} as const;
export type TableName = keyof typeof COLUMNS;
export const TABLES = Object.keys(COLUMNS) as TableName[];
