import { z } from "zod";
import { RunConditions } from "./conditions.ts";
import { DrillRecord } from "./drill.ts";
import { PlanSpec, Stage } from "./plan.ts";
import { BatchSpec, RouteLimits, RoutingPolicy } from "./routes.ts";
import { ServerMetricsRecord } from "./server_metrics.ts";

const sha = z.string().regex(/^[0-9a-f]{64}$/);

/** The single retry owner's policy. */
export const RetryPolicy = z.object({
  /** Attempts per round, the first one included. @default 3 */
  max_attempts: z.number().int().min(1).max(20).default(3),
  /** Full-jitter backoff: wait uniform(0, min(cap, base·2^(n−1))). */
  base_ms: z.number().nonnegative().default(100),
  cap_ms: z.number().nonnegative().default(5_000),
  /** Global budget: retries ≤ budget_min + budget_ratio × first attempts so far. */
  budget_ratio: z.number().min(0).max(10).default(0.2),
  budget_min: z.number().int().nonnegative().default(10),
  /** HTTP statuses worth retrying; validation/authorization statuses never are. */
  retry_statuses: z.array(z.number().int()).default([429, 500, 502, 503, 504]),
  retry_transport_errors: z.boolean().default(true),
  /** Wait what Retry-After says (capped by retry_after_cap_ms) instead of the jittered backoff. */
  honour_retry_after: z.boolean().default(true),
  retry_after_cap_ms: z.number().nonnegative().default(10_000),
  /**
   * Retry an attempt that ended `header_timeout` (no response head within `timeouts.headers_ms`: waiting in the
   * target's queue). Off by default: a request the target has queued is not sent again into the queue that held it.
   * @default false
   */
  retry_header_timeouts: z.boolean().default(false),
}).strict().superRefine((p, ctx) => {
  for (const s of [400, 401, 403, 404, 422]) {
    if (p.retry_statuses.includes(s)) {
      ctx.addIssue({
        code: "custom",
        path: ["retry_statuses"],
        message: `${s} is a validation or authorization error and is never retried`,
      });
    }
  }
});
export type RetryPolicy = z.infer<typeof RetryPolicy>;

export const Timeouts = z.object({
  /** One HTTP attempt, from send to the last byte. @default 60000 */
  attempt_ms: z.number().positive().default(60_000),
  /** The whole request, from scheduled_ms (all rounds, retries, tools). @default 120000 */
  request_ms: z.number().positive().default(120_000),
  /**
   * Longest wait for the response head, from the instant the attempt's request was sent: the time a request waits in
   * the target's queue (llama.cpp, vLLM and others send no header until a slot takes it). Past it the attempt ends
   * `header_timeout`, retried only when the retry policy's `retry_header_timeouts` says so. @default 30000
   */
  headers_ms: z.number().positive().default(30_000),
  /** Longest silence inside a response, counted from its head on (each byte that arrives restarts it). @default 30000 */
  idle_ms: z.number().positive().default(30_000),
}).strict();
export type Timeouts = z.infer<typeof Timeouts>;

export const Target = z.object({
  route: z.string(),
  url: z.string(),
  provider: z.string(),
  /** The `model` field sent to this route (its attempts' `model`). */
  model: z.string(),
  /**
   * Where `model` came from when no conditions file stated it: the first id of the target's `GET /v1/models` list, or
   * why that list gave none (then `"unstated"` was sent). Absent when the conditions or the routes file stated it.
   */
  model_note: z.string().optional(),
  /** Name of the environment variable holding the API key (the key itself is never written). */
  api_key_env: z.string().nullable(),
  api_key_present: z.boolean(),
  http_client: z.string(),
  /** The route's dialect (runner/dialects/). Absent in runs written before dialects: `openai-chat`. */
  dialect: z.string().optional(),
  /** The dialect's options as the runner applied them (validated, never a secret). */
  dialect_options: z.record(z.string(), z.unknown()).optional(),
  /**
   * The proxy this route's requests went through, from the environment as Deno's fetch reads it
   * (runner/net_proxy.ts, docs/reach.md): `url` as `scheme://host:port` (credentials, path and query left out) and
   * `env`, the variable that set it; null when they went direct. Absent in runs written before it was recorded.
   */
  proxy: z.object({ url: z.string(), env: z.string() }).strict().nullable().optional(),
}).strict();

