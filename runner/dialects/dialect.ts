/**
 * The one interface every provider dialect implements: how a route's call is
 * addressed and signed, how the frozen workload case becomes that provider's
 * request body, how its answer (a stream or a whole body) becomes the
 * runner's rows, and what its error statuses, rate-limit headers and service
 * tier mean. A new dialect is one file beside this one (and its simulator
 * side in sim/dialects/), registered in runner/dialects/mod.ts.
 *
 * The conversation is kept in one neutral form, the OpenAI Chat Completions
 * messages ({@linkcode WireMessage}); each dialect maps it to its own wire
 * format when it builds a body, so later rounds of a tool-calling task are
 * built the same way on every route.
 *
 * @module
 */
import type { Outcome, WorkloadCase } from "../../schema/mod.ts";
import type { ObservedToolCall } from "../checks/check.ts";
import type { Usage } from "../usage.ts";

/** The dialects a route may name (routes file `dialect`, `run --dialect`). */
export const DIALECT_NAMES = [
  "openai-chat",
  "openai-responses",
  "anthropic-messages",
  "gemini",
  "bedrock-converse",
  "azure-openai",
] as const;
/** One dialect name. */
export type DialectName = typeof DIALECT_NAMES[number];
/** The dialect of a route that names none: OpenAI Chat Completions (vLLM, SGLang, TGI, llama.cpp, Ollama, LiteLLM). */
export const DEFAULT_DIALECT: DialectName = "openai-chat";

