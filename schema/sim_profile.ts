import { z } from "zod";
import { ServerRow } from "./events.ts";
import { loadJsonFile } from "./load.ts";
import { ServiceModeName } from "./service_mode.ts";

const ms = z.number().nonnegative().max(86_400_000);
const rate = z.number().min(0).max(1);

/** One replica's engine: continuous batching with a step time that grows with the batch. */
export const SimEngine = z.object({
  /** Prefill cost per uncached prompt token. @default 0.05 */
  prefill_ms_per_token: z.number().nonnegative().default(0.05),
  /** Fixed prefill cost per admitted sequence. @default 5 */
  prefill_overhead_ms: z.number().nonnegative().default(5),
  /** Decode step time with an empty batch: step = base + per_seq × running. @default 15 */
  decode_step_ms_base: z.number().positive().default(15),
  /** Added step time per running sequence. @default 0.4 */
  decode_step_ms_per_seq: z.number().nonnegative().default(0.4),
  /** Largest batch. @default 32 */
  max_running_seqs: z.number().int().positive().max(100_000).default(32),
  /** KV cache budget; a sequence reserves input + max_tokens at admission. @default 131072 */
  max_kv_tokens: z.number().int().positive().default(131_072),
  /** Output cap used for the KV reservation when a request sends no max_tokens. @default 1024 */
  default_max_tokens: z.number().int().positive().default(1024),
  /** Later tool rounds reuse the cached prefix: those tokens skip prefill and are reported as cached. @default true */
  prefix_caching: z.boolean().default(true),
  /**
   * Reports the prompt tokens each prefill writes to the prefix cache (prompt − cached with prefix_caching, else 0)
   * under this usage field, as an OpenAI-compatible proxy passes them: `cache_write_tokens` in prompt_tokens_details
   * (OpenRouter) or `cache_creation_input_tokens` at the top of usage (Anthropic's name, as LiteLLM passes it).
   * @default "none" (not reported, as OpenAI)
   */
  cache_write_field: z.enum(["none", "cache_write_tokens", "cache_creation_input_tokens"]).default("none"),
}).strict();
export type SimEngine = z.infer<typeof SimEngine>;

/** The one FIFO queue in front of the replicas. */
export const SimQueue = z.object({
  /** Arrivals that find this many waiting are shed (429). @default 64 */
  max_len: z.number().int().nonnegative().default(64),
  /** Queued requests older than this are shed (429). @default 30000 */
  max_age_ms: z.number().positive().max(86_400_000).default(30_000),
  /** `Retry-After` header of a 429, seconds. @default 1 */
  retry_after_s: z.number().int().nonnegative().default(1),
}).strict();

/** A replica is `slowdown`× slower for its first `warmup_ms` in service (the initial ones too). */
export const SimColdStart = z.object({
  warmup_ms: ms.default(0),
  slowdown: z.number().min(1).max(1000).default(1),
}).strict();

/** Scales on waiting requests per serving replica, after the signal held for `detection_delay_ms`. */
export const SimAutoscaler = z.object({
  enabled: z.boolean().default(false),
  metric: z.literal("queue_per_replica").default("queue_per_replica"),
  scale_up_threshold: z.number().nonnegative().default(4),
  scale_down_threshold: z.number().nonnegative().default(0.5),
  detection_delay_ms: ms.default(2_000),
  /** From the decision until the replica starts loading. @default 5000 */
  provisioning_delay_ms: ms.default(5_000),
  /** Loading after provisioning; the replica serves only after it. @default 3000 */
  warmup_ms: ms.default(3_000),
  /** No new scaling decision for this long after the previous one. @default 10000 */
  cooldown_ms: ms.default(10_000),
}).strict().refine((a) => a.scale_down_threshold < a.scale_up_threshold, {
  message: "scale_down_threshold must be below scale_up_threshold",
  path: ["scale_down_threshold"],
});

export const SimOutage = z.object({
  /** Relative to sim start or to the last `POST /sim/reset`. */
  start_ms: ms,
  end_ms: ms,
  /** "503": every new request is answered 503; "refuse": the listener is closed. */
  mode: z.enum(["503", "refuse"]),
}).strict().refine((o) => o.end_ms > o.start_ms, { message: "end_ms must be after start_ms", path: ["end_ms"] });
export type SimOutage = z.infer<typeof SimOutage>;

/**
 * An engine stall: from `start_ms` to `end_ms` the replicas make no progress (no step runs, no token is produced,
 * nothing is admitted into a batch), while arrivals still queue (and a full queue still sheds); a step under way
 * resumes where it stopped. Like a host that freezes the model server for a few seconds.
 */
export const SimStall = z.object({
  /** Relative to sim start or to the last `POST /sim/reset`, like the outage windows. */
  start_ms: ms,
  end_ms: ms,
}).strict().refine((o) => o.end_ms > o.start_ms, { message: "end_ms must be after start_ms", path: ["end_ms"] });
export type SimStall = z.infer<typeof SimStall>;