/** How requests were spread over `targets` (a run started with a routes file). */
export const RunRouting = z.object({
  /** The routes file as given, and the sha256 of its bytes. */
  path: z.string(),
  sha256: sha,
  name: z.string(),
  policy: RoutingPolicy,
  /**
   * Route → the limits the runner held it to, its (informational) price sheet, and for a batch route its batching
   * (docs/batch.md; absent for a live route).
   */
  routes: z.record(
    z.string(),
    z.object({ limits: RouteLimits, price_sheet: z.string().nullable(), batch: BatchSpec.optional() }).strict(),
  ),
  /** What `requests.route` and `attempts.route` mean, stated in the log. */
  note: z.string(),
}).strict();
export type RunRouting = z.infer<typeof RunRouting>;

/** Why a sweep ended, judged by the runner's own provisional verdicts (`basis` says how). */
export const SweepStoppedBy = z.object({
  rule: z.enum(["acceptance_below", "rejection_above", "max_rps"]),
  /** The last step offered. */
  step: z.string(),
  /** The measured share (acceptance or rejection), or the step's rate for `max_rps`. */
  value: z.number(),
  /** The rule's bound: the floor, the ceiling, or `max_rps`. */
  threshold: z.number(),
  /** Requests scheduled in the step. */
  offered: z.number().int().nonnegative(),
  /** Of those, still unfinished when the rule was judged (counted as not accepted). */
  in_flight: z.number().int().nonnegative(),
  /** How the runner judged acceptance and rejection. */
  basis: z.string(),
}).strict();
export type SweepStoppedBy = z.infer<typeof SweepStoppedBy>;

/** How a run ended (run.json `result.status`); see {@linkcode logEndsEarly}. */
export const RunStatus = z.enum(["running", "complete", "interrupted", "write_failed"]);
export type RunStatus = z.infer<typeof RunStatus>;

/**
 * True when a run's log may end before its schedule does, its last rows missing: killed before finalising
 * (`running`) or stopped by a log write that failed (`write_failed`). Such a log is read as a killed run's.
 */
export function logEndsEarly(result: { status: RunStatus }): boolean {
  return result.status === "running" || result.status === "write_failed";
}

/** The log write that stopped a run (status `write_failed`). */
export const LogWriteFailure = z.object({
  /** The file's name in the run folder. */
  file: z.string(),
  /** The system error code (`ENOSPC` a full disk, `EDQUOT` a quota, `EFBIG` a file too large, …); null: none given. */
  code: z.string().nullable(),
  message: z.string(),
  /** Run time of the failure (ms). */
  at_ms: z.number(),
}).strict();
export type LogWriteFailure = z.infer<typeof LogWriteFailure>;

/** Signals that stop a run cleanly (the first one finalises it; a second exits at once). */
export const StopSignal = z.enum(["SIGINT", "SIGTERM", "SIGHUP"]);
export type StopSignal = z.infer<typeof StopSignal>;

/**
 * One pre-flight probe (runner/preflight.ts): the one small chat request sent to a route before ms 0.
 * It is a real call on the target, recorded here and never in the requests or attempts tables.
 */
export const PreflightProbe = z.object({
  route: z.string(),
  /** The route's chat URL, query values redacted. */
  url: z.string(),
  stream: z.boolean(),
  /** HTTP status; null when no answer came. */
  status: z.number().int().nullable(),
  /** Wall-clock milliseconds from send to the end of the answer (or the failure). */
  ms: z.number().nonnegative(),
  /** An OpenAI answer: a 2xx that passes every attempt's checks, or a 429/503 with an OpenAI error body. */
  ok: z.boolean(),
  /** Why not ok, or `busy: …` for an ok 429/503; null for an ok 2xx. */
  reason: z.string().nullable(),
}).strict();
export type PreflightProbe = z.infer<typeof PreflightProbe>;

