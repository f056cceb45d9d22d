import type { DispatchWait } from "./dispatch_timers.ts";
import type { ServerMetricsMode } from "../schema/mod.ts";
import type { HttpClientKind } from "./http/mod.ts";
import type { ProgressSnapshot } from "./progress.ts";

/** Options of one run (the `run` CLI flags). */
export interface RunOptions {
  workload: string;
  plan: string;
  /** Base URL of an OpenAI-compatible server, or the full chat completions URL (or give `routes`). */
  target?: string | null;
  /** A routes file (schema/routes.ts): several targets and the policy that routes requests to them. */
  routes?: string | null;
  /** Route name → base URL, replacing that route's `url` in the routes file. */
  routeUrls?: Record<string, string>;
  /** Parent folder: the run is written to `<out>/<run_id>/`. */
  out: string;
  formats: ("csv" | "parquet")[];
  conditions?: string | null;
  seed?: number | null;
  runId?: string | null;
  shard?: { index: number; count: number };
  /** Shared start time of all shards (ISO); the run waits for it. */
  startAt?: string | null;
  apiKeyEnv?: string;
  /** The dialect of `--target` (runner/dialects/). @default "openai-chat" */
  dialect?: string;
  /** The dialect options of `--target`. */
  dialectOptions?: Record<string, unknown>;
  retryFile?: string | null;
  timeoutsFile?: string | null;
  /** @default RUNNER_DEFAULTS.max_send_lag_ms (runner/settings.ts, as every setting below) */
  maxSendLagMs?: number;
  /** @default RUNNER_DEFAULTS.max_in_flight */
  maxInFlight?: number;
  /** A fixed send-lag bar of the user's (runner/request_tally.ts); absent: none. @default RUNNER_DEFAULTS.lag_limit_ms */
  lagLimitMs?: number;
  /** Most body bytes of one response (runner/attempt.ts). @default RUNNER_DEFAULTS.max_response_bytes */
  maxResponseBytes?: number;
  /** @default RUNNER_DEFAULTS.flush_ms */
  flushMs?: number;
  /** @default RUNNER_DEFAULTS.save_outputs */
  saveOutputs?: boolean;
  /** A unique prefix before each request's first user message (runner/cache_bust.ts). @default RUNNER_DEFAULTS.cache_bust */
  cacheBust?: boolean;
  httpClient?: HttpClientKind;
  /** @default RUNNER_DEFAULTS.progress */
  progress?: boolean;
  /**
   * Keep-alive connections opened to each route before ms 0 (raw client). @default RUNNER_DEFAULTS.preconnect, or for
   * an open loop as many as its first 25 ms of arrivals when more, up to 256 (`preconnectCount` in runner/warm_up.ts)
   */
  preconnect?: number;
  /**
   * Probe each route with one small chat request before ms 0 and stop with {@linkcode PreflightError} when one cannot
   * be reached or does not answer as an OpenAI server (runner/preflight.ts). The CLI turns it on (`--no-preflight`
   * off); library callers, which start their own targets (the demo, the tests), turn it on when they want it.
   * @default false
   */
  preflight?: boolean;
  /**
   * Without a conditions file, name the model of a single `--target` from its `GET /v1/models` list (the first id)
   * instead of `"unstated"` (runner/target_model.ts); run.json `targets[].model_note` says where it came from. The CLI
   * turns it on; library callers turn it on when they want it. @default false
   */
  modelFromTarget?: boolean;
  /** Fetch the target's own timeline from `<base>/sim/timeline` when it has one. @default RUNNER_DEFAULTS.server_timeline */
  serverTimeline?: boolean;
  /**
   * Where the server table comes from (runner/server_metrics/detect.ts); `serverTimeline: false` is `off`.
   * @default RUNNER_DEFAULTS.server_metrics
   */
  serverMetrics?: ServerMetricsMode;
  /** Stops the run early (the rest of the schedule is recorded `not_sent`). */
  signal?: AbortSignal;
  /**
   * How the open-loop dispatcher waits between due times (runner/dispatch.ts): for measuring the dispatcher
   * (bench/dispatch_bench.ts compares `POLLING_WAIT` on `timeout` timers, the loop before it slept).
   * `reads: false` turns off starting due requests after the clients' reads (runner/dispatch.ts `reads`): the loop
   * then polls before every due time, as it did before.
   * @default { wait: DISPATCH_WAIT, timers: "waker", reads: true } (runner/dispatch_timers.ts)
   */
  dispatch?: { wait?: DispatchWait; timers?: "waker" | "timeout"; reads?: boolean };
  /** Receives the progress snapshot every second (and at the end) instead of the line on stderr. */
  onProgress?: (s: ProgressSnapshot) => void;
  /**
   * Awaited once the run is prepared (folder made, targets probed, connections open), before it waits for its start:
   * the shared start time (ISO), which replaces `startAt`, or null to start at once. How a worker of `--workers`
   * waits until every worker is ready (runner/workers/). A stop signal while it waits starts the run at once, with
   * every request `not_sent`.
   */
  startGate?: (prepared: { dir: string; scheduled: number }) => Promise<string | null>;
  /** Awaited just before ms 0 of the run (after warm-up): e.g. to line a simulator's outage clock up with the run's. */
  atStart?: () => Promise<void>;
}
