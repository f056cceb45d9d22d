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

/** Counts a completion reports beyond prompt, completion and cached tokens (absent: not reported). */
export interface UsageDetails {
  /** Part of completion tokens. */
  reasoning?: number;
  /** Part of prompt tokens, under the field the profile names. */
  cacheWrite?: { field: "cache_write_tokens" | "cache_creation_input_tokens"; tokens: number };
}

/**
 * Builds a `usage` object.
 *
 * @example Reasoning tokens inside completion tokens, cache writes in prompt_tokens_details
 * ```ts
 * import { usage } from "./openai_format.ts";
 * import assert from "node:assert/strict";
 * const u = usage(100, 40, 20, { reasoning: 30, cacheWrite: { field: "cache_write_tokens", tokens: 80 } });
 * assert.deepEqual(u.completion_tokens_details, { reasoning_tokens: 30 });
 * assert.deepEqual(u.prompt_tokens_details, { cached_tokens: 20, cache_write_tokens: 80 });
 * assert.equal(u.total_tokens, 140);
 * ```
 */
export function usage(prompt: number, completion: number, cached: number, details: UsageDetails = {}): Usage {
  const u: Usage = {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: cached },
  };
  if (details.reasoning !== undefined) u.completion_tokens_details = { reasoning_tokens: details.reasoning };
  const w = details.cacheWrite;
  if (w?.field === "cache_write_tokens") u.prompt_tokens_details.cache_write_tokens = w.tokens;
  if (w?.field === "cache_creation_input_tokens") u.cache_creation_input_tokens = w.tokens;
  return u;
}

/**
 * Server-sent-event lines of one streamed `chat.completion.chunk` response.
 * The fixed parts are rendered once so a token costs one string concat.
 *
 * @example A content chunk parses as a chunk object
 * ```ts
 * import { ChunkFormat } from "./openai_format.ts";
 * import assert from "node:assert/strict";
 * const f = new ChunkFormat("chatcmpl-1", "m", 1);
 * const line = f.content("Hi");
 * assert.ok(line.startsWith("data: ") && line.endsWith("\n\n"));
 * assert.equal(JSON.parse(line.slice(6)).choices[0].delta.content, "Hi");
 * ```
 */
export class ChunkFormat {
  readonly #head: string;

  constructor(id: string, model: string, created: number) {
    this.#head = `data: {"id":${JSON.stringify(id)},"object":"chat.completion.chunk","created":${created},"model":${
      JSON.stringify(model)
    },"system_fingerprint":"sim","choices":[`;
  }

  #choice(delta: string, finish: string | null): string {
    return `${this.#head}{"index":0,"delta":${delta},"logprobs":null,"finish_reason":${
      finish === null ? "null" : JSON.stringify(finish)
    }}]}\n\n`;
  }

  /** The first chunk: the assistant role, no text. */
  role(): string {
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

/** An OpenAI-style error response: `{error: {message, type, code}}`. */
export function errorResponse(
  status: number,
  message: string,
  options: { type: string; code: string | null; param?: string | null; headers?: Record<string, string> },
): Response {
  const body = { error: { message, type: options.type, param: options.param ?? null, code: options.code } };
  return Response.json(body, { status, headers: options.headers ?? {} });
}
