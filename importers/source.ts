/**
 * What a peer tool's result files say, read as they are — before anything is mapped onto the event-log contract.
 *
 * Each reader in `importers/sources/` turns one tool's files into a {@linkcode SourceRun}: the per-request records it
 * holds (times as the tool wrote them, converted only in unit), the tool's own headline numbers under the tool's own
 * names and definitions, and what the files do not hold. Mapping onto the contract (run.json, requests.parquet/csv)
 * happens after this, in one place, so every tool's gaps are stated the same way.
 *
 * Nothing here is inferred silently: a value the source does not hold is `null`, and the reason it is missing goes
 * into {@linkcode SourceRun.lacks}.
 *
 * A source whose records are whole tasks — a user action with its model calls, tool steps and phases, as
 * OpenTelemetry traces hold them — is read into the contract's rows by its reader ({@linkcode SourceRows}), because a
 * task's spans already say what the contract's tables say; the reader states its own mapping rules and lacks.
 *
 * @module
 */
import type { AttemptRow, PhaseRow, RequestRow, ToolRow } from "../schema/events.ts";
import type { ImportedTimeline } from "../schema/imported_manifest.ts";

/**
 * The tools whose result files are read. `generic` is a per-request JSONL/CSV with a mapping file; `otlp` is
 * OpenTelemetry traces as OTLP/JSON from any instrumented app.
 */
export type SourceTool =
  | "vllm-bench-serve"
  | "guidellm"
  | "aiperf"
  | "inference-perf"
  | "llmperf"
  | "mlperf-loadgen"
  | "generic"
  | "otlp"
  | "genai-perf";

/** One source file, as read: its path as given and the sha256 of its bytes. */
export interface SourceFile {
  path: string;
  sha256: string;
  /** What the file is in the tool's terms, e.g. "profile_export.jsonl", "benchmarks.json (report schema v2)". */
  format: string;
}

/** How a request ended, in the tool's terms mapped onto four kinds (the tool's own label kept in `tool_status`). */
export type SourceOutcome =
  /** Answered; the tool counted it as successful. */
  | "ok"
  /** The tool recorded an error (HTTP error, transport error, a failed check of the tool's own). */
  | "error"
  /** Cancelled by the tool (AIPerf's request cancellation, a client-side abort). */
  | "cancelled"
  /** Started but not finished when the tool's window closed (GuideLLM's "incomplete"). */
  | "incomplete";

/**
 * One request as the source recorded it. Absolute times are epoch milliseconds (float); durations are milliseconds.
 * A tool that records only durations (LLMPerf, vLLM's per-request arrays) leaves the absolute times null and fills
 * the durations; a tool that records absolute times fills both where it can.
 */
export interface SourceRequest {
  /** The tool's id for the request, or its position ("#12") when it has none. */
  id: string;
  /** Where the record is, for errors and for the reader: "file:line" or "file: benchmarks[0].requests.errored[3]". */
  at: string;
  /** The stage (benchmark, sweep step, concurrency level) the request belongs to: the tool's label. */
  stage: string;
  outcome: SourceOutcome;
  /** The tool's own status/error label, verbatim (e.g. "RequestCancellationError", "-100 Output too few tokens"). */
  tool_status: string | null;
  /** HTTP status when the tool recorded one. */
  http_status: number | null;

  /** When the tool meant to send it (GuideLLM's targeted_start_time); null when the tool has no schedule. */
  scheduled_epoch_ms: number | null;
  /** When it was sent (request start). */
  sent_epoch_ms: number | null;
  /** When the first token (first content chunk) arrived. */
  first_token_epoch_ms: number | null;
  /** When the answer was complete. */
  completed_epoch_ms: number | null;
  /**
   * When it was sent on the tool's own clock, ms, for a tool that records send times on a clock that is not the wall
   * clock (vLLM's `start_times`: Python's `time.perf_counter()`, whose origin is arbitrary). Differences between
   * requests of one run are real; the value itself is no epoch. Absent or null: not recorded.
   */
  sent_clock_ms?: number | null;

  /** Time to first token as the tool measured it (from its own start point), ms. */
  ttft_ms: number | null;
  /** Request latency (end-to-end) as the tool measured it, ms. */
  e2e_ms: number | null;
  /** Inter-token (inter-chunk) gaps when the tool kept them, ms. */
  itl_ms: number[] | null;

