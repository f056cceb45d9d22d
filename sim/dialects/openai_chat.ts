/**
 * OpenAI Chat Completions (`POST /v1/chat/completions`), the simulator's
 * default dialect and the one vLLM, SGLang, TGI, llama.cpp, Ollama and
 * LiteLLM speak: the request schema the simulator reads, the
 * `chat.completion` body, the pre-rendered `chat.completion.chunk` SSE lines,
 * `usage`, the `{error: {message, type, param, code}}` body and the
 * `x-ratelimit-*` headers. Azure OpenAI (azure_openai.ts) answers in the same
 * formats.
 *
 * @module
 */
import { z } from "zod";
import type { ParsedChat } from "../chat_request.ts";
import type {
  SimAnswerBody,
  SimDialect,
  SimError,
  SimErrorClass,
  SimMatch,
  SimQuota,
  SimStreamFormat,
  SimUsage,
} from "./dialect.ts";
import { bodyProblem } from "./dialect.ts";

const Part = z.looseObject({ type: z.string(), text: z.string().optional() });

const WireToolCall = z.looseObject({
  id: z.string().optional(),
  type: z.string().optional(),
  function: z.looseObject({ name: z.string(), arguments: z.string().default("") }),
});

const WireMessage = z.looseObject({
  role: z.enum(["system", "developer", "user", "assistant", "tool"]),
  content: z.union([z.string(), z.array(Part), z.null()]).optional(),
  tool_calls: z.array(WireToolCall).optional(),
  tool_call_id: z.string().optional(),
});

/** The fields of a Chat Completions request the simulator reads; others are accepted and ignored. */
export const ChatRequest = z.looseObject({
  model: z.string().min(1),
  messages: z.array(WireMessage).min(1),
  max_tokens: z.number().int().positive().nullable().optional(),
  max_completion_tokens: z.number().int().positive().nullable().optional(),
  stream: z.boolean().nullable().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullable().optional(),
  response_format: z.union([
    z.looseObject({ type: z.literal("text") }),
    z.looseObject({ type: z.literal("json_object") }),
    z.looseObject({
      type: z.literal("json_schema"),
      json_schema: z.looseObject({ name: z.string(), schema: z.record(z.string(), z.unknown()).optional() }),
    }),
  ]).nullable().optional(),
  tools: z.array(z.looseObject({
    type: z.literal("function"),
    function: z.looseObject({ name: z.string().min(1) }),
  })).nullable().optional(),
  tool_choice: z.union([
    z.enum(["none", "auto", "required"]),
    z.looseObject({ type: z.literal("function"), function: z.looseObject({ name: z.string() }) }),
  ]).nullable().optional(),
  /** `auto` lets the provider choose (the profile's `service_tier` is served); any other tier is served as asked. */
  service_tier: z.string().min(1).nullable().optional(),
});
export type ChatRequest = z.infer<typeof ChatRequest>;

/**
 * Validates a request body; on failure returns the first problem as
 * `param: message` for an OpenAI-style 400.
 *
 * @example A minimal request
 * ```ts
 * import { parseChatRequest } from "./openai_chat.ts";
 * import assert from "node:assert/strict";
 * const r = parseChatRequest({ model: "m", messages: [{ role: "user", content: "hi" }], max_tokens: 5 });
 * assert.ok(r.ok && r.value.maxTokens === 5 && !r.value.stream);
 * assert.equal(parseChatRequest({ model: "m", messages: [] }).ok, false);
 * ```
 */
export function parseChatRequest(
  body: unknown,
): { ok: true; value: ParsedChat } | { ok: false; param: string; message: string } {
  const r = ChatRequest.safeParse(body);
  if (!r.success) return bodyProblem(r.error.issues);
  const b = r.data;
  return {
    ok: true,
    value: {
      model: b.model,
      messages: b.messages.map((m) => ({
        role: m.role,
        content: typeof m.content === "string"
          ? m.content
          : Array.isArray(m.content)
          ? m.content.map((p) => p.text ?? "").join("")
          : "",
        toolCallText: (m.tool_calls ?? []).map((t) => t.function.name + t.function.arguments).join(""),
      })),
      maxTokens: b.max_completion_tokens ?? b.max_tokens ?? null,
      stream: b.stream === true,
      includeUsage: b.stream === true && b.stream_options?.include_usage === true,
      serviceTier: b.service_tier === "auto" ? null : b.service_tier ?? null,
    },
  };
}

/** OpenAI `usage` of one completion. */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number; cache_write_tokens?: number };
  completion_tokens_details?: { reasoning_tokens: number };
  /** Anthropic's name for prompt-cache writes, as LiteLLM passes it at the top of usage. */
  cache_creation_input_tokens?: number;
}