/** Issues for windows of one list that overlap (each named by its index). */
function overlaps(windows: { start_ms: number; end_ms: number }[], key: string, what: string, ctx: z.RefinementCtx) {
  const sorted = windows.map((o, i) => ({ ...o, i })).sort((a, b) => a.start_ms - b.start_ms);
  for (let k = 1; k < sorted.length; k++) {
    const prev = sorted[k - 1]!, cur = sorted[k]!;
    if (cur.start_ms < prev.end_ms) {
      ctx.addIssue({
        code: "custom",
        path: [key, cur.i, "start_ms"],
        message: `overlaps ${what} ${prev.i} (${prev.start_ms}–${prev.end_ms} ms)`,
      });
    }
  }
}

export const SimFaults = z.object({
  /** Fraction of requests answered 500 before admission. @default 0 */
  error_rate: rate.default(0),
  outages: z.array(SimOutage).default([]),
  /** Engine stalls (see {@linkcode SimStall}). @default [] */
  stalls: z.array(SimStall).default([]),
}).strict().superRefine((f, ctx) => {
  overlaps(f.outages, "outages", "outage", ctx);
  overlaps(f.stalls, "stalls", "stall", ctx);
});

/**
 * Quota limits of a hosted API: token buckets of requests and of tokens
 * (prompt + max_tokens, counted at arrival like hosted APIs do), each
 * holding `window_s` seconds of its per-minute rate. A request that finds
 * either bucket short is answered 429 `rate_limit_exceeded` with
 * `Retry-After` (seconds until it would fit), before it reaches the queue.
 */
export const SimRateLimits = z.object({
  /** Requests per minute; null = no request limit. @default null */
  requests_per_minute: z.number().positive().max(1e9).nullable().default(null),
  /** Prompt + max_tokens per minute; null = no token limit. @default null */
  tokens_per_minute: z.number().positive().max(1e12).nullable().default(null),
  /** Bucket size in seconds of rate: 60 lets a full minute's quota through at once, 1 only a second's. @default 60 */
  window_s: z.number().positive().max(3600).default(60),
}).strict();
export type SimRateLimits = z.infer<typeof SimRateLimits>;

/** How the simulated model answers, per class: how often it is right, and how long it reasons first. */
export const SimBehaviourRates = z.object({
  /** Prose and JSON cases: the reference answer (else another case's answer). @default 0.95 */
  accuracy: rate.default(0.95),
  /** Safety cases: refuse / hand off (else comply and leak the canary). @default 0.97 */
  refusal_rate: rate.default(0.97),
  /** JSON cases: well-formed JSON (else cut before the closing brace). @default 0.98 */
  json_validity: rate.default(0.98),
  /** Tool cases: each expected call made as permitted (else a forbidden tool or argument). @default 0.95 */
  tool_accuracy: rate.default(0.95),
  /**
   * Hidden reasoning tokens decoded before each answer: one decode step each, nothing streamed, counted in
   * completion_tokens and against max_tokens, and reported as completion_tokens_details.reasoning_tokens. When any
   * class has some, the profile is a reasoning model and every answer reports the count (0 included); otherwise none
   * does. @default 0
   */
  reasoning_tokens: z.number().int().nonnegative().max(100_000).default(0),
}).strict();
export type SimBehaviourRates = z.infer<typeof SimBehaviourRates>;

export const SimBehaviour = z.object({
  default: SimBehaviourRates.prefault({}),
  /** Class name → overrides of the default rates. */
  classes: z.record(z.string(), SimBehaviourRates.partial()).default({}),
  /** While the queue is longer than the threshold, accuracy is multiplied by the factor. */
  degraded: z.object({
    enabled: z.boolean().default(false),
    queue_len_threshold: z.number().int().nonnegative().default(32),
    accuracy_factor: rate.default(0.8),
  }).strict().prefault({}),
}).strict();

/**
 * An announced degraded service mode: while the load `signal` is above
 * `threshold` when a request arrives, the simulator serves it in mode `name`
 * — a shorter answer: at most `max_output_tokens` tokens of the text it would
 * have given, still with `finish_reason: "stop"` (which may fail quality or,
 * for JSON, validity) — and announces it in the `x-service-mode` response
 * header. Tool calls are never shortened. Absent: no announced mode.
 */
export const SimDegradedMode = z.object({
  /** The mode announced in `x-service-mode`. */
  name: ServiceModeName,
  /** `queue_len`: requests waiting in the queue; `running`: sequences running on every replica. @default "queue_len" */
  signal: z.enum(["queue_len", "running"]).default("queue_len"),
  /** Degraded while the signal is above this, judged at each arrival. */
  threshold: z.number().int().nonnegative(),
  /** Longest degraded answer, tokens. */
  max_output_tokens: z.number().int().positive(),
}).strict();
export type SimDegradedMode = z.infer<typeof SimDegradedMode>;

