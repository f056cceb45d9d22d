/**
 * The simulator's side of a provider dialect: which requests it answers, how
 * its request body becomes the simulator's neutral request
 * ({@linkcode ParsedChat}: the same messages, so the responder finds the same
 * workload case by its prompt hash whatever the dialect), and how an answer,
 * an error, a rate-limit refusal and an overload are written in that
 * provider's own format. One engine, queue, quota and fault model serve every
 * dialect; only the wire format differs. A new dialect is one file beside
 * this one, registered in sim/dialects/mod.ts.
 *
 * @module
 */
import type { ParsedChat } from "../chat_request.ts";

/** A request this dialect answers, read off its method and URL. */
export interface SimMatch {
  /** The model named in the path (Gemini `models/{model}`, Bedrock `model/{modelId}`, Azure deployment), if any. */
  model?: string;
  /** Whether the path itself asks for a stream (Gemini `:streamGenerateContent`, Bedrock `converse-stream`). */
  stream?: boolean;
  /**
   * The request is refused as addressed, before its body is read and before any fault or draw (Azure without
   * `api-version`): the handler answers `dialect.error(error)` and nothing else.
   */
  error?: SimError;
}

/**
 * The simulator's error classes, in OpenAI's terms (`type`/`code` of its error body), which each dialect writes in
 * its own: `invalid_request` (400), `not_found` (404), `server_error` (500), `unavailable` (503), `overloaded` (the
 * queue shed it: OpenAI 429 `overloaded`, Anthropic 529 `overloaded_error`, Gemini 503 `UNAVAILABLE`, Bedrock 503
 * `ServiceUnavailableException`), `rate_limited` (the profile's quota: OpenAI 429 `rate_limit_exceeded`, Anthropic
 * 429 `rate_limit_error`, Gemini 429 `RESOURCE_EXHAUSTED`, Bedrock 429 `ThrottlingException`), `client_closed` (499).
 */
export type SimErrorClass =
  | "invalid_request"
  | "not_found"
  | "server_error"
  | "unavailable"
  | "overloaded"
  | "rate_limited"
  | "client_closed";

/** One error the simulator answers with. */
export interface SimError {
  class: SimErrorClass;
  message: string;
  /** The request field at fault (400s). */
  param?: string | null;
  /**
   * OpenAI's `code` where the simulator has a finer one (`invalid_json`, `context_length_exceeded`,
   * `prompt_too_complex`, `intake_stopped`, …); absent: the class's own.
   */
  code?: string | null;
  /** `rate_limited`: the quota bucket that was short (OpenAI writes it as the error's `type`). */
  limit?: "requests" | "tokens";
  /**
   * Headers to send, all of them (retry-after, retry-after-ms, and the dialect's own {@linkcode SimDialect.limitHeaders}
   * which the handler has already put here when the profile has a quota).
   */
  headers?: Record<string, string>;
}

/** The quota state behind a rate-limit header set: the profile's request and token windows. */
export interface SimQuota {
  limitRequests: number | null;
  remainingRequests: number | null;
  limitTokens: number | null;
  remainingTokens: number | null;
  /** Until both windows are full again, ms (the later of the two below). */
  resetMs: number | null;
  /** Until the request window is full again, ms; absent or null: not said. */
  resetRequestsMs?: number | null;
  /** Until the token window is full again, ms; absent or null: not said. */
  resetTokensMs?: number | null;
}

/** An answer's usage in neutral counts: prompt includes cached and cache-written tokens; output includes reasoning. */
export interface SimUsage {
  prompt: number;
  output: number;
  cached: number;
  /** Hidden reasoning tokens (part of output); absent: the profile does not report them. */
  reasoning?: number;
  /** Prompt-cache writes (part of prompt); absent: not reported. */
  cacheWrite?: number;
  /**
   * Where an OpenAI-compatible proxy reports `cacheWrite` (the profile's `engine.cache_write_field`):
   * `cache_write_tokens` in prompt_tokens_details, or `cache_creation_input_tokens` at the top of usage. Dialects with
   * a field of their own ignore it.
   */
  cacheWriteField?: "cache_write_tokens" | "cache_creation_input_tokens";
}

