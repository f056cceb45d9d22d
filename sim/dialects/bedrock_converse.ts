/**
 * The simulator's Bedrock Converse / ConverseStream: `POST /model/{modelId}/converse` and `/converse-stream`, the
 * Converse body read back into the neutral messages, answers as Converse bodies or AWS event-stream frames
 * (encoded by `@smithy/eventstream-codec`), errors as Bedrock's `{message}` with `x-amzn-errortype`. It does not
 * verify signatures, but refuses a request without a SigV4 (`AWS4-HMAC-SHA256`) or bearer `authorization` header
 * the way Bedrock does (403 AccessDeniedException / UnrecognizedClientException): see {@linkcode bedrockAuthProblem}.
 *
 * @module
 */
import { EventStreamCodec } from "@smithy/eventstream-codec";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";
import { z } from "zod";
import type { SimMessage } from "../chat_request.ts";
import type { SimAnswerBody, SimDialect, SimError, SimErrorClass, SimStreamFormat, SimUsage } from "./dialect.ts";
import { bodyProblem } from "./dialect.ts";

const codec = new EventStreamCodec(toUtf8, fromUtf8);
const PATH = /^\/model\/([^/]+)\/(converse|converse-stream)$/;

/** Each simulator error class as Bedrock answers it: status and `x-amzn-errortype`. */
const ERRORS: Record<SimErrorClass, { status: number; type: string }> = {
  invalid_request: { status: 400, type: "ValidationException" },
  not_found: { status: 404, type: "ResourceNotFoundException" },
  server_error: { status: 500, type: "InternalServerException" },
  unavailable: { status: 503, type: "ServiceUnavailableException" },
  overloaded: { status: 503, type: "ServiceUnavailableException" },
  rate_limited: { status: 429, type: "ThrottlingException" },
  // Bedrock has no such answer: the client has gone and reads nothing; the status is the simulator's own.
  client_closed: { status: 499, type: "RequestCanceledException" },
};

/** A Bedrock error answer: `{message}` and the type in `x-amzn-errortype`, as the service writes them. */
function errorResponse(status: number, type: string, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ message }, {
    status,
    headers: { ...headers, "x-amzn-errortype": `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/` },
  });
}

/**
 * Why a request's `authorization` header would be refused, as Bedrock's 403 answer; null when it carries a SigV4
 * signature (`AWS4-HMAC-SHA256 …`, not verified) or a bearer key. The server checks this before `parse`.
 *
 * @example
 * ```ts
 * import { bedrockAuthProblem } from "./bedrock_converse.ts";
 * import assert from "node:assert/strict";
 * assert.equal(bedrockAuthProblem("AWS4-HMAC-SHA256 Credential=…"), null);
 * assert.equal(bedrockAuthProblem(null)?.status, 403);
 * ```
 */
export function bedrockAuthProblem(authorization: string | null): Response | null {
  if (authorization?.startsWith("AWS4-HMAC-SHA256 ") || authorization?.startsWith("Bearer ")) return null;
  return errorResponse(403, "AccessDeniedException", "Missing Authentication Token");
}

const Text = z.object({ text: z.string() });
// A content block is a union (one member each): read into a tagged form.
const Block = z.union([
  Text.transform((b) => ({ kind: "text" as const, text: b.text })),
  z.object({ toolUse: z.object({ toolUseId: z.string(), name: z.string().min(1), input: z.unknown() }) })
    .transform((b) => ({ kind: "toolUse" as const, name: b.toolUse.name, input: b.toolUse.input })),
  z.object({
    toolResult: z.object({ toolUseId: z.string(), content: z.array(z.object({ text: z.string().optional() })) }),
  }).transform((b) => ({ kind: "toolResult" as const, text: b.toolResult.content.map((c) => c.text ?? "").join("") })),
]);
const ConverseRequest = z.looseObject({
  messages: z.array(z.object({ role: z.enum(["user", "assistant"]), content: z.array(Block).min(1) })).min(1),
  system: z.array(Text).optional(),
  inferenceConfig: z.looseObject({ maxTokens: z.number().int().positive().optional() }).optional(),
  toolConfig: z.looseObject({
    tools: z.array(z.looseObject({ toolSpec: z.looseObject({ name: z.string().min(1) }) })).min(1),
  }).optional(),
  serviceTier: z.looseObject({ type: z.enum(["priority", "default", "flex", "reserved"]) }).optional(),
});

/**
 * The Converse messages back in the neutral form: each system block a system message; in a user turn each text
 * block a user message and each tool result a tool message; an assistant turn one assistant message (its text
 * blocks joined, its tool uses as `name` + JSON input).
 */
function neutral(body: z.infer<typeof ConverseRequest>): SimMessage[] {
  const out: SimMessage[] = (body.system ?? []).map((s) => ({ role: "system", content: s.text, toolCallText: "" }));
  for (const m of body.messages) {
    if (m.role === "assistant") {
      const text = m.content.map((b) => b.kind === "text" ? b.text : "").join("");
      const calls = m.content.map((b) => b.kind === "toolUse" ? b.name + JSON.stringify(b.input) : "");
      out.push({ role: "assistant", content: text, toolCallText: calls.join("") });
      continue;
    }
    for (const b of m.content) {
      if (b.kind !== "toolUse") {
        out.push({ role: b.kind === "text" ? "user" : "tool", content: b.text, toolCallText: "" });
      }
    }
  }
  return out;
}