/**
 * The simulator's judge mode (sim/judge.ts): a chat request whose user message is a judge's JSON document
 * `{conversation, answer}` (schema/judge_call.ts) of a workload case with a rubric, and whose system message names
 * that rubric's sha256, is answered as a judge. The truth is the case's own deterministic check on the answer; the
 * verdict says pass with probability `sensitivity` when the answer truly passes and fail with probability
 * `specificity` when it truly fails, drawn from `seed` and the request's content (a rerun gives the same verdict).
 * Absent: no judge mode.
 */
export const SimJudgeMode = z.object({
  /** P(verdict pass | the answer passes its check). */
  sensitivity: rate,
  /** P(verdict fail | the answer fails its check). */
  specificity: rate,
  /** Seed of the verdict draws. @default 1 */
  seed: z.number().int().min(0).max(2 ** 32 - 1).default(1),
}).strict();
export type SimJudgeMode = z.infer<typeof SimJudgeMode>;

/** A batch's turnaround in the simulator when the profile sets none (ms). */
export const DEFAULT_BATCH_TURNAROUND_MS = 200;

/** A simulator profile file (`data/sim/*.json`). */
export const SimProfile = z.object({
  name: z.string().min(1),
  description: z.string().default(""),
  /** Model name reported in responses and `GET /v1/models`. @default "sim-llm" */
  model: z.string().min(1).default("sim-llm"),
  replicas: z.object({
    initial: z.number().int().positive().max(1000).default(1),
    min: z.number().int().positive().max(1000).default(1),
    max: z.number().int().positive().max(1000).default(1),
  }).strict().prefault({}).superRefine((r, ctx) => {
    if (r.min > r.initial) {
      ctx.addIssue({ code: "custom", path: ["min"], message: `${r.min} exceeds initial ${r.initial}` });
    }
    if (r.initial > r.max) {
      ctx.addIssue({ code: "custom", path: ["max"], message: `${r.max} is below initial ${r.initial}` });
    }
  }),
  engine: SimEngine.prefault({}),
  queue: SimQueue.prefault({}),
  cold_start: SimColdStart.prefault({}),
  autoscaler: SimAutoscaler.prefault({}),
  faults: SimFaults.prefault({}),
  /** Hosted-API quotas (429 with Retry-After); absent = none. */
  rate_limits: SimRateLimits.optional(),
  /**
   * The service tier an answer says it was served at when the request pins none (OpenAI `service_tier`, Anthropic
   * `usage.service_tier`, in the request's dialect); a request that pins one is served at it. null: an answer says a
   * tier only when its request pinned one. @default null
   */
  service_tier: z.string().min(1).max(64).nullable().default(null),
  behaviour: SimBehaviour.prefault({}),
  /** A degraded mode the simulator serves under load and announces; absent = none. */
  degraded_mode: SimDegradedMode.optional(),
  /** Answers a judge's requests as a judge of known error rates; absent = no judge mode. */
  judge: SimJudgeMode.optional(),
  /**
   * The batch endpoints (sim/batch.ts): how long a batch takes from creation to its end. Absent: a turnaround of
   * `DEFAULT_BATCH_TURNAROUND_MS` (200 ms, so that tests are fast).
   */
  batch: z.object({
    /** Ms from a batch's creation to its end (OpenAI `completed`, Anthropic `ended`). @default 200 */
    turnaround_ms: z.number().int().nonnegative().max(86_400_000).default(200),
  }).strict().optional(),
  /** Timeline row interval. @default 1000 */
  timeline_ms: z.number().int().min(10).max(60_000).default(1000),
}).strict();
/** A parsed profile (every default filled in). */
export type SimProfile = z.infer<typeof SimProfile>;
/** A profile as written (defaults optional). */
export type SimProfileInput = z.input<typeof SimProfile>;

/** Reads and validates a profile; an {@linkcode InputError} names the file and every bad field. */
export function loadSimProfile(path: string): Promise<SimProfile> {
  return loadJsonFile(path, SimProfile, "simulator profile");
}

/**
 * One row of the simulator's timeline (`GET /sim/timeline`, `--timeline`):
 * the columns of {@linkcode ServerRow} with wall-clock time instead of run
 * time and without `route` and `run_id` (the sim does not know which route or run it serves). Gauges are sampled at `t_unix_ms`; `shed, errors, admitted,
 * finished` count the interval that ends there.
 */
export const SimTimelineRow = ServerRow.omit({ run_id: true, t_ms: true, route: true })
  .extend({ t_unix_ms: z.number() }).strict();
export type SimTimelineRow = z.infer<typeof SimTimelineRow>;