/**
 * The frames of one streamed answer: each returns what goes on the wire ("" or an empty array for nothing): text
 * (encoded as UTF-8 by the handler) or bytes (Bedrock's binary event stream).
 */
export interface SimStreamFormat {
  /** The opening frames (OpenAI's role chunk, Anthropic's message_start + content_block_start, …). */
  start(): string | Uint8Array;
  /** One visible token of text. */
  content(piece: string): string | Uint8Array;
  /** The start of the answer's one tool call: its id and name. */
  toolCallStart(callId: string, name: string): string | Uint8Array;
  /** A piece of that tool call's arguments (JSON text). */
  toolCallArguments(piece: string): string | Uint8Array;
  /**
   * The closing frames: the finish reason (neutral: `stop`, `length`, `tool_calls`) and the usage (sent only when
   * `includeUsage`; dialects that always send usage ignore it), then the end marker.
   */
  end(finish: string, usage: SimUsage, includeUsage: boolean): string | Uint8Array;
}

/** Everything a whole (non-streamed) answer holds. */
export interface SimAnswerBody {
  id: string;
  model: string;
  created: number;
  /** Visible text, or null when the answer is a tool call. */
  text: string | null;
  toolCall: { id: string; name: string; arguments: string } | null;
  finish: string;
  usage: SimUsage;
  /** The service tier served (the request's, or the profile's default). */
  serviceTier: string | null;
}

/** The simulator's side of one dialect. */
export interface SimDialect {
  readonly name: string;
  /** The request's match when this dialect answers `method` on `url`, else null. */
  match(method: string, url: URL): SimMatch | null;
  /**
   * A refusal of the request's credentials in the dialect's format (Bedrock: no SigV4 `Authorization` header is 403
   * `AccessDeniedException`), read before its body, before any fault and with no draw; null: go on. Absent: any.
   */
  authorize?(headers: Headers): Response | null;
  /**
   * The request body read into the neutral request; a problem names the field (`param`) for a 400. `serviceTier`: the
   * tier the request pins, absent or null when it names none or lets the provider choose (`auto`); the tier served is
   * then the profile's `service_tier` (null: none said).
   */
  parse(
    body: unknown,
    match: SimMatch,
  ): { ok: true; value: ParsedChat } | { ok: false; param: string; message: string };
  /** An error answer in the dialect's format. */
  error(e: SimError): Response;
  /**
   * The rate-limit headers the provider sends, from the quota's state: on every answer while the profile has a quota
   * (its whole state), and on a quota 429 (only the bucket that was short: the other's fields are null). Null fields
   * give no header.
   */
  limitHeaders(q: SimQuota): Record<string, string>;
  /** The content type of a streamed answer (sent with `cache-control: no-cache`). */
  readonly streamContentType: string;
  /**
   * The frames of one streamed answer. The handler writes `start()` when the engine admits the request, one frame per
   * decoded visible token (hidden reasoning tokens and a tool name's later tokens write nothing), and `end(…)` (built
   * before the first token) with the last token: joined into one write when both are strings. Pre-render what does
   * not change per token; a token should cost one concatenation.
   */
  stream(id: string, model: string, created: number, serviceTier: string | null): SimStreamFormat;
  /** A whole answer's JSON body. */
  body(a: SimAnswerBody): unknown;
}

/** A request body's first schema problem as the `param: message` a dialect's 400 names (`(body)` for the whole). */
export function bodyProblem(issues: readonly { path: readonly PropertyKey[]; message: string }[]): {
  ok: false;
  param: string;
  message: string;
} {
  const i = issues[0]!;
  const param = i.path.map(String).join(".") || "(body)";
  return { ok: false, param, message: `${param}: ${i.message}` };
}