/**
 * The machine's CPU contention over a run (runner/cpu_contention.ts), from ms 0 to the end of the schedule: what tells
 * a busy machine from a slow client.
 */
export const CpuContention = z.object({
  /** Where the figures were read. */
  source: z.string(),
  /** The time they cover, ms. */
  window_ms: z.number().nonnegative(),
  /** The runner's main thread (its event loop, which sends every request): time on a CPU, ms. */
  runner_main_cpu_ms: z.number().nonnegative(),
  /** The same thread's run-queue wait: time it was ready to run and waited for a CPU, ms. */
  run_queue_wait_ms: z.number().nonnegative(),
  /** Times the thread was put on a CPU (each after a wait, however short). */
  run_queue_waits: z.number().int().nonnegative(),
  /** Non-idle time of all the machine's CPUs over their total time (`/proc/stat`); null when unreadable. */
  machine_busy_share: z.number().min(0).max(1).nullable(),
  /** CPUs the runner saw. */
  cpus: z.number().int().nonnegative(),
  /** The 1-minute load average (`/proc/loadavg`), sampled once a second: mean and maximum (null: no sample). */
  load_avg_1m_mean: z.number().nonnegative().nullable(),
  load_avg_1m_max: z.number().nonnegative().nullable(),
}).strict();
export type CpuContention = z.infer<typeof CpuContention>;

/** Why the client was the limit: the machine's other work, or the runner's own (docs/runner.md, "CPU contention"). */
export const ClientLimitCause = z.enum(["busy_machine", "slow_client"]);
export type ClientLimitCause = z.infer<typeof ClientLimitCause>;

/** run.json: everything the result is conditional on. */
/** One batch a batch route submitted (run.json `batches`). */
export const BatchRecord = z.object({
  route: z.string(),
  /** The provider's batch id; null when the submission failed before one was given. */
  id: z.string().nullable(),
  /** Items in the batch. */
  items: z.number().int().nonnegative(),
  /** When the batch was submitted: its items' `sent_ms`. */
  submitted_ms: z.number(),
  /** When its results were collected, it failed, or the run stopped waiting for it (`max_wait_s`, a stop). */
  ended_ms: z.number().nullable(),
  /**
   * The provider's last status (OpenAI `completed`, `failed`, `expired`, `cancelled`…; Anthropic `ended`…), or the
   * runner's: `submit_failed`, `max_wait` (still unfinished at `max_wait_s`), `run_stopped`.
   */
  status: z.string(),
  /** The provider's last `request_counts` as it gave them (null: none read). */
  counts: z.record(z.string(), z.number()).nullable(),
}).strict();
export type BatchRecord = z.infer<typeof BatchRecord>;