/**
 * Builds a `usage` object from neutral counts.
 *
 * @example Reasoning tokens inside completion tokens, cache writes in prompt_tokens_details
 * ```ts
 * import { usage } from "./openai_chat.ts";
 * import assert from "node:assert/strict";
 * const u = usage({ prompt: 100, output: 40, cached: 20, reasoning: 30, cacheWrite: 80, cacheWriteField: "cache_write_tokens" });
 * assert.deepEqual(u.completion_tokens_details, { reasoning_tokens: 30 });
 * assert.deepEqual(u.prompt_tokens_details, { cached_tokens: 20, cache_write_tokens: 80 });
 * assert.equal(u.total_tokens, 140);
 * ```
 */
export function usage(s: SimUsage): Usage {
  const u: Usage = {
    prompt_tokens: s.prompt,
    completion_tokens: s.output,
    total_tokens: s.prompt + s.output,
    prompt_tokens_details: { cached_tokens: s.cached },
  };
  if (s.reasoning !== undefined) u.completion_tokens_details = { reasoning_tokens: s.reasoning };
  if (s.cacheWrite !== undefined) {
    if (s.cacheWriteField === "cache_creation_input_tokens") u.cache_creation_input_tokens = s.cacheWrite;
    else u.prompt_tokens_details.cache_write_tokens = s.cacheWrite;
  }
  return u;
}

/**
 * Server-sent-event lines of one streamed `chat.completion.chunk` response.
 * The fixed parts are rendered once so a token costs one string concat.
 *
 * @example A content chunk parses as a chunk object
 * ```ts
 * import { ChunkFormat } from "./openai_chat.ts";
 * import assert from "node:assert/strict";
 * const f = new ChunkFormat("chatcmpl-1", "m", 1);
 * const line = f.content("Hi");
 * assert.ok(line.startsWith("data: ") && line.endsWith("\n\n"));
 * assert.equal(JSON.parse(line.slice(6)).choices[0].delta.content, "Hi");
 * ```
 */
export class ChunkFormat implements SimStreamFormat {
  readonly #head: string;

  /** `serviceTier`: said in every chunk (`service_tier`) when not null. */
  constructor(id: string, model: string, created: number, serviceTier: string | null = null) {
    const tier = serviceTier === null ? "" : `"service_tier":${JSON.stringify(serviceTier)},`;
    this.#head = `data: {"id":${JSON.stringify(id)},"object":"chat.completion.chunk","created":${created},"model":${
      JSON.stringify(model)
    },${tier}"system_fingerprint":"sim","choices":[`;
  }

  #choice(delta: string, finish: string | null): string {
    return `${this.#head}{"index":0,"delta":${delta},"logprobs":null,"finish_reason":${
      finish === null ? "null" : JSON.stringify(finish)
    }}]}\n\n`;
  }

  /** The first chunk: the assistant role, no text. */
  start(): string {
    return this.#choice(`{"role":"assistant","content":""}`, null);
  }

  /** One token of text. */
  content(piece: string): string {
    return this.#choice(`{"content":${JSON.stringify(piece)}}`, null);
  }

  /** The start of tool call 0: id and function name, no arguments yet. */
  toolCallStart(callId: string, name: string): string {
    return this.#choice(
      `{"tool_calls":[{"index":0,"id":${JSON.stringify(callId)},"type":"function","function":{"name":${
        JSON.stringify(name)
      },"arguments":""}}]}`,
      null,
    );
  }

  /** A piece of tool call 0's arguments. */
  toolCallArguments(piece: string): string {
    return this.#choice(`{"tool_calls":[{"index":0,"function":{"arguments":${JSON.stringify(piece)}}}]}`, null);
  }

  /** The finish chunk, the usage chunk when asked for, and `[DONE]`. */
  end(finish: string, u: SimUsage, includeUsage: boolean): string {
    return this.finish(finish) + (includeUsage ? this.usage(usage(u)) : "") + ChunkFormat.DONE;
  }

  /** The chunk that carries `finish_reason`. */
  finish(reason: string): string {
    return this.#choice("{}", reason);
  }

  /** The usage chunk (`choices: []`), sent last when `include_usage` was asked for. */
  usage(u: Usage): string {
    return `${this.#head}],"usage":${JSON.stringify(u)}}\n\n`;
  }

  /** The end-of-stream marker. */
  static readonly DONE = "data: [DONE]\n\n";
}

/** A whole `chat.completion` body. */
export function completion(a: SimAnswerBody): unknown {
  const message = a.toolCall === null ? { role: "assistant", content: a.text ?? "", refusal: null } : {
    role: "assistant",
    content: null,
    refusal: null,
    tool_calls: [{
      id: a.toolCall.id,
      type: "function",
      function: { name: a.toolCall.name, arguments: a.toolCall.arguments },
    }],
  };
  return {
    id: a.id,
    object: "chat.completion",
    created: a.created,
    model: a.model,
    system_fingerprint: "sim",
    choices: [{ index: 0, message, logprobs: null, finish_reason: a.finish }],
    usage: usage(a.usage),
    ...(a.serviceTier === null ? {} : { service_tier: a.serviceTier }),
  };
}