/** The neutral finish as a Bedrock stop reason. */
function stopReason(finish: string): string {
  return finish === "length"
    ? "max_tokens"
    : finish === "tool_calls"
    ? "tool_use"
    : finish === "content_filter"
    ? "content_filtered"
    : "end_turn";
}

/** A TokenUsage: Bedrock's inputTokens leaves out the cache reads and writes the neutral prompt count includes. */
function tokenUsage(u: SimUsage): Record<string, number> {
  const write = u.cacheWrite ?? 0;
  const input = Math.max(0, u.prompt - u.cached - write);
  const out: Record<string, number> = {
    inputTokens: input,
    outputTokens: u.output,
    totalTokens: input + u.output + u.cached + write,
  };
  if (u.cached > 0 || u.cacheWrite !== undefined) out.cacheReadInputTokens = u.cached;
  if (u.cacheWrite !== undefined) out.cacheWriteInputTokens = u.cacheWrite;
  return out;
}

/** One event-stream message of type `event`. */
function frame(type: string, payload: unknown): Uint8Array {
  return codec.encode({
    headers: {
      ":event-type": { type: "string", value: type },
      ":content-type": { type: "string", value: "application/json" },
      ":message-type": { type: "string", value: "event" },
    },
    body: fromUtf8(JSON.stringify(payload)),
  });
}

function join(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The frames of one ConverseStream answer: text in block 0, the tool call in the next block. */
class StreamFormat implements SimStreamFormat {
  readonly #tier: string | null;
  #t0 = 0;
  #block = 0;
  /** The current block has had a start or a delta and still needs its contentBlockStop. */
  #open = false;

  constructor(tier: string | null) {
    this.#tier = tier;
  }

  start(): Uint8Array {
    this.#t0 = performance.now();
    return frame("messageStart", { role: "assistant" });
  }

  content(piece: string): Uint8Array {
    this.#open = true;
    return frame("contentBlockDelta", { contentBlockIndex: this.#block, delta: { text: piece } });
  }

  toolCallStart(callId: string, name: string): Uint8Array {
    const parts = [];
    if (this.#open) {
      parts.push(frame("contentBlockStop", { contentBlockIndex: this.#block }));
      this.#block++;
    }
    this.#open = true;
    parts.push(frame("contentBlockStart", {
      contentBlockIndex: this.#block,
      start: { toolUse: { toolUseId: callId, name } },
    }));
    return join(parts);
  }

  toolCallArguments(piece: string): Uint8Array {
    return frame("contentBlockDelta", { contentBlockIndex: this.#block, delta: { toolUse: { input: piece } } });
  }

  end(finish: string, usage: SimUsage): Uint8Array {
    const parts = [];
    if (this.#open) parts.push(frame("contentBlockStop", { contentBlockIndex: this.#block }));
    parts.push(frame("messageStop", { stopReason: stopReason(finish) }));
    const meta: Record<string, unknown> = {
      usage: tokenUsage(usage),
      metrics: { latencyMs: Math.round(performance.now() - this.#t0) },
    };
    if (this.#tier) meta.serviceTier = { type: this.#tier };
    parts.push(frame("metadata", meta));
    return join(parts);
  }
}

/** The simulator's Bedrock Converse dialect. */
export const bedrockConverseSimDialect: SimDialect = {
  authorize: (headers: Headers) => bedrockAuthProblem(headers.get("authorization")),
  name: "bedrock-converse",
  match(method, url) {
    const m = method === "POST" ? PATH.exec(url.pathname) : null;
    if (!m) return null;
    let model: string;
    try {
      model = decodeURIComponent(m[1]!);
    } catch {
      return null;
    }
    return { model, stream: m[2] === "converse-stream" };
  },
  parse(body, match) {
    const r = ConverseRequest.safeParse(body);
    if (!r.success) return bodyProblem(r.error.issues);
    return {
      ok: true,
      value: {
        model: match.model ?? "",
        messages: neutral(r.data),
        maxTokens: r.data.inferenceConfig?.maxTokens ?? null,
        stream: match.stream === true,
        includeUsage: match.stream === true, // ConverseStream always ends with its usage.
        serviceTier: r.data.serviceTier?.type ?? null,
      },
    };
  },
  error(e: SimError) {
    const { status, type } = ERRORS[e.class];
    return errorResponse(status, type, e.message, e.headers);
  },
  // Bedrock sends no rate-limit headers.
  limitHeaders: () => ({}),
  streamContentType: "application/vnd.amazon.eventstream",
  stream: (_id, _model, _created, serviceTier) => new StreamFormat(serviceTier),
  body(a: SimAnswerBody) {
    const content: Record<string, unknown>[] = [];
    if (a.text !== null) content.push({ text: a.text });
    if (a.toolCall) {
      let input: unknown;
      try {
        input = JSON.parse(a.toolCall.arguments);
      } catch {
        input = {}; // Converse carries a tool's input as a JSON document: unparseable arguments cannot be sent.
      }
      content.push({ toolUse: { toolUseId: a.toolCall.id, name: a.toolCall.name, input } });
    }
    const out: Record<string, unknown> = {
      output: { message: { role: "assistant", content } },
      stopReason: stopReason(a.finish),
      usage: tokenUsage(a.usage),
      metrics: { latencyMs: 0 },
    };
    if (a.serviceTier) out.serviceTier = { type: a.serviceTier };
    return out;
  },
};