export const RunManifest = z.object({
  schema_version: z.literal(1),
  /** The contract's minor version (absent in 1.0 logs); see schema/version.ts. */
  schema_minor: z.number().int().nonnegative().default(0),
  run_id: z.string().min(1),
  epoch_iso: z.string().datetime(),
  conditions: RunConditions,
  workload: z.object({
    path: z.string(),
    name: z.string(),
    version: z.string(),
    kind: z.string(),
    sha256: sha,
    prompt_hashes: z.record(z.string(), sha),
    /** Every class the workload defines (1.1; absent in 1.0 logs). */
    classes: z.array(z.string()).optional(),
    /** rubric_id → sha256 of every rubric of the workload's rubrics.json (1.8; absent when it has none). */
    rubric_hashes: z.record(z.string(), sha).optional(),
  }).strict(),
  plan: z.object({
    path: z.string().nullable(),
    spec: PlanSpec,
    seed: z.number().int(),
    mode: z.enum(["open", "closed"]),
    /** Closed loop exists only to compare with open loop; say so. */
    mode_note: z.string(),
    schedule_file: z.string(),
    schedule_sha256: sha,
    scheduled_requests: z.number().int().nonnegative(),
    shard: z.object({ index: z.number().int().nonnegative(), count: z.number().int().positive() }).strict(),
    start_iso: z.string().datetime().nullable(),
    /**
     * What the runner found wrong with the plan before ms 0, one line each (runner/plan_length.ts: levels too short
     * for the knee's percentile signals, in one line naming the step length that would do; each level's n expected and
     * needed is printed by `npx deno task plan`).
     * Absent when it found nothing, and in runs written before the check existed.
     */
    warnings: z.array(z.string()).min(1).optional(),
  }).strict(),
  /** One per route. */
  targets: z.array(Target).min(1),
  /**
   * The hosts the run could reach, `host:port` sorted: every target and the proxy that applies to it
   * (runner/net_allow.ts). A request to any other host is refused; the workers of `--workers` were allowed exactly
   * these. Absent in runs written before it was recorded.
   */
  net_allow: z.array(z.string()).optional(),
  /** Present when the run was started with `--routes`; absent for a single `--target`. */
  routing: RunRouting.optional(),
  retry: RetryPolicy,
  timeouts: Timeouts,
  tokenizer: z.object({
    name: z.string(),
    library: z.string(),
    used_for: z.string(),
    /**
     * The bound on a text the tokenizer counts (runner/token_caps.ts): at most `max_chars` characters and
     * BPE work Σ (pre-token piece length in UTF-8 bytes)² at most `max_work`; a text over it is not
     * counted. Absent in runs written before the bound existed.
     */
    max_chars: z.number().int().positive().optional(),
    max_work: z.number().int().positive().optional(),
    /**
     * Attempts that reached the model without usage and whose text was over that bound: their tokens are 0
     * with `token_source` null, not counted. Set when the run ends; absent before, and in older runs.
     */
    attempts_not_counted: z.number().int().nonnegative().optional(),
  }).strict(),
  stages: z.array(Stage),
  runner: z.object({
    name: z.string(),
    version: z.string(),
    deno: z.string(),
    max_send_lag_ms: z.number().positive(),
    max_in_flight: z.number().int().positive(),
    flush_ms: z.number().positive(),
    save_outputs: z.boolean(),
    formats: z.array(z.enum(["csv", "parquet"])),
    /**
     * Most body bytes one response may carry; a larger one is aborted at once and recorded
     * `invalid_response` / `response_too_large`. Absent in runs written before the cap existed.
     */
    max_response_bytes: z.number().int().positive().optional(),
    /**
     * The cache-busting rule when `--cache-bust` was on (a unique prefix before each request's first user message,
     * runner/cache_bust.ts); null when off. Absent in runs written before it existed.
     */
    cache_bust: z.string().nullable().optional(),
    /**
     * The user's fixed send-lag bar (`--lag-limit-ms`), held to the run's p99 send lag besides the client-limit rule
     * (lib/client_limit_rule.ts); absent when none was set, and in older runs (whose verdict held a 5 ms bar).
     */
    lag_limit_ms: z.number().nonnegative().optional(),
    /**
     * Route name → keep-alive connections opened to it before ms 0 (the `preconnect` setting, or for an open loop as
     * many as its first 25 ms of arrivals, up to 256: runner/warm_up.ts); 0 for a route through fetch (`https:`), and
     * fewer when some connects failed (the run warned). Its first arrivals find them open: their latency holds no TCP
     * connect. Absent in runs written before it was recorded.
     */
    preconnect: z.record(z.string(), z.number().int().nonnegative()).optional(),
  }).strict(),
  host: z.object({
    hostname: z.string(),
    os: z.string(),
    arch: z.string(),
    cpus: z.number().int(),
    memory_bytes: z.number(),
  }).strict(),
  /** How the run ended and whether the client kept up. */
  result: z.object({
    /**
     * `write_failed`: a log file could not be written (a full disk: `write_error` says which file and why); the run
     * stopped there and its log ends early, as a killed run's does (rows after the failure are not on disk), but it
     * was finalised: counts and file hashes are of what is on disk.
     */
    status: RunStatus,
    ended_ms: z.number(),
    offered: z.number().int(),
    not_sent: z.number().int(),
    client_shed: z.number().int(),
    send_lag_p99_ms: z.number().nullable(),
    send_lag_max_ms: z.number().nullable(),
    client_limited: z.boolean(),
    client_limit_reason: z.string().nullable(),
    /** Retries whose attempt was sent (an attempt after the first of its request and round that made an HTTP call). */
    retries: z.number().int(),
    retry_budget_exhausted: z.number().int(),
    /**
     * Retries refused because their wait (backoff or Retry-After) would end at or past the request deadline: never
     * sent, never spent from the budget. Absent in runs written before it existed.
     */
    retry_past_deadline: z.number().int().nonnegative().optional(),
    /**
     * The machine's CPU contention over the run; null where unknown (not Linux). Absent in runs written before it
     * existed.
     */
    cpu_contention: CpuContention.nullable().optional(),
    /**
     * A client-limited run: `busy_machine` when the runner's main thread waited for a CPU at least as long as its own
     * work would make due requests wait (ρ/(1−ρ) × its CPU time, ρ its CPU share: runner/cpu_contention.ts), else
     * `slow_client`; null when the run kept up or the contention is unknown. The reason (`client_limit_reason`) ends
     * with the figures. Absent in runs written before it existed.
     */
    client_limit_cause: ClientLimitCause.nullable().optional(),
    /**
     * The runner's own CPU time (user + system, all its threads) and peak resident memory over the run (VmHWM of
     * /proc/<pid>/status, read by `cat` under `deno task run`'s permissions; null where unknown: not Linux).
     */
    runner_cpu_ms: z.number().nonnegative().nullable(),
    runner_peak_rss_bytes: z.number().int().nonnegative().nullable(),
    /**
     * Sweep plans only: why the sweep ended. `max_rps`: every planned step ran;
     * otherwise the stop rule that held at the end of `step`'s drain (the
     * later steps were not offered). Null when the run was interrupted.
     */
    stopped_by: SweepStoppedBy.nullable().optional(),
    /**
     * The signal that stopped the run (status `interrupted`); null when none did (it completed, or was stopped by
     * its caller's abort signal). Absent in runs written before it existed.
     */
    stopped_by_signal: StopSignal.nullable().optional(),
    /**
     * Rows of the targets' `GET /sim/timeline` answers that were not valid
     * timeline rows (wrong field, type or value) and were dropped, never
     * written to the server table (absent: none dropped, or no timeline fetched).
     */
    server_rows_dropped: z.number().int().nonnegative().optional(),
    /** Status `write_failed` only: the first log write that failed (absent otherwise, and in older runs). */
    write_error: LogWriteFailure.optional(),
  }).strict(),
  /** How the server table was filled: each server's source, its columns' origins, its polls (absent in older runs). */
  server_metrics: ServerMetricsRecord.optional(),
  /** The pre-flight probe of each route before ms 0 (absent when the probe was off, and in older runs). */
  preflight: z.array(PreflightProbe).optional(),
  /** The plan's operator drills and each hook call's result (1.1; absent when the plan has none). */
  drills: z.array(DrillRecord).optional(),
  /**
   * Every batch a batch route submitted (docs/batch.md): its provider id, when it was submitted and when the run
   * stopped following it (ms on the run clock), its last status and request counts. Absent when the run had no batch
   * route.
   */
  batches: z.array(BatchRecord).optional(),
  /** File name → sha256 when the run was finalised (tamper evidence). */
  files: z.record(z.string(), sha),
}).strict();
export type RunManifest = z.infer<typeof RunManifest>;
