/**
 * The simulator's OpenAI Responses API (`POST /v1/responses`): the request's
 * `input` items read back into the neutral messages (so the responder finds
 * the same workload case as on `/v1/chat/completions`), answers written as
 * semantic SSE events (`response.created` … `response.completed` /
 * `response.incomplete`) or a whole `response` object, errors as OpenAI error
 * bodies, and OpenAI's `x-ratelimit-*` headers. See docs/dialects/openai-responses.md.
 *
 * @module
 */
import { z } from "zod";
import type { SimMessage } from "../chat_request.ts";
import { errorResponse } from "./openai_chat.ts";
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

const Text = z.union([z.string(), z.array(z.looseObject({ type: z.string(), text: z.string().optional() }))]);
const MessageItem = z.looseObject({
  type: z.literal("message").optional(),
  role: z.enum(["system", "developer", "user", "assistant"]),
  content: Text,
});
const CallItem = z.looseObject({
  type: z.literal("function_call"),
  call_id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.string(),
});
const OutputItem = z.looseObject({ type: z.literal("function_call_output"), call_id: z.string().min(1), output: Text });

/** The fields of a Responses request the simulator reads; others are accepted and ignored. */
export const ResponsesRequest = z.looseObject({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(z.unknown()).min(1)]),
  instructions: z.string().nullable().optional(),
  max_output_tokens: z.number().int().positive().nullable().optional(),
  stream: z.boolean().nullable().optional(),
  service_tier: z.enum(["auto", "default", "flex", "priority", "scale"]).nullable().optional(),
  tools: z.array(z.looseObject({ type: z.string(), name: z.string().min(1).optional() })).nullable().optional(),
});

const joined = (t: z.infer<typeof Text>) => typeof t === "string" ? t : t.map((p) => p.text ?? "").join("");

/** One input item as a neutral message (a function_call joins the assistant message before it), or a problem. */
function readItem(item: unknown, i: number, out: SimMessage[]): { param: string; message: string } | null {
  const type = (item as { type?: unknown } | null)?.type;
  const schema = type === "function_call" ? CallItem : type === "function_call_output" ? OutputItem : MessageItem;
  const r = schema.safeParse(item);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    const param = ["input", i, ...issue.path].map(String).join(".");
    return { param, message: `${param}: ${issue.message}` };
  }
  const v = r.data as Record<string, unknown>;
  if (type === "function_call") {
    const text = (v.name as string) + (v.arguments as string);
    const last = out[out.length - 1];
    if (last?.role === "assistant") last.toolCallText += text;
    else out.push({ role: "assistant", content: "", toolCallText: text });
  } else if (type === "function_call_output") {
    out.push({ role: "tool", content: joined(v.output as z.infer<typeof Text>), toolCallText: "" });
  } else {
    out.push({
      role: v.role as SimMessage["role"],
      content: joined(v.content as z.infer<typeof Text>),
      toolCallText: "",
    });
  }
  return null;
}

/**
 * Milliseconds written the way OpenAI writes a reset (`20ms`, `1.5s`, `6m0s`, `1h0m0s`).
 *
 * @example
 * ```ts
 * import { formatDuration } from "./openai_responses.ts";
 * import assert from "node:assert/strict";
 * assert.equal(formatDuration(20), "20ms");
 * assert.equal(formatDuration(360_000), "6m0s");
 * assert.equal(formatDuration(3_723_500), "1h2m3.5s");
 * ```
 */
export function formatDuration(ms: number): string {
  const whole = Math.max(0, Math.round(ms));
  if (whole < 1000) return `${whole}ms`;
  const h = Math.floor(whole / 3_600_000);
  const m = Math.floor((whole % 3_600_000) / 60_000);
  const s = (whole % 60_000) / 1000;
  return (h ? `${h}h` : "") + (h || m ? `${m}m` : "") + `${s}s`;
}

/** The usage object of a response: input includes cached tokens, output includes reasoning tokens. */
export function responsesUsage(u: SimUsage): Record<string, unknown> {
  return {
    input_tokens: u.prompt,
    input_tokens_details: { cached_tokens: u.cached },
    output_tokens: u.output,
    ...(u.reasoning === undefined ? {} : { output_tokens_details: { reasoning_tokens: u.reasoning } }),
    total_tokens: u.prompt + u.output,
  };
}

