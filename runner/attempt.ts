import { type AttemptRow, type Outcome, recordedServiceMode, SERVICE_MODE_HEADER, Timeouts } from "../schema/mod.ts";
import type { Clock } from "./clock.ts";
import type { HttpClient } from "./http/client.ts";
import { SseDecoder } from "./http/sse.ts";
import { ResponseState } from "./openai.ts";
import { type AttemptFailure, parseRetryAfter } from "./retry.ts";
import { RUNNER_DEFAULTS } from "./settings.ts";
import type { Watchdog, Watched } from "./watchdog.ts";
import { NO_PROVIDER_SIGNALS } from "./provider_signals.ts";

/** Where an attempt goes and how long it may take. */
export interface AttemptTarget {
  url: URL;
  headers: Record<string, string>;
  route: string;
  provider: string;
  model: string;
  /** This route's own HTTP client; the context's when absent. */
  client?: HttpClient;
}

/** The result of one HTTP call: a filled attempt row and, on success, the response. */
export interface AttemptResult {
  row: AttemptRow;
  state: ResponseState;
  /** null when the attempt produced a usable response. */
  failure: (AttemptFailure & { outcome: Outcome }) | null;
}

/** Most response body bytes one attempt reads when the run does not say (runner/settings.ts: 8 MiB). */
export const DEFAULT_MAX_RESPONSE_BYTES: number = RUNNER_DEFAULTS.max_response_bytes;

/** The header timeout when the run does not say: the contract's default (schema/run_manifest.ts `Timeouts`). */
export const DEFAULT_HEADERS_TIMEOUT_MS: number = Timeouts.parse({}).headers_ms;

/** Everything one attempt needs from the run. */
export interface AttemptContext {
  /** The run's id, written to every attempt row. */
  runId: string;
  clock: Clock;
  client: HttpClient;
  watchdog: Watchdog;
  attemptTimeoutMs: number;
  /**
   * Longest wait for the response head from the send (run.json `timeouts.headers_ms`); past it the attempt ends
   * `header_timeout`. @default DEFAULT_HEADERS_TIMEOUT_MS
   */
  headersTimeoutMs?: number;
  /**
   * Most body bytes (after de-chunking) one response may carry; past it the attempt is aborted at once and
   * recorded `invalid_response` / `response_too_large`. @default DEFAULT_MAX_RESPONSE_BYTES
   */
  maxResponseBytes?: number;
}

/**
 * Sends one Chat Completions call and classifies what came back. Never
 * throws: transport failures, bad statuses and malformed bodies are data.
 * Token counts are left to the caller when the response carries no usage.
 */
