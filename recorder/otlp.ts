/**
 * An OpenTelemetry exporter for the recorder (recorder/types.ts `TaskExporter`): each written task becomes spans
 * following the GenAI semantic conventions (recorder/otlp_spans.ts; the mapping is docs/otlp.md), sent in batches as
 * OTLP/JSON to a file (one `ExportTraceServiceRequest` per line) or to an OTLP/HTTP endpoint (`POST /v1/traces`,
 * `application/json`).
 *
 * It never blocks the app: `export` only queues the task's rows; the spans are built and sent later, off the
 * request's path, at most `batch_ms` after the first queued task. The queue is bounded: a task that finds `max_queue`
 * tasks waiting or in flight is dropped and counted, and so is a batch the file or the endpoint refused. Nothing it
 * does throws into the app; its failures go to `onError` and to its counters.
 *
 * @example Export a task (of one tool step, no model call) to a file
 * ```ts
 * import assert from "node:assert/strict";
 * import { otlpExporter } from "./otlp.ts";
 * import type { TaskRows } from "./types.ts";
 * const file = await Deno.makeTempFile({ suffix: ".jsonl" });
 * const exporter = otlpExporter({ file, service_name: "chat-app" });
 * // The columns the example needs (a written task has them all).
 * const request = { request_id: "r-1", class: "chat", scheduled_ms: 0, first_sent_ms: null, first_token_ms: null,
 *   completed_ms: 50, outcome: "ok" };
 * const tool = { request_id: "r-1", tool: "retrieval", round: 0, started_ms: 1, ended_ms: 49, ok: true };
 * const rows = { request, attempts: [], tools: [tool], phases: [], epoch_ms: Date.UTC(2026, 0, 1) };
 * exporter.export(rows as unknown as TaskRows);
 * await exporter.close();
 * const line = JSON.parse((await Deno.readTextFile(file)).trim());
 * assert.equal(line.resourceSpans[0].scopeSpans[0].spans.length, 2);
 * assert.equal(exporter.stats().exported, 1);
 * await Deno.remove(file);
 * ```
 * @module
 */
import { appendFile } from "node:fs/promises";
import type { OtlpTraces } from "../schema/otlp.ts";
import { SEMCONV } from "../schema/otlp.ts";
import { SCHEMA_MINOR, SCHEMA_VERSION } from "../schema/version.ts";
import { taskSpans } from "./otlp_spans.ts";
import type { TaskExporter, TaskRows } from "./types.ts";

/** Options of {@linkcode otlpExporter}: exactly one of `file` and `endpoint`. */
export interface OtlpExporterOptions {
  /** Append each batch to this file as one line of OTLP/JSON. */
  file?: string;
  /**
   * POST each batch to this OTLP/HTTP endpoint: a URL whose path ends in `/v1/traces` is used as it is, any other
   * gets `/v1/traces` appended (as OpenTelemetry's `OTEL_EXPORTER_OTLP_ENDPOINT` does).
   */
  endpoint?: string;
  /** The resource's `service.name`. */
  service_name: string;
  /** The resource's `service.version`, when given. */
  service_version?: string;
  /** Headers of every POST (e.g. an API key of the collector). */
  headers?: Record<string, string>;
  /** Most tasks waiting or in flight; past it a task is dropped and counted. @default 2048 */
  max_queue?: number;
  /** Most tasks per batch (one line, or one POST). @default 512 */
  max_batch?: number;
  /** How long the first queued task waits for others before its batch is sent, ms. @default 1000 */
  batch_ms?: number;
  /** How long one POST may take before it is abandoned (its tasks dropped), ms. @default 10000 */
  timeout_ms?: number;
  /** Called with each failure of the exporter (never thrown into the app). */
  onError?: (error: unknown) => void;
}

/** What an exporter did so far. */
export interface OtlpExporterStats {
  /** Tasks written to the file or accepted by the endpoint. */
  exported: number;
  spans: number;
  batches: number;
  /** Tasks waiting or in flight now. */
  pending: number;
  dropped: {
    /** Tasks dropped because `max_queue` tasks were waiting or in flight (or the exporter was closed). */
    queue_full: number;
    /** Tasks of batches the file or the endpoint refused (write error, non-2xx answer, timeout). */
    failed: number;
  };
  errors: number;
}

/** A {@linkcode TaskExporter} with its counters. */
export interface OtlpExporter extends TaskExporter {
  stats(): OtlpExporterStats;
}