/** A message of the OpenAI Chat Completions wire format: the neutral form of a conversation. */
export type WireMessage =
  | { role: "system" | "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: WireToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

/** One tool call of an assistant message in the neutral form. */
export interface WireToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** What a route says about reaching its provider, as the routes file (or `--target`) gives it. */
export interface DialectRouteSpec {
  /** The route's base URL as given (a dialect adds its own path when the URL does not already name it). */
  url: string;
  /** The model sent (or, for Azure, the deployment unless `deployment` is given). */
  model: string;
  /** The key read from the route's `api_key_env` (null: none). Never written anywhere. */
  key: string | null;
  /** The route's `dialect_options` (each dialect validates its own; unknown fields are refused). */
  options: Record<string, unknown>;
  /**
   * Where the route came from, for error messages: `--target` or `<file>: routes.<name>`. An option's error names
   * `<where>.dialect_options.<field>`.
   */
  where: string;
  /** The environment (the standard AWS variables for Bedrock). @default Deno.env.get */
  env?: (name: string) => string | undefined;
}

/** One call's parameters beyond the conversation. */
export interface DialectCall {
  model: string;
  stream: boolean;
  /** The output cap: the case's `max_output_tokens`, capped by the run's `--max-output-tokens`. */
  maxTokens: number;
}

/** A route prepared for sending: addresses, static headers, signing, and what is recorded about it. */
export interface PreparedRoute {
  /** The endpoint of one call (Gemini and Bedrock use another path for a streamed call). */
  url(stream: boolean): URL;
  /** Headers every call carries, the key's header included (content-type, accept, version headers…). */
  headers: Record<string, string>;
  /**
   * Names (lower-case) of headers whose values are secrets: never written, printed or reported. Signed headers
   * (`authorization`, `x-amz-security-token`) are named here too.
   */
  secretHeaders: readonly string[];
  /**
   * Signs one call (Bedrock: SigV4 over the final URL, headers and body); null when the dialect does not sign.
   * Returns the headers to send (the given ones plus the signature's).
   */
  sign: ((req: { url: URL; headers: Record<string, string>; body: string }) => Promise<Record<string, string>>) | null;
  /** The service tier this route asks for (`dialect_options.service_tier`), null when it asks for none. */
  serviceTier: string | null;
  /** The dialect options as recorded in run.json (validated, defaults filled in; never a secret). */
  options: Record<string, unknown>;
}

/**
 * One event of a streamed answer. SSE: `event` is the `event:` field (null when absent), `data` the joined `data:`
 * lines. AWS event stream: `event` is the `:event-type` header (or `:exception-type` prefixed by `exception:` for
 * an exception frame), `data` the payload decoded as UTF-8.
 */
export interface StreamEvent {
  event?: string | null;
  data: string;
}

/**
 * Decodes a streamed answer's bytes into events as they arrive (runner/http/sse.ts `SseDecoder` for SSE; the AWS
 * event-stream decoder for Bedrock). `end()` returns the events only the stream's end completed, and whether bytes
 * were left over (the stream was cut inside an event). A decoder never throws on bad input; a framing problem is
 * reported in `problem` (the attempt becomes `invalid_response` with `kind`).
 */
export interface StreamDecoder {
  push(bytes: Uint8Array): readonly StreamEvent[];
  end(): { events: readonly StreamEvent[]; partial: boolean };
  /** The first framing problem found (an AWS frame with a bad checksum…); null when none. */
  readonly problem?: { kind: string; message: string } | null;
}

/**
 * A failure the answer itself reports while streaming (Anthropic `event: error`, an OpenAI Responses
 * `response.failed`, a Bedrock exception frame): the attempt ends with this kind and outcome.
 */
export interface StreamFailure {
  kind: string;
  outcome: Outcome;
  /** The HTTP-like status the provider gives the failure, when it gives one (Bedrock: 429 for throttling). */
  status: number | null;
}

/**
 * One attempt's answer being read: the text, tool calls, usage, finish reason and token timing, fed event by event
 * (or once with a whole body). Every field the provider sends is checked where it enters: a field of the wrong type
 * sets `malformed` and `malformedKind` (the attempt becomes `invalid_response` with that kind), never an exception.
 *
 * `finishReason` is in the neutral vocabulary, whatever the provider calls it: `stop`, `length`, `tool_calls`,
 * `content_filter`, or `refusal`; anything else is kept as the provider sent it, prefixed by the dialect
 * (e.g. `anthropic:pause_turn`). A tool-calling round continues only on `tool_calls`.
 */
export interface AnswerParser {
  readonly text: string;
  readonly finishReason: string | null;
  /** The usage in the neutral counts (runner/usage.ts `Usage`), null when none was reported or it was unusable. */
  readonly usage: Usage | null;
  /** Why a usage report could not be used (the attempt becomes `invalid_response` / `bad_usage`). */
  readonly badUsage: string | null;
  readonly firstTokenMs: number | null;
  readonly lastTokenMs: number | null;
  readonly malformed: string | null;
  readonly malformedKind: string | null;
  /** The service tier the provider says served the answer (OpenAI/Anthropic `service_tier`), null when not said. */
  readonly serviceTier: string | null;
  /** A failure the stream reported (see {@linkcode StreamFailure}); null when none. */
  readonly streamFailure: StreamFailure | null;
  feedEvent(ev: StreamEvent, tMs: number): void;
  /** A whole non-streamed body: its tokens all arrive at `tMs`. */
  feedBody(body: string, tMs: number): void;
  /** The stream reached the dialect's end (OpenAI `[DONE]` or a finish reason, Anthropic `message_stop`, …). */
  complete(): boolean;
  toolCalls(): (ObservedToolCall & { id: string })[];
  itl(): { p50: number | null; max: number | null };
}

/** What a provider said in a response head about its limits (null: the header was absent or unreadable). */
export interface ProviderLimits {
  /** Requests allowed in the current window, and how many remain. */
  limit_requests: number | null;
  remaining_requests: number | null;
  /** Tokens allowed in the current window (input + output, or the provider's one token quota), and how many remain. */
  limit_tokens: number | null;
  remaining_tokens: number | null;
  /** Milliseconds until the request and token windows reset. */
  reset_requests_ms: number | null;
  reset_tokens_ms: number | null;
}

/** An error answer judged: its `error_kind` and outcome. */
export interface ErrorVerdict {
  kind: string;
  outcome: Outcome;
}

/** One provider dialect. */
export interface Dialect {
  readonly name: DialectName;
  /** Validates the route's options and builds its addresses and headers; an InputError names the field. */
  prepare(spec: DialectRouteSpec): PreparedRoute;
  /** The JSON body of one call. */
  body(c: WorkloadCase, messages: readonly WireMessage[], call: DialectCall, route: PreparedRoute): string;
  /** How a streamed answer is framed on the wire. */
  readonly framing: "sse" | "aws-eventstream";
  /** A fresh decoder of a streamed answer; absent: SSE (runner/http/sse.ts). */
  newDecoder?(): StreamDecoder;
  /** A streamed answer must carry a content type containing this. */
  readonly streamContentType: string;
  /** A fresh parser for one attempt's answer. */
  newAnswer(): AnswerParser;
  /**
   * A non-2xx answer judged from its status, head and body (the body may be cut or empty). Overloads and rate limits
   * are `rejected` (the provider refused the call for load), anything else `http_error`.
   */
  classifyError(status: number, headers: ReadonlyMap<string, string>, body: string): ErrorVerdict;
  /** The provider's limits read off a response head (any status); null when it sent none of them. */
  readLimits(headers: ReadonlyMap<string, string>): ProviderLimits | null;
  /**
   * What an error answer's body says beyond its status, for a provider that puts it there rather than in headers
   * (Gemini's `RetryInfo.retryDelay` and `QuotaFailure`): the wait it asks for, and its limits. Absent: nothing.
   */
  readErrorBody?(body: string): { retryAfterMs: number | null; limits: ProviderLimits | null };
}