export async function runAttempt(
  ctx: AttemptContext,
  target: AttemptTarget,
  call: { requestId: string; round: number; attempt: number; body: string; stream: boolean; deadlineMs: number },
): Promise<AttemptResult> {
  // The attempt's timeout counts from when it was handed to the client; its row says when its first byte left.
  const handedMs = ctx.clock.now();
  let sentMs: number | null = null;
  const headersTimeoutMs = ctx.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const w: Watched = {
    controller: new AbortController(),
    attemptDeadlineMs: handedMs + ctx.attemptTimeoutMs,
    requestDeadlineMs: call.deadlineMs,
    // Counted from the hand-over until the first byte is written (a connect counts), then from that byte.
    headersDeadlineMs: handedMs + headersTimeoutMs,
    lastActivityMs: handedMs,
    reason: null,
  };
  ctx.watchdog.watch(w);
  const state = new ResponseState();
  let status: number | null = null;
  let headersMs: number | null = null;
  let contentType = "";
  let retryAfter: string | null = null;
  let serviceMode: string | null = null;
  let sse: SseDecoder | null = null;
  const parts: Uint8Array[] = [];
  const maxBytes = ctx.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  let bodyBytes = 0;
  let refused: string | null = null;
  // An unusable answer (over the cap, encoded): drop what was kept (the decoder's unfinished line included)
  // and end the exchange now.
  const refuse = (kind: string, why: Error) => {
    refused = kind;
    parts.length = 0;
    sse = null;
    w.controller.abort(why);
  };
  const tooLarge = () => refuse("response_too_large", new RangeError(`response over ${maxBytes} bytes`));

  const result = await (target.client ?? ctx.client).send(
    { url: target.url, headers: target.headers, body: call.body, signal: w.controller.signal },
    {
      onSent(t) {
        sentMs = t;
        if (w.headersDeadlineMs !== null) w.headersDeadlineMs = t + headersTimeoutMs;
      },
      onHeaders(s, headers, t) {
        status = s;
        headersMs = t;
        w.headersDeadlineMs = null;
        w.lastActivityMs = t;
        contentType = headers.get("content-type") ?? "";
        retryAfter = headers.get("retry-after") ?? null;
        serviceMode = recordedServiceMode(headers.get(SERVICE_MODE_HEADER) ?? null);
        if (s >= 200 && s < 300 && call.stream && contentType.includes("text/event-stream")) sse = new SseDecoder();
        const declared = Number(headers.get("content-length") ?? "0");
        if (declared > maxBytes) return tooLarge();
        // Both clients ask for `identity` and decode nothing (http/client.ts): an encoded answer cannot be read.
        const encoding = headers.get("content-encoding")?.trim().toLowerCase() ?? "identity";
        if (s >= 200 && s < 300 && encoding !== "identity" && encoding !== "") {
          refuse("content_encoding", new TypeError(`response body encoded as ${encoding.slice(0, 40)}`));
        }
      },
      onData(chunk, t) {
        w.lastActivityMs = t;
        if (refused !== null) return;
        bodyBytes += chunk.length;
        if (bodyBytes > maxBytes) return tooLarge();
        if (sse) { for (const ev of sse.push(chunk)) state.feedChunk(ev.data, t); }
        else parts.push(chunk);
      },
    },
  );
  ctx.watchdog.unwatch(w);
  const endMs = result.endMs;

  let failure: AttemptResult["failure"] = null;
  if (refused !== null) {
    failure = { status: null, kind: refused, outcome: "invalid_response" };
  } else if (w.reason) {
    const outcome: Outcome = w.reason === "run_stopped" ? "aborted" : "timeout";
    failure = { status: null, kind: w.reason, outcome };
  } else if (!result.ok) {
    failure = { status: null, kind: result.kind, outcome: result.kind === "aborted" ? "aborted" : "transport_error" };
  } else if (status === null) {
    failure = { status: null, kind: "protocol_error", outcome: "transport_error" };
  } else if (status === 429) {
    failure = { status, kind: "http_429", outcome: "rejected", retryAfter };
  } else if (status < 200 || status >= 300) {
    failure = { status, kind: `http_${status}`, outcome: "http_error", retryAfter };
  } else {
    failure = classifyBody({ stream: call.stream, contentType, sse, parts, state, endMs });
  }

  const usage = state.usage;
  const itl = state.itl();
  const row: AttemptRow = {
    run_id: ctx.runId,
    request_id: call.requestId,
    round: call.round,
    attempt: call.attempt,
    route: target.route,
    provider: target.provider,
    model: target.model,
    sent_ms: sentMs ?? handedMs,
    headers_ms: headersMs,
    first_token_ms: state.firstTokenMs,
    last_token_ms: state.lastTokenMs,
    completed_ms: failure ? null : endMs,
    http_status: status,
    error_kind: failure?.kind ?? null,
    retry_reason: null,
    backoff_ms: null,
    input_tokens: usage?.prompt_tokens ?? 0,
    cached_input_tokens: usage?.cached_tokens ?? 0,
    output_tokens: usage?.completion_tokens ?? 0,
    token_source: usage ? "usage" : null,
    finish_reason: state.finishReason,
    itl_p50_ms: itl.p50,
    itl_max_ms: itl.max,
    streamed: call.stream,
    service_mode: serviceMode,
    reasoning_tokens: usage?.reasoning_tokens ?? null,
    cache_write_tokens: usage?.cache_write_tokens ?? null,
    retry_after_ms: parseRetryAfter(retryAfter),
    ...NO_PROVIDER_SIGNALS,
  };
  return { row, state, failure };
}

/** A finished 2xx answer as read off the wire, ready to be judged by {@linkcode classifyBody}. */
export interface AnswerBody {
  /** Whether the request asked for a stream. */
  stream: boolean;
  /** The answer's Content-Type header ("" when absent). */
  contentType: string;
  /** The SSE decoder the stream was fed through; null when the answer was not an event stream. */
  sse: SseDecoder | null;
  /** The body's bytes, for an unstreamed answer. */
  parts: Uint8Array[];
  /** The response state the stream or body is fed into. */
  state: ResponseState;
  /** The attempt's end, ms on the run clock (the time stamped on the stream's last events). */
  endMs: number;
}

/**
 * Classifies a finished 2xx answer the way every attempt is: content type, then the stream or body
 * through {@linkcode ResponseState} (runner/response_shape.ts, runner/usage.ts). null: a usable answer.
 * Also used by the pre-flight probe (runner/preflight.ts), so both judge an answer alike.
 */
export function classifyBody(body: AnswerBody): AttemptResult["failure"] {
  const { stream, contentType, sse, parts, state, endMs } = body;
  const invalid = (kind: string) => ({ status: null, kind, outcome: "invalid_response" as const });
  if (stream) {
    if (!sse) return invalid("bad_content_type");
    const tail = (sse as SseDecoder).end();
    for (const ev of tail.events) state.feedChunk(ev.data, endMs);
    if (state.malformed) return invalid(state.malformedKind ?? "malformed_sse");
    if (!state.done && state.finishReason === null) return invalid("stream_incomplete");
    return state.badUsage ? invalid("bad_usage") : null;
  }
  if (!contentType.includes("json")) return invalid("bad_content_type");
  state.feedBody(new TextDecoder().decode(concat(parts)), endMs);
  // A usage count that breaks the wire format (runner/usage.ts) would price the answer wrongly: not usable.
  return state.malformed
    ? invalid(state.malformedKind ?? "invalid_json")
    : state.badUsage
    ? invalid("bad_usage")
    : null;
}

/** The bytes of `parts` in one array (the one part itself when there is one). */
export function concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
