import { oneShot } from "../schema/load.ts";
import type { AttemptRow, Outcome } from "../schema/mod.ts";
import { Timeouts } from "../schema/run_manifest.ts";
import { recordedServiceMode, SERVICE_MODE_HEADER } from "../schema/service_mode.ts";
import type { Clock } from "./clock.ts";
import type { HttpClient } from "./http/client.ts";
import { SseDecoder } from "./http/sse.ts";
import type { AnswerParser, Dialect, PreparedRoute, ProviderLimits, StreamDecoder } from "./dialects/dialect.ts";
import { type AttemptFailure, parseRetryAfter } from "./retry.ts";
import { RUNNER_DEFAULTS } from "./settings.ts";
import type { Watchdog, Watched } from "./watchdog.ts";
import { NO_PROVIDER_SIGNALS, providerSignals } from "./provider_signals.ts";

/** Where an attempt goes and how long it may take. */
export interface AttemptTarget {
  /** How this route's provider is spoken to (runner/dialects/). */
  dialect: Dialect;
  /** The route prepared by its dialect: addresses, headers, signing. */
  prepared: PreparedRoute;
  route: string;
  provider: string;
  model: string;
  /** This route's own HTTP client; the context's when absent. */
  client?: HttpClient;
}

/** The result of one HTTP call: a filled attempt row and, on success, the response. */
export interface AttemptResult {
  row: AttemptRow;
  state: AnswerParser;
  /** What the provider said in the answer's head about its rate limits; null when it said nothing. */
  limits: ProviderLimits | null;
  /** null when the attempt produced a usable response. */
  failure: (AttemptFailure & { outcome: Outcome }) | null;
}

/** Most response body bytes one attempt reads when the run does not say (runner/settings.ts: 8 MiB). */
export const DEFAULT_MAX_RESPONSE_BYTES: number = RUNNER_DEFAULTS.max_response_bytes;

/** The header timeout when the run does not say: the contract's default (schema/run_manifest.ts `Timeouts`). */
export const DEFAULT_HEADERS_TIMEOUT_MS: number = Timeouts.parse({}, oneShot()).headers_ms;

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
 * Sends one call in the route's dialect and classifies what came back. Never
 * throws: transport failures, bad statuses and malformed bodies are data.
 * Token counts are left to the caller when the response carries no usage.
 */
