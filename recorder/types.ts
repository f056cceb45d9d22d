/**
 * The recorder's public shapes: what an app calls to record its users' tasks in the contract's event log
 * (schema/events.ts), and what a page sends to join its own timing to the service's record.
 *
 * Times are wall-clock milliseconds since the Unix epoch, as floats (`performance.timeOrigin + performance.now()`
 * by default); the recorder writes them as ms since its run's `epoch_iso`. Every method that takes `at` uses the
 * clock's now when it is omitted.
 *
 * @module
 */
import type { AttemptRow, Outcome, PhaseRow, RequestRow, ToolRow } from "../schema/events.ts";

/** The recorder's clock: wall-clock ms since the Unix epoch (float). Tests pass a fake one. */
export interface Clock {
  now(): number;
}

/** Options of {@linkcode recorder}. */
export interface RecorderOptions {
  /** The run folder to write (created if absent; refused if it holds another run). */
  out: string;
  run_id: string;
  /** The app observed: its name and version are frozen conditions of every number. */
  app: { name: string; version: string };
  /** The workload's name and the task classes the app has (a class first seen at `begin` is added). */
  workload?: { name: string; classes?: string[] };
  /** requests.route and attempts.route when a model call names none. @default "app" */
  route?: string;
  /** attempts.provider and attempts.model when a model call names none. */
  provider?: string;
  model?: string;
  /** Other frozen conditions, as the app states them (region, deployment, …): written to run.json. */
  conditions?: Record<string, string>;
  /** The share of user actions recorded, 0 < sample ≤ 1, decided from the request id (page and service agree). @default 1 */
  sample?: number;
  /** The length of each stage window, s. @default 3600 */
  stage_s?: number;
  /**
   * Rotate the current part to Parquet after this long, s, or when its CSVs pass this many bytes.
   * @default { every_s: 3600, max_bytes: 67108864 }
   */
  rotate?: { every_s?: number; max_bytes?: number };
  /**
   * Rows held in memory before records are dropped (and counted); how often the open tasks are swept (timeouts) and
   * run.json rewritten and rotation checked, ms (`flush_ms`); how long after it ended a task's rows are built and
   * handed to the writer, ms (`settle_ms`: a `rendered()`, `responded()` or a call's `end()` that late still counts).
   * @default { max_rows: 10000, flush_ms: 1000, settle_ms: 50 }
   */
  buffer?: { max_rows?: number; flush_ms?: number; settle_ms?: number };
  /** A task not completed this long after its user action is written as unfinished, ms. @default 600000 */
  task_timeout_ms?: number;
  /** How long a completed task that expects a page record waits for it before it is written without one, ms. @default 30000 */
  page_wait_ms?: number;
  /** Called with each failure of the recorder itself (never thrown into the app). */
  onError?: (error: unknown) => void;
  /** Where each written task also goes (e.g. recorder/otlp.ts's OpenTelemetry exporter). */
  exporters?: TaskExporter[];
  /** A fake clock for tests. */
  clock?: Clock;
  /**
   * Where the log is written: `thread`, a writer thread (node:worker_threads) the app's thread posts the rows to, or
   * `app`, the app's own thread. A writer thread that cannot be started falls back to `app` (run.json
   * `recorder.writer` says which wrote). @default "thread"
   */
  writer?: "thread" | "app";
}

/** The rows of one finished task, as written to the log (times in ms since the run's epoch). */
export interface TaskRows {
  request: RequestRow;
  attempts: AttemptRow[];
  tools: ToolRow[];
  phases: PhaseRow[];
  /** The run's epoch (ms 0) in ms since the Unix epoch, to turn row times back into instants. */
  epoch_ms: number;
}

/**
 * A second destination for written tasks. `export` is called once per task, after its rows are buffered, and must
 * not block (queue and send later); `flush` and `close` are awaited by the recorder's own. A failure is counted as a
 * recorder error and never reaches the app.
 */
export interface TaskExporter {
  export(rows: TaskRows): void;
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** What `begin` is told at the user's action. */
export interface TaskStart {
  class: string;
  case_id?: string;
  /** @default 0 */
  priority?: number;
  /**
   * The request id the page sent (header `x-goodput-request-id`); a new one when absent. Ids are unique per run: an id
   * whose task is still open is refused (counted as an error).
   */
  request_id?: string;
  /** A page will post its timing for this task (the page sent the request id): wait for it before writing. */
  page?: boolean;
  /**
   * The user's action, when known earlier than the call: ms since the Unix epoch on the recorder's clock
   * (`rec.clockNow()`). Every `at` of the API is checked: one later than the clock's now, or earlier than what it follows
   * (a task's instants: its action; a call's: its send), is counted as an error and the moment of the call is used
   * (docs/recorder.md, "Instants the app tells").
   */
  at?: number;
  /**
   * The prompt text, when the app has it at hand: requests.prompt_sha256 is its sha256 (UTF-8). Without it the
   * column holds the sha256 of the case_id (docs/recorder.md).
   */
  prompt?: string;
}

/** The usage a model call reported. */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens?: number;
  reasoning_tokens?: number | null;
  cache_write_tokens?: number | null;
}