/** The status and `incomplete_details` a neutral finish reason ends a response with. */
function ending(finish: string): { status: string; incomplete_details: { reason: string } | null } {
  if (finish === "length") return { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } };
  if (finish === "content_filter") return { status: "incomplete", incomplete_details: { reason: "content_filter" } };
  return { status: "completed", incomplete_details: null };
}

/** A response object's fixed fields. */
function envelope(id: string, model: string, created: number, tier: string | null) {
  return { id, object: "response", created_at: created, model, store: false, service_tier: tier };
}

const messageItem = (id: string, text: string, status: string) => ({
  id,
  type: "message",
  status,
  role: "assistant",
  content: status === "in_progress" ? [] : [{ type: "output_text", text, annotations: [] }],
});
const callItem = (id: string, callId: string, name: string, args: string, status: string) => ({
  id,
  type: "function_call",
  status,
  call_id: callId,
  name,
  arguments: args,
});

/**
 * The SSE events of one streamed response. Every event carries `type` and an increasing `sequence_number`, and
 * its SSE `event:` name is the type.
 */
class ResponsesStream implements SimStreamFormat {
  #seq = 0;
  #open: "message" | "call" | null = null;
  #text = "";
  #call: { callId: string; name: string; args: string } | null = null;
  readonly #output: unknown[] = [];

  constructor(
    readonly id: string,
    readonly model: string,
    readonly created: number,
    readonly tier: string | null,
  ) {}

  #ev(type: string, fields: Record<string, unknown>): string {
    return `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: this.#seq++, ...fields })}\n\n`;
  }

  #response(status: string, extra: Record<string, unknown> = {}) {
    return { ...envelope(this.id, this.model, this.created, this.tier), status, output: this.#output, ...extra };
  }

  start(): string {
    const r = { ...this.#response("in_progress"), output: [], usage: null };
    return this.#ev("response.created", { response: r }) + this.#ev("response.in_progress", { response: r });
  }

  content(piece: string): string {
    let head = "";
    if (this.#open !== "message") {
      head = this.#close();
      this.#open = "message";
      const item = messageItem(this.#itemId("msg"), "", "in_progress");
      head += this.#ev("response.output_item.added", { output_index: this.#output.length, item }) +
        this.#ev("response.content_part.added", {
          item_id: item.id,
          output_index: this.#output.length,
          content_index: 0,
          part: { type: "output_text", text: "", annotations: [] },
        });
    }
    this.#text += piece;
    return head + this.#ev("response.output_text.delta", {
      item_id: this.#itemId("msg"),
      output_index: this.#output.length,
      content_index: 0,
      delta: piece,
    });
  }

  toolCallStart(callId: string, name: string): string {
    const head = this.#close();
    this.#open = "call";
    this.#call = { callId, name, args: "" };
    const item = callItem(this.#itemId("fc"), callId, name, "", "in_progress");
    return head + this.#ev("response.output_item.added", { output_index: this.#output.length, item });
  }

  toolCallArguments(piece: string): string {
    this.#call!.args += piece;
    return this.#ev("response.function_call_arguments.delta", {
      item_id: this.#itemId("fc"),
      output_index: this.#output.length,
      delta: piece,
    });
  }

  end(finish: string, usage: SimUsage): string {
    const tail = this.#close();
    const { status, incomplete_details } = ending(finish);
    const type = status === "completed" ? "response.completed" : "response.incomplete";
    return tail +
      this.#ev(type, { response: this.#response(status, { incomplete_details, usage: responsesUsage(usage) }) });
  }

  /** Item ids are the response id with a prefix and the item's position. */
  #itemId(prefix: string): string {
    return `${prefix}_${this.id}_${this.#output.length}`;
  }

  /** The events that close the open item (text done, part done, item done), which joins the output. */
  #close(): string {
    const at = { output_index: this.#output.length };
    if (this.#open === "message") {
      const id = this.#itemId("msg");
      const item = messageItem(id, this.#text, "completed");
      const part = item.content[0]!;
      const s = this.#ev("response.output_text.done", { item_id: id, ...at, content_index: 0, text: this.#text }) +
        this.#ev("response.content_part.done", { item_id: id, ...at, content_index: 0, part }) +
        this.#ev("response.output_item.done", { ...at, item });
      this.#output.push(item);
      this.#open = null;
      this.#text = "";
      return s;
    }
    if (this.#open === "call") {
      const id = this.#itemId("fc");
      const c = this.#call!;
      const item = callItem(id, c.callId, c.name, c.args, "completed");
      const s = this.#ev("response.function_call_arguments.done", { item_id: id, ...at, arguments: c.args }) +
        this.#ev("response.output_item.done", { ...at, item });
      this.#output.push(item);
      this.#open = null;
      return s;
    }
    return "";
  }
}

