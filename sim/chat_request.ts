import { z } from "zod";

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
});
export type ChatRequest = z.infer<typeof ChatRequest>;

/** One request message reduced to what the simulator needs. */
export interface SimMessage {
  role: "system" | "developer" | "user" | "assistant" | "tool";
  /** Text content (parts joined; "" when absent). */
  content: string;
  /** Tool calls of an assistant message, as `name(arguments)` text. */
  toolCallText: string;
}

/** A validated request, normalised. */
export interface ParsedChat {
  model: string;
  messages: SimMessage[];
  /** The client's output cap, or null when it sent none. */
  maxTokens: number | null;
  stream: boolean;
  includeUsage: boolean;
}

/**
 * Validates a request body; on failure returns the first problem as
 * `param: message` for an OpenAI-style 400.
 *
 * @example A minimal request
 * ```ts
 * import { parseChatRequest } from "./chat_request.ts";
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
  if (!r.success) {
    const i = r.error.issues[0]!;
    const param = i.path.map(String).join(".") || "(body)";
    return { ok: false, param, message: `${param}: ${i.message}` };
  }
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
    },
  };
}