  input_tokens: number | null;
  output_tokens: number | null;
  /** Where the token counts come from: the server's usage block, or the tool's own tokenizer. null: unknown. */
  token_source: "server_usage" | "tool_tokenizer" | null;

  /**
   * Times on a clock that has no epoch (inference-perf's `time.perf_counter()` seconds, a generic file's relative
   * column with no stated start), in ms from that clock's own origin; absent when the source's times are epoch times.
   * When set, the `*_epoch_ms` fields are null: differences between these times are durations on one clock, but their
   * origin says nothing about wall-clock time (`lacks` says so).
   */
  clock_ms?: {
    scheduled: number | null;
    sent: number | null;
    first_token: number | null;
    completed: number | null;
  };

  /**
   * The tool's other per-request numbers under the tool's own names and units in the name (e.g.
   * `guidellm.time_per_output_token_ms`, `aiperf.inter_token_latency_ms`): kept, never renamed to ours.
   */
  tool_metrics: Record<string, number | null>;
}

/** A stage as the tool described it: its load setting and the tool's own request totals. */
export interface SourceStage {
  /** The tool's label (e.g. "constant@2.00", "stage_3", "concurrency 100"). */
  name: string;
  /** The offered request rate the tool was set to, req/s; null when the load was closed-loop or not stated. */
  rate_rps: number | null;
  /** Concurrency the tool held, when closed-loop. */
  concurrency: number | null;
  /** The stage's window as the tool states it, epoch ms; null when not recorded. */
  start_epoch_ms: number | null;
  end_epoch_ms: number | null;
  /** The stage's duration as the tool states it, s. */
  duration_s: number | null;
  /**
   * The tool's own counts, which can exceed the records kept (GuideLLM's "stripped" files keep 1 of 47; a tool may
   * count failures it does not list). null: the tool does not state it.
   */
  totals: { ok: number | null; error: number | null; cancelled: number | null; incomplete: number | null };
}

/** One of the tool's own headline numbers, under the tool's name and definition. */
export interface SourceHeadline {
  /** The tool's key, verbatim (e.g. "request_throughput", "request_goodput:", "Time to First Token (ms)/p99"). */
  key: string;
  /** The stage it is for, or null for the whole run. */
  stage: string | null;
  value: number | null;
  /**
   * A headline that is a word rather than a number (MLPerf's "Result is : VALID", its scenario), verbatim; `value` then
   * holds its yes/no reading (1 = VALID/Yes/true, 0 = INVALID/NO/false) or null when it has none.
   */
  text?: string;
  /** The unit as stated or as documented for that key. */
  unit: string;
  /** The tool's definition, in a sentence (from the tool's docs/source: denominator, start point, inclusion). */
  definition: string;
}

/** A field the source does not hold, and what that means for a number computed from it. */
export interface SourceLack {
  /** The contract field or concept: "scheduled_ms", "failed requests", "gates", "token counts", ... */
  field: string;
  /** The consequence, in a sentence a reviewer can quote. */
  consequence: string;
}

/**
 * The contract's rows of a source whose records are whole tasks (OTLP traces), placed on the run's clock by the
 * reader: written as they are, with the import's run id, instead of one attempt per request (importers/to_contract.ts).
 */
export interface SourceRows {
  /** ms 0 of every time in the rows. */
  epoch_iso: string;
  timeline: ImportedTimeline;
  requests: RequestRow[];
  attempts: AttemptRow[];
  tools: ToolRow[];
  phases: PhaseRow[];
  /** The task classes of the rows, in order of first appearance. */
  classes: string[];
  /** How the records became rows, in words (run.json `mapping`). */
  mapping: string[];
}

/** What a peer tool's files say. */
export interface SourceRun {
  tool: SourceTool;
  /** The tool's version when the files state it (or a schema version, said so: "report schema v2"). */
  tool_version: string | null;
  files: SourceFile[];
  /** Model and endpoint as stated by the tool, when stated. */
  model: string | null;
  stages: SourceStage[];
  /** Per-request records; empty for a summary-only source. */
  requests: SourceRequest[];
  /** True when the files hold no per-request data: the source becomes aggregate claims, not a run. */
  summary_only: boolean;
  headlines: SourceHeadline[];
  lacks: SourceLack[];
  /** Oddities found while reading (a stripped file, a key with a stray colon), each a sentence. */
  notes: string[];
  /** The contract's rows, for a source of whole tasks (OTLP traces); absent for every per-request source. */
  rows?: SourceRows;
}
