/**
 * The simulator speaking Anthropic's Messages API: `POST /v1/messages` read
 * into the neutral request (the same messages the runner started from, so the
 * responder finds the same case), answers as Anthropic's events and bodies,
 * errors as `{type: "error", error: {type, message}}` with Anthropic's
 * statuses (529 `overloaded_error`, 429 `rate_limit_error`), and
 * `anthropic-ratelimit-*` headers.
 *
 * @module
 */
import { z } from "zod";
import type { SimMessage } from "../chat_request.ts";
import type {
  SimAnswerBody,
  SimDialect,
  SimError,
  SimErrorClass,
  SimQuota,
  SimStreamFormat,
  SimUsage,
} from "./dialect.ts";
import { bodyProblem } from "./dialect.ts";

const TextBlock = z.looseObject({ type: z.literal("text"), text: z.string() });
const Block = z.union([
  TextBlock,
  z.looseObject({
    type: z.literal("tool_use"),
    id: z.string().min(1),
    name: z.string().min(1),
    input: z.record(z.string(), z.unknown()),
  }),
  z.looseObject({
    type: z.literal("tool_result"),
    tool_use_id: z.string().min(1),
    content: z.union([z.string(), z.array(z.looseObject({ type: z.string(), text: z.string().optional() }))])
      .optional(),
  }),
  // Thinking, images and other blocks are accepted and carry no text the simulator reads.
  z.looseObject({ type: z.string().refine((t) => !["text", "tool_use", "tool_result"].includes(t)) }),
]);

/** The fields of a Messages request the simulator reads; others are accepted and ignored. */
export const MessagesRequest = z.looseObject({
  model: z.string().min(1),
  max_tokens: z.number().int().positive(),
  system: z.union([z.string(), z.array(TextBlock)]).optional(),
  messages: z.array(z.looseObject({
    role: z.enum(["user", "assistant"]),
    content: z.union([z.string(), z.array(Block)]),
  })).min(1),
  stream: z.boolean().optional(),
  service_tier: z.enum(["auto", "standard_only"]).optional(),
  tools: z.array(z.looseObject({ name: z.string().min(1), input_schema: z.record(z.string(), z.unknown()) }))
    .optional(),
});
type MessagesRequest = z.infer<typeof MessagesRequest>;

/**
 * A request's conversation in the neutral form, exactly as the runner had it: each system text first, a user turn's
 * `tool_result` blocks as `tool` messages and its text as a user message, an assistant turn's text as its content
 * and its `tool_use` blocks as `toolCallText` (name + the input as JSON).
 */
export function neutralMessages(r: MessagesRequest): SimMessage[] {
  const out: SimMessage[] = [];
  const sys = r.system === undefined ? [] : typeof r.system === "string" ? [r.system] : r.system.map((b) => b.text);
  for (const content of sys) out.push({ role: "system", content, toolCallText: "" });
  for (const m of r.messages) {
    if (typeof m.content === "string") {
      out.push({ role: m.role, content: m.content, toolCallText: "" });
      continue;
    }
    if (m.role === "assistant") {
      let content = "", toolCallText = "";
      for (const b of m.content) {
        if (b.type === "text") content += (b as { text: string }).text;
        if (b.type === "tool_use") {
          const u = b as { name: string; input: Record<string, unknown> };
          toolCallText += u.name + JSON.stringify(u.input);
        }
      }
      out.push({ role: "assistant", content, toolCallText });
      continue;
    }
    let text: string | null = null;
    for (const b of m.content) {
      if (b.type === "tool_result") {
        if (text !== null) out.push({ role: "user", content: text, toolCallText: "" });
        text = null;
        const c = (b as { content?: string | { text?: string }[] }).content;
        const content = c === undefined ? "" : typeof c === "string" ? c : c.map((p) => p.text ?? "").join("");
        out.push({ role: "tool", content, toolCallText: "" });
      } else if (b.type === "text") text = (text ?? "") + (b as { text: string }).text;
    }
    if (text !== null) out.push({ role: "user", content: text, toolCallText: "" });
  }
  return out;
}

/** Anthropic's `stop_reason` for a neutral finish. */
export function anthropicStop(finish: string): string {
  return ({ stop: "end_turn", length: "max_tokens", tool_calls: "tool_use", content_filter: "refusal" } as Record<
    string,
    string
  >)[finish] ?? finish;
}

/**
 * Anthropic's usage counts for the neutral ones: `input_tokens` without cache reads and writes. The write count is
 * sent only when the profile reports writes; thinking stays inside `output_tokens` (Anthropic has no field for it).
 *
 * @example
 * ```ts
 * import { anthropicUsage } from "./anthropic_messages.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(anthropicUsage({ prompt: 100, output: 30, cached: 60, cacheWrite: 25, reasoning: 10 }),
 *   { input_tokens: 15, cache_creation_input_tokens: 25, cache_read_input_tokens: 60, output_tokens: 30 });
 * ```
 */
export function anthropicUsage(u: SimUsage): Record<string, number> {
  const write = u.cacheWrite ?? 0;
  return {
    input_tokens: u.prompt - u.cached - write,
    ...(u.cacheWrite === undefined ? {} : { cache_creation_input_tokens: u.cacheWrite }),
    cache_read_input_tokens: u.cached,
    output_tokens: u.output,
  };
}

/** Each error class as Anthropic answers it: status and `error.type`. */
export const ERRORS: Readonly<Record<SimErrorClass, { status: number; type: string }>> = {
  invalid_request: { status: 400, type: "invalid_request_error" },
  not_found: { status: 404, type: "not_found_error" },
  server_error: { status: 500, type: "api_error" },
  unavailable: { status: 503, type: "api_error" },
  overloaded: { status: 529, type: "overloaded_error" },
  rate_limited: { status: 429, type: "rate_limit_error" },
  client_closed: { status: 499, type: "invalid_request_error" },
};