/** An OpenAI-style error response: `{error: {message, type, param, code}}`. */
export function errorResponse(
  status: number,
  message: string,
  options: { type: string; code: string | null; param?: string | null; headers?: Record<string, string> },
): Response {
  const body = { error: { message, type: options.type, param: options.param ?? null, code: options.code } };
  return Response.json(body, { status, headers: options.headers ?? {} });
}

/** Status, `type` and default `code` of each error class in OpenAI's terms. */
export const OPENAI_ERRORS: Readonly<Record<SimErrorClass, { status: number; type: string; code: string }>> = {
  invalid_request: { status: 400, type: "invalid_request_error", code: "invalid_value" },
  not_found: { status: 404, type: "invalid_request_error", code: "not_found" },
  server_error: { status: 500, type: "server_error", code: "internal_error" },
  unavailable: { status: 503, type: "server_error", code: "service_unavailable" },
  overloaded: { status: 429, type: "rate_limit_error", code: "overloaded" },
  // The type of a quota refusal is the bucket that was short (`requests` or `tokens`), as OpenAI writes it.
  rate_limited: { status: 429, type: "requests", code: "rate_limit_exceeded" },
  client_closed: { status: 499, type: "invalid_request_error", code: "client_closed" },
};

/**
 * An error in OpenAI's format.
 *
 * @example A quota refusal's type is the bucket that was short
 * ```ts
 * import { openaiError } from "./openai_chat.ts";
 * import assert from "node:assert/strict";
 * const res = openaiError({ class: "rate_limited", limit: "tokens", message: "slow down" });
 * assert.equal(res.status, 429);
 * const { error } = await res.json();
 * assert.deepEqual(error, { message: "slow down", type: "tokens", param: null, code: "rate_limit_exceeded" });
 * ```
 */
export function openaiError(e: SimError): Response {
  const c = OPENAI_ERRORS[e.class];
  return errorResponse(c.status, e.message, {
    type: e.class === "rate_limited" ? e.limit ?? c.type : c.type,
    code: e.code === undefined ? c.code : e.code,
    param: e.param ?? null,
    headers: e.headers ?? {},
  });
}

/**
 * A duration as OpenAI writes `x-ratelimit-reset-*`: `20ms` under a second, else hours, minutes and seconds (`6m0s`,
 * `1.5s`).
 *
 * @example
 * ```ts
 * import { resetDuration } from "./openai_chat.ts";
 * import assert from "node:assert/strict";
 * assert.equal(resetDuration(20), "20ms");
 * assert.equal(resetDuration(1500), "1.5s");
 * assert.equal(resetDuration(360_000), "6m0s");
 * assert.equal(resetDuration(3_723_000), "1h2m3s");
 * ```
 */
export function resetDuration(ms: number): string {
  const whole = Math.max(0, Math.ceil(ms));
  if (whole < 1000) return `${whole}ms`;
  const h = Math.floor(whole / 3_600_000), m = Math.floor((whole % 3_600_000) / 60_000);
  const s = `${Number(((whole % 60_000) / 1000).toFixed(3))}s`;
  return h ? `${h}h${m}m${s}` : m ? `${m}m${s}` : s;
}

/** OpenAI's `x-ratelimit-*` headers of a quota state (a null field gives no header). */
export function openaiLimitHeaders(q: SimQuota): Record<string, string> {
  const h: Record<string, string> = {};
  if (q.limitRequests !== null) h["x-ratelimit-limit-requests"] = String(q.limitRequests);
  if (q.remainingRequests !== null) h["x-ratelimit-remaining-requests"] = String(q.remainingRequests);
  if (q.limitTokens !== null) h["x-ratelimit-limit-tokens"] = String(q.limitTokens);
  if (q.remainingTokens !== null) h["x-ratelimit-remaining-tokens"] = String(q.remainingTokens);
  if (q.resetRequestsMs != null) h["x-ratelimit-reset-requests"] = resetDuration(q.resetRequestsMs);
  if (q.resetTokensMs != null) h["x-ratelimit-reset-tokens"] = resetDuration(q.resetTokensMs);
  return h;
}

/** The OpenAI Chat Completions dialect: `POST /v1/chat/completions`. */
export const OPENAI_CHAT: SimDialect = {
  name: "openai_chat",
  match: (method: string, url: URL): SimMatch | null =>
    method === "POST" && url.pathname === "/v1/chat/completions" ? {} : null,
  parse: (body: unknown) => parseChatRequest(body),
  error: openaiError,
  limitHeaders: openaiLimitHeaders,
  streamContentType: "text/event-stream",
  stream: (id, model, created, serviceTier) => new ChunkFormat(id, model, created, serviceTier),
  body: completion,
};