/** What an attempt (one model call) is told when it starts. */
export interface AttemptStart {
  route?: string;
  provider?: string;
  model?: string;
  /** The tool round this call belongs to. @default 0 */
  round?: number;
  streamed?: boolean;
  at?: number;
}

/** How a model call ended. */
export interface AttemptEnd {
  /** A usable answer came back (2xx and a complete body). */
  ok: boolean;
  http_status?: number | null;
  error_kind?: string | null;
  /** Why the caller will retry this call (null or absent: it will not). */
  retry_reason?: string | null;
  backoff_ms?: number | null;
  retry_after_ms?: number | null;
  usage?: Usage | null;
  finish_reason?: string | null;
  service_mode?: string | null;
  at?: number;
}

/** One model call of a task: a first call, a retry, a fallback or a tool round. */
export interface Attempt {
  /** The response headers arrived. */
  headers(status: number, at?: number): void;
  /** A content token arrived (the first one is the attempt's first token; the gaps give its ITL). */
  token(at?: number): void;
  end(result: AttemptEnd): void;
}

/** The task's answer and its gates (null: not evaluated; absent: not applicable). */
export interface Completion {
  output?: string | null;
  valid?: boolean | null;
  schema_ok?: boolean | null;
  quality_ok?: boolean | null;
  safety_ok?: boolean | null;
  auth_ok?: boolean | null;
  quality_detail?: string | null;
  finish_reason?: string | null;
  at?: number;
}

/** One user action being recorded. Every method is a no-op on an unsampled task, and none ever throws. */
export interface Task {
  readonly request_id: string;
  readonly sampled: boolean;
  /** The service received the user's request (the start of the `service` phase). */
  received(at?: number): void;
  /** The request left the client (the page's send, or the service's own when there is no page). */
  sent(at?: number): void;
  /** The user's first token (when the service streams it on). */
  firstToken(at?: number): void;
  /** A model call starts. */
  attempt(start?: AttemptStart): Attempt;
  /** Runs a retrieval (`"retrieval"`) or tool step and records it in the tools table; the result passes through. */
  span<T>(tool: string, fn: () => T | Promise<T>, options?: { round?: number }): Promise<T>;
  /** Runs a service-side phase of the app's own (e.g. `"queue"`) and records it in the phases table. */
  phase<T>(name: string, fn: () => T | Promise<T>): Promise<T>;
  /** The answer is complete and validated. */
  complete(result?: Completion): void;
  /** The service wrote the last byte of its answer (the end of the `service` phase). */
  responded(at?: number): void;
  /** The user holds the answer (the service's view when there is no page: e.g. a server-rendered page flushed). */
  rendered(at?: number): void;
  /** The task ended without an answer. */
  fail(outcome: Exclude<Outcome, "ok" | "not_sent" | "client_shed">, error_kind: string, at?: number): void;
  /** Runs `fn` with this task as the current one, so a recording `fetch` called inside it records its attempts. */
  run<T>(fn: () => T): T;
}

/** The clock probe a page makes: its send and receive times around the service's time. */
export interface ClockSample {
  page_sent_ms: number;
  service_ms: number;
  page_received_ms: number;
}

/** What recorder/browser.js posts for one task: page-clock times and its clock estimate. */
export interface PageRecord {
  request_id: string;
  /** The click or submit event's timestamp (`performance.timeOrigin + event.timeStamp`). */
  action_ms: number;
  /** The page called fetch. */
  sent_ms: number;
  first_byte_ms: number | null;
  /** The first paint after the first token was put in the DOM. */
  first_paint_ms: number | null;
  /** The page held the answer's last byte. */
  last_byte_ms: number | null;
  /** The first paint after the final DOM update. */
  rendered_ms: number | null;
  /** Page clock − service clock, ms, and the bound on its error (half the best probe's round trip). */
  clock_offset_ms: number;
  clock_error_ms: number;
  /** The page gave up (navigated away, a failed fetch): why. */
  error?: string | null;
}

/** The recorder's counters. */
export interface RecorderStats {
  begun: number;
  sampled_out: number;
  written: number;
  buffered: number;
  dropped: { requests: number; attempts: number; tools: number; phases: number };
  page_records_unjoined: number;
  recorder_errors: number;
}

/** A recorder: begin tasks, take page records, and write the log. */
export interface Recorder {
  readonly run_id: string;
  readonly out: string;
  begin(start: TaskStart): Task;
  /** Joins a page's record to its task (posted by recorder/browser.js). Never throws; a bad record is counted. */
  page(record: unknown): void;
  /** The service's clock for a page's clock probe. */
  clockNow(): number;
  /** The current task (inside `task.run`), for a recording fetch. */
  current(): Task | undefined;
  stats(): RecorderStats;
  /** Writes what is buffered now. */
  flush(): Promise<void>;
  /** Closes the current part (CSV → Parquet) and starts a new one. */
  rotate(): Promise<void>;
  /** Writes every task still open as unfinished, rotates the last part and closes run.json. */
  close(): Promise<void>;
}