/** The instrumentation scope of every span: this recorder, versioned by the contract its rows follow. */
export const OTLP_SCOPE = { name: "goodput-recorder", version: `${SCHEMA_VERSION}.${SCHEMA_MINOR}` } as const;

/** The `/v1/traces` URL of an endpoint option. */
export function tracesUrl(endpoint: string): string {
  const url = new URL(endpoint);
  if (!url.pathname.endsWith("/v1/traces")) url.pathname = `${url.pathname.replace(/\/+$/, "")}/v1/traces`;
  return url.href;
}

/** One OTLP/JSON document holding the spans of `tasks`. */
export function tracesDocument(tasks: readonly TaskRows[], resource: Record<string, string>): OtlpTraces {
  return {
    resourceSpans: [{
      resource: {
        attributes: Object.entries(resource).map(([key, v]) => ({ key, value: { stringValue: v } })),
      },
      scopeSpans: [{ scope: { ...OTLP_SCOPE }, spans: tasks.flatMap(taskSpans) }],
    }],
  };
}

/** An OpenTelemetry exporter of recorded tasks (see the module doc). A bad option is a TypeError at once. */
export function otlpExporter(options: OtlpExporterOptions): OtlpExporter {
  if ((options.file === undefined) === (options.endpoint === undefined)) {
    throw new TypeError("otlpExporter: give exactly one of `file` and `endpoint`");
  }
  const url = options.endpoint === undefined ? null : tracesUrl(options.endpoint);
  const positive = (name: string, v: number | undefined, d: number) => {
    if (v !== undefined && !(Number.isFinite(v) && v > 0)) throw new TypeError(`otlpExporter: ${name} must be > 0`);
    return v ?? d;
  };
  const maxQueue = positive("max_queue", options.max_queue, 2048);
  const maxBatch = positive("max_batch", options.max_batch, 512);
  const batchMs = positive("batch_ms", options.batch_ms, 1000);
  const timeoutMs = positive("timeout_ms", options.timeout_ms, 10_000);
  const resource: Record<string, string> = { [SEMCONV.serviceName]: options.service_name };
  if (options.service_version !== undefined) resource["service.version"] = options.service_version;

  const stats: OtlpExporterStats = {
    exported: 0,
    spans: 0,
    batches: 0,
    pending: 0,
    dropped: { queue_full: 0, failed: 0 },
    errors: 0,
  };
  let queue: TaskRows[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let chain: Promise<void> = Promise.resolve();
  let closed = false;
  const fail = (e: unknown) => {
    stats.errors++;
    try {
      options.onError?.(e);
    } catch {
      // The app's own error handler failed: nothing more can be reported, and nothing may reach the app.
    }
  };

  async function send(batch: TaskRows[]): Promise<void> {
    try {
      const doc = tracesDocument(batch, resource);
      const spans = doc.resourceSpans![0]!.scopeSpans![0]!.spans!.length;
      const body = JSON.stringify(doc);
      if (url === null) await appendFile(options.file!, body + "\n");
      else {
        const res = await fetch(url, {
          method: "POST",
          headers: { ...options.headers, "content-type": "application/json" },
          body,
          signal: AbortSignal.timeout(timeoutMs),
        });
        const text = await res.text();
        if (!res.ok) throw new Error(`${url}: HTTP ${res.status} ${text.slice(0, 200)}`);
      }
      stats.exported += batch.length;
      stats.spans += spans;
      stats.batches++;
    } catch (e) {
      stats.dropped.failed += batch.length;
      fail(e);
    } finally {
      stats.pending -= batch.length;
    }
  }

  function drain(): Promise<void> {
    clearTimeout(timer);
    timer = undefined;
    const taken = queue;
    queue = [];
    for (let i = 0; i < taken.length; i += maxBatch) {
      const batch = taken.slice(i, i + maxBatch);
      chain = chain.then(() => send(batch));
    }
    return chain;
  }

  return {
    export(rows: TaskRows): void {
      try {
        if (closed || stats.pending >= maxQueue) {
          stats.dropped.queue_full++;
          return;
        }
        queue.push(rows);
        stats.pending++;
        if (queue.length >= maxBatch) void drain();
        else timer ??= setTimeout(drain, batchMs);
      } catch (e) {
        fail(e);
      }
    },
    flush(): Promise<void> {
      return drain();
    },
    async close(): Promise<void> {
      closed = true;
      await drain();
    },
    stats(): OtlpExporterStats {
      return { ...stats, dropped: { ...stats.dropped } };
    },
  };
}