/** Status, OpenAI error `type` and default `code` of each simulator error class. */
const ERRORS: Record<SimErrorClass, { status: number; type: string; code: string }> = {
  invalid_request: { status: 400, type: "invalid_request_error", code: "invalid_value" },
  not_found: { status: 404, type: "invalid_request_error", code: "not_found" },
  server_error: { status: 500, type: "server_error", code: "internal_error" },
  unavailable: { status: 503, type: "server_error", code: "service_unavailable" },
  // As on /v1/chat/completions (sim/chat_handler.ts): the queue's shed is 429 `overloaded`.
  overloaded: { status: 429, type: "rate_limit_error", code: "overloaded" },
  rate_limited: { status: 429, type: "requests", code: "rate_limit_exceeded" },
  client_closed: { status: 499, type: "invalid_request_error", code: "client_closed" },
};

/** The simulator's side of the OpenAI Responses API. */
export const openaiResponsesSimDialect: SimDialect = {
  name: "openai-responses",
  streamContentType: "text/event-stream",

  match(method, url) {
    return method === "POST" && url.pathname.replace(/\/+$/, "").endsWith("/v1/responses") ? {} : null;
  },

  parse(body) {
    const r = ResponsesRequest.safeParse(body);
    if (!r.success) return bodyProblem(r.error.issues);
    const b = r.data;
    const messages: SimMessage[] = [];
    if (b.instructions) messages.push({ role: "system", content: b.instructions, toolCallText: "" });
    if (typeof b.input === "string") messages.push({ role: "user", content: b.input, toolCallText: "" });
    else {
      for (const [i, item] of b.input.entries()) {
        const problem = readItem(item, i, messages);
        if (problem) return { ok: false, ...problem };
      }
    }
    return {
      ok: true,
      value: {
        model: b.model,
        messages,
        maxTokens: b.max_output_tokens ?? null,
        stream: b.stream === true,
        // A Responses answer always carries its usage.
        includeUsage: true,
        serviceTier: b.service_tier ?? null,
      },
    };
  },

  error(e: SimError): Response {
    const d = ERRORS[e.class];
    const h = e.headers ?? {};
    // OpenAI names the exhausted window in `type` (`requests` or `tokens`).
    const type = e.class === "rate_limited" && "x-ratelimit-limit-tokens" in h ? "tokens" : d.type;
    return errorResponse(d.status, e.message, { type, code: e.code ?? d.code, param: e.param ?? null, headers: h });
  },

  limitHeaders(q: SimQuota): Record<string, string> {
    const h: Record<string, string> = {};
    const set = (name: string, v: number | null, f: (n: number) => string = String) => {
      if (v !== null) h[name] = f(v);
    };
    set("x-ratelimit-limit-requests", q.limitRequests);
    set("x-ratelimit-remaining-requests", q.remainingRequests);
    set("x-ratelimit-limit-tokens", q.limitTokens);
    set("x-ratelimit-remaining-tokens", q.remainingTokens);
    if (q.limitRequests !== null) set("x-ratelimit-reset-requests", q.resetMs, formatDuration);
    if (q.limitTokens !== null) set("x-ratelimit-reset-tokens", q.resetMs, formatDuration);
    return h;
  },

  stream: (id, model, created, tier) => new ResponsesStream(id, model, created, tier),

  body(a: SimAnswerBody): unknown {
    const output = [];
    if (a.text !== null) output.push(messageItem(`msg_${a.id}_0`, a.text, "completed"));
    if (a.toolCall) {
      const t = a.toolCall;
      output.push(callItem(`fc_${a.id}_${output.length}`, t.id, t.name, t.arguments, "completed"));
    }
    return {
      ...envelope(a.id, a.model, a.created, a.serviceTier),
      ...ending(a.finish),
      output,
      usage: responsesUsage(a.usage),
    };
  },
};