export async function runAttempt(
  ctx: AttemptContext,
  target: AttemptTarget,
  call: { requestId: string; round: number; attempt: number; body: string; stream: boolean; deadlineMs: number },
): Promise<AttemptResult> {
  const { dialect, prepared } = target;
  const url = prepared.url(call.stream);
  // A signing dialect (Bedrock) signs the final request; the signing is client work, inside the send lag.
  const headers = prepared.sign ? await signed(prepared, url, call.body) : prepared.headers;
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
  const state = dialect.newAnswer();
  let status: number | null = null;
  let head: Map<string, string> | null = null;
  let limits: ProviderLimits | null = null;
  let headersMs: number | null = null;
  let contentType = "";
  let retryAfter: string | null = null;
  let serviceMode: string | null = null;
  let sse: StreamDecoder | null = null;
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
    { url, headers, body: call.body, signal: w.controller.signal },
    {
      onSent(t) {
        sentMs = t;
        if (w.headersDeadlineMs !== null) w.headersDeadlineMs = t + headersTimeoutMs;
      },
      onHeaders(s, headers, t) {
        status = s;
        head = headers;
        headersMs = t;
        w.headersDeadlineMs = null;
        w.lastActivityMs = t;
        contentType = headers.get("content-type") ?? "";
        retryAfter = headers.get("retry-after") ?? null;
        serviceMode = recordedServiceMode(headers.get(SERVICE_MODE_HEADER) ?? null);
        limits = dialect.readLimits(headers);
        if (s >= 200 && s < 300 && call.stream && contentType.includes(dialect.streamContentType)) {
          sse = dialect.newDecoder?.() ?? new SseDecoder();
        }
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
        if (sse) { for (const ev of sse.push(chunk)) state.feedEvent(ev, t); }
        else parts.push(chunk.slice()); // the client's view is valid only during this call
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
  } else if (status < 200 || status >= 300) {
    const text = errorText(parts);
    const verdict = dialect.classifyError(status, head ?? new Map(), text);
    // A wait or quota stated in the body (Gemini) counts as the header would; a header, when sent, wins.
    const said = dialect.readErrorBody?.(text);
    if (said) {
      limits ??= said.limits;
      if (retryAfter === null && said.retryAfterMs !== null) retryAfter = String(said.retryAfterMs / 1000);
    }
    failure = { status, ...verdict, retryAfter };
  } else {
    failure = classifyBody({ stream: call.stream, contentType, sse, parts, state, endMs, dialect });
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
    // What the provider said of its limits and the tier asked for and served (contract 1.7); none said: all null.
    ...(limits === null && prepared.serviceTier === null && state.serviceTier === null
      ? NO_PROVIDER_SIGNALS
      : providerSignals(limits, prepared.serviceTier, state.serviceTier)),
  };
  return { row, state, limits, failure };
}

/** The route's headers with the call's signature (the dialect signs the final URL, headers and body). */
async function signed(prepared: PreparedRoute, url: URL, body: string): Promise<Record<string, string>> {
  return await prepared.sign!({ url, headers: { ...prepared.headers }, body });
}

/** The start of an error answer's body as text, for its dialect to read the provider's error type (at most 64 KiB). */
function errorText(parts: Uint8Array[]): string {
  if (!parts.length) return "";
  const bytes = concat(parts);
  return new TextDecoder().decode(bytes.length > 65_536 ? bytes.subarray(0, 65_536) : bytes);
}

/** A finished 2xx answer as read off the wire, ready to be judged by {@linkcode classifyBody}. */
export interface AnswerBody {
  /** Whether the request asked for a stream. */
  stream: boolean;
  /** The answer's Content-Type header ("" when absent). */
  contentType: string;
  /** The decoder the stream was fed through; null when the answer was not the dialect's event stream. */
  sse: StreamDecoder | null;
  /** The body's bytes, for an unstreamed answer. */
  parts: Uint8Array[];
  /** The answer parser the stream or body is fed into. */
  state: AnswerParser;
  /** The route's dialect (what a failure reported inside the stream means). */
  dialect: Dialect;
  /** The attempt's end, ms on the run clock (the time stamped on the stream's last events). */
  endMs: number;
}

/**
 * Classifies a finished 2xx answer the way every attempt is: content type, then the stream or body
 * through the dialect's answer parser (runner/dialects/). null: a usable answer.
 * Also used by the pre-flight probe (runner/preflight.ts), so both judge an answer alike.
 *
 * A failure the stream itself reported (an error event) comes first; then a framing problem of the decoder, a
 * malformed event or body, a stream that never reached the dialect's end marker, an unusable usage report.
 */
export function classifyBody(body: AnswerBody): AttemptResult["failure"] {
  const { stream, contentType, sse, parts, state, endMs } = body;
  const invalid = (kind: string) => ({ status: null, kind, outcome: "invalid_response" as const });
  if (stream) {
    if (!sse) return invalid("bad_content_type");
    const tail = sse.end();
    for (const ev of tail.events) state.feedEvent(ev, endMs);
    if (state.streamFailure) return { ...state.streamFailure };
    if (sse.problem) return invalid(sse.problem.kind);
    if (state.malformed) return invalid(state.malformedKind ?? "malformed_sse");
    if (!state.complete()) return invalid("stream_incomplete");
    return state.badUsage ? invalid("bad_usage") : null;
  }
  if (!contentType.includes("json")) return invalid("bad_content_type");
  state.feedBody(new TextDecoder().decode(concat(parts)), endMs);
  if (state.streamFailure) return { ...state.streamFailure };
  // A usage count that breaks the wire format (runner/dialects/) would price the answer wrongly: not usable.
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