const frame = (event: string, data: string) => `event: ${event}\ndata: ${data}\n\n`;

/** The events of one streamed answer. Content blocks open as the answer needs them and close at the end. */
class MessageFrames implements SimStreamFormat {
  readonly #start: string;
  #index = -1;
  #open: "text" | "tool_use" | null = null;

  constructor(id: string, model: string, serviceTier: string | null) {
    // The prompt's counts are not known when the stream opens: message_delta carries every count, cumulatively.
    const usage = serviceTier === null ? {} : { service_tier: serviceTier };
    const message = {
      id,
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage,
    };
    this.#start = frame("message_start", JSON.stringify({ type: "message_start", message }));
  }

  start(): string {
    return this.#start + frame("ping", `{"type":"ping"}`);
  }

  content(piece: string): string {
    let out = "";
    if (this.#open !== "text") out = this.#close() + this.#begin("text", `{"type":"text","text":""}`);
    return out + this.#delta(`{"type":"text_delta","text":${JSON.stringify(piece)}}`);
  }

  toolCallStart(callId: string, name: string): string {
    const block = { type: "tool_use", id: callId, name, input: {} };
    return this.#close() + this.#begin("tool_use", JSON.stringify(block));
  }

  toolCallArguments(piece: string): string {
    return this.#delta(`{"type":"input_json_delta","partial_json":${JSON.stringify(piece)}}`);
  }

  end(finish: string, usage: SimUsage): string {
    const delta = { type: "message_delta", delta: { stop_reason: anthropicStop(finish), stop_sequence: null } };
    return this.#close() + frame("message_delta", JSON.stringify({ ...delta, usage: anthropicUsage(usage) })) +
      frame("message_stop", `{"type":"message_stop"}`);
  }

  #begin(kind: "text" | "tool_use", block: string): string {
    this.#open = kind;
    this.#index++;
    return frame(
      "content_block_start",
      `{"type":"content_block_start","index":${this.#index},"content_block":${block}}`,
    );
  }

  #delta(delta: string): string {
    return frame("content_block_delta", `{"type":"content_block_delta","index":${this.#index},"delta":${delta}}`);
  }

  #close(): string {
    if (this.#open === null) return "";
    this.#open = null;
    return frame("content_block_stop", `{"type":"content_block_stop","index":${this.#index}}`);
  }
}

/** The simulator's `anthropic-messages` dialect. */
export const anthropicMessagesSimDialect: SimDialect = {
  name: "anthropic-messages",
  streamContentType: "text/event-stream",

  match(method, url) {
    return method === "POST" && url.pathname.endsWith("/v1/messages") ? {} : null;
  },

  parse(body) {
    const r = MessagesRequest.safeParse(body);
    if (!r.success) return bodyProblem(r.error.issues);
    const b = r.data;
    return {
      ok: true,
      value: {
        model: b.model,
        messages: neutralMessages(b),
        maxTokens: b.max_tokens,
        stream: b.stream === true,
        // Anthropic always reports usage.
        includeUsage: true,
        serviceTier: b.service_tier ?? null,
      },
    };
  },

  error(e: SimError): Response {
    const { status, type } = ERRORS[e.class];
    return Response.json({ type: "error", error: { type, message: e.message } }, { status, headers: e.headers ?? {} });
  },

  limitHeaders(q: SimQuota): Record<string, string> {
    const h: Record<string, string> = {};
    const P = "anthropic-ratelimit-";
    const reset = q.resetMs === null ? null : new Date(Date.now() + q.resetMs).toISOString();
    if (q.limitRequests !== null) h[`${P}requests-limit`] = String(q.limitRequests);
    if (q.remainingRequests !== null) h[`${P}requests-remaining`] = String(q.remainingRequests);
    if (reset !== null && q.limitRequests !== null) h[`${P}requests-reset`] = reset;
    if (q.limitTokens !== null) h[`${P}tokens-limit`] = String(q.limitTokens);
    if (q.remainingTokens !== null) h[`${P}tokens-remaining`] = String(q.remainingTokens);
    if (reset !== null && q.limitTokens !== null) h[`${P}tokens-reset`] = reset;
    return h;
  },

  stream(id, model, _created, serviceTier) {
    return new MessageFrames(id, model, serviceTier);
  },

  body(a: SimAnswerBody): unknown {
    const content: Record<string, unknown>[] = [];
    if (a.text !== null && a.text !== "") content.push({ type: "text", text: a.text });
    if (a.toolCall) {
      content.push({
        type: "tool_use",
        id: a.toolCall.id,
        name: a.toolCall.name,
        input: toolInput(a.toolCall.arguments),
      });
    }
    return {
      id: a.id,
      type: "message",
      role: "assistant",
      model: a.model,
      content,
      stop_reason: anthropicStop(a.finish),
      stop_sequence: null,
      usage: { ...anthropicUsage(a.usage), ...(a.serviceTier === null ? {} : { service_tier: a.serviceTier }) },
    };
  },
};

/** A whole tool call's input: its arguments as an object, or {} when they are not one (a cut or broken call). */
function toolInput(args: string): Record<string, unknown> {
  try {
    const v = JSON.parse(args);
    return v !== null && typeof v === "object" && !Array.isArray(v) ? v : {};
  } catch {
    return {}; // Anthropic's input is always an object; a broken call has none
  }
}
