/**
 * The OpenAI Responses API dialect (`openai-responses`): `POST /v1/responses`
 * with `authorization: Bearer <key>`, the neutral conversation as `input`
 * items (messages, `function_call` and `function_call_output` items), answers
 * as semantic SSE events or a whole `response` object
 * (runner/dialects/openai_responses_answer.ts). See
 * docs/dialects/openai-responses.md.
 *
 * @module
 */
import { z } from "zod";
import { InputError } from "../../schema/errors.ts";
import type { WorkloadCase } from "../../schema/mod.ts";
import type { Dialect, DialectCall, ErrorVerdict, PreparedRoute, WireMessage } from "./dialect.ts";
import { isObject } from "./answer_base.ts";
import { readOpenAiLimits } from "./openai_limits.ts";
import { LOAD_CODES, ResponsesAnswer } from "./openai_responses_answer.ts";
import { checkedBaseUrl, withPath } from "./url.ts";

/** The service tiers a route may ask for (`dialect_options.service_tier`). */
export const RESPONSES_SERVICE_TIERS = ["auto", "default", "flex", "priority"] as const;

/** The route's `dialect_options` for `openai-responses`; unknown fields are refused. */
export const ResponsesOptions = z.object({
  /** Sent as `openai-organization`. */
  organization: z.string().min(1).optional(),
  /** Sent as `openai-project`. */
  project: z.string().min(1).optional(),
  /** Sent as `service_tier`; the tier that served the answer is read from `response.service_tier`. */
  service_tier: z.enum(RESPONSES_SERVICE_TIERS).optional(),
  /** Sent as `reasoning: {effort}` (reasoning models only). */
  reasoning_effort: z.enum(["none", "minimal", "low", "medium", "high"]).optional(),
}).strict();
/** The validated options. */
export type ResponsesOptions = z.infer<typeof ResponsesOptions>;

/** One input item of a Responses request. */
export type ResponsesInputItem =
  | { type: "message"; role: "system" | "user" | "assistant"; content: string }
  | { type: "function_call"; call_id: string; name: string; arguments: string }
  | { type: "function_call_output"; call_id: string; output: string };

/**
 * The neutral conversation as Responses `input` items: system, user and assistant text as `message` items (the
 * system prompt stays a `system` message, `instructions` is not used), an assistant's tool calls as `function_call`
 * items after its text (an assistant message with tool calls and no text has no message item), tool results as
 * `function_call_output` items.
 *
 * @example
 * ```ts
 * import { responsesInput } from "./openai_responses.ts";
 * import assert from "node:assert/strict";
 * const items = responsesInput([
 *   { role: "user", content: "hi" },
 *   { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }] },
 *   { role: "tool", tool_call_id: "c1", content: "ok" },
 * ]);
 * assert.deepEqual(items.map((i) => i.type), ["message", "function_call", "function_call_output"]);
 * ```
 */
export function responsesInput(messages: readonly WireMessage[]): ResponsesInputItem[] {
  const items: ResponsesInputItem[] = [];
  for (const m of messages) {
    if (m.role === "tool") {
      items.push({ type: "function_call_output", call_id: m.tool_call_id, output: m.content });
    } else if (m.role === "assistant") {
      const calls = m.tool_calls ?? [];
      if (m.content !== null && (m.content !== "" || calls.length === 0)) {
        items.push({ type: "message", role: "assistant", content: m.content });
      }
      for (const c of calls) {
        items.push({ type: "function_call", call_id: c.id, name: c.function.name, arguments: c.function.arguments });
      }
    } else items.push({ type: "message", role: m.role, content: m.content });
  }
  return items;
}

/** A structured-output format name: `<class>_output` with characters outside `[A-Za-z0-9_-]` replaced, ≤ 64. */
function formatName(cls: string): string {
  return `${cls}_output`.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
}

/** The endpoint: `/v1/responses` appended to a bare host, `/responses` to a base ending in `/v1`. */
function endpoint(base: URL): URL {
  const path = base.pathname.replace(/\/+$/, "");
  if (path.endsWith("/responses")) return withPath(base, "/responses");
  return withPath(base, path.endsWith("/v1") ? "/responses" : "/v1/responses");
}

/** The error body's `error.code`, `error.type` and `error.message` when they are strings. */
function errorFields(body: string): { code: string | null; type: string | null; message: string } {
  try {
    const raw: unknown = JSON.parse(body);
    const e = isObject(raw) && isObject(raw.error) ? raw.error : {};
    const str = (v: unknown) => typeof v === "string" ? v : null;
    return { code: str(e.code), type: str(e.type), message: str(e.message) ?? "" };
  } catch {
    return { code: null, type: null, message: "" };
  }
}

/** The OpenAI Responses API dialect. */
export const openaiResponsesDialect: Dialect = {
  name: "openai-responses",
  framing: "sse",
  streamContentType: "text/event-stream",

  prepare(spec): PreparedRoute {
    const r = ResponsesOptions.safeParse(spec.options);
    if (!r.success) {
      const problems = r.error.issues.map((i) => {
        const field = i.path.map(String).join(".");
        const keys = i.code === "unrecognized_keys" ? i.keys.join(", ") : "";
        return `${spec.where}.dialect_options${field ? `.${field}` : keys ? `.${keys}` : ""}: ${i.message}`;
      });
      throw new InputError(`${spec.where}: bad dialect_options for openai-responses`, problems);
    }
    const o = r.data;
    const url = endpoint(checkedBaseUrl(spec.url, `${spec.where}.url`));
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "text/event-stream, application/json",
    };
    if (spec.key !== null) headers.authorization = `Bearer ${spec.key}`;
    if (o.organization) headers["openai-organization"] = o.organization;
    if (o.project) headers["openai-project"] = o.project;
    return {
      url: () => new URL(url),
      headers,
      secretHeaders: ["authorization"],
      sign: null,
      serviceTier: o.service_tier ?? null,
      options: { ...o },
    };
  },

  body(c: WorkloadCase, messages: readonly WireMessage[], call: DialectCall, route: PreparedRoute): string {
    const o = route.options as ResponsesOptions;
    const body: Record<string, unknown> = {
      model: call.model,
      input: responsesInput(messages),
      max_output_tokens: call.maxTokens,
      stream: call.stream,
      store: false,
    };
    if (c.tools.length) {
      // strict: false, as on the Chat Completions route: a workload's tool schema need not meet strict mode's rules.
      body.tools = c.tools.map((t) => ({
        type: "function",
        name: t.name,
        description: t.description,
        parameters: t.parameters,
        strict: false,
      }));
      body.tool_choice = "auto";
    }
    if (c.expected_output_schema) {
      body.text = {
        format: { type: "json_schema", name: formatName(c.class), schema: c.expected_output_schema, strict: true },
      };
    }
    if (o.reasoning_effort) body.reasoning = { effort: o.reasoning_effort };
    if (o.service_tier) body.service_tier = o.service_tier;
    return JSON.stringify(body);
  },

  newAnswer: () => new ResponsesAnswer(),

  /**
   * 429 is `rejected` (rate limit or overload) except `insufficient_quota`, a billing refusal that waiting does not
   * end (`http_error`); 503 is `rejected` when the body says the service is overloaded or asks to slow down
   * (`http_error` for other 503s, e.g. an outage); anything else is `http_error`.
   */
  classifyError(status: number, _headers: ReadonlyMap<string, string>, body: string): ErrorVerdict {
    const kind = `http_${status}`;
    const e = errorFields(body);
    if (status === 429) {
      const billing = e.code === "insufficient_quota" || e.type === "insufficient_quota";
      return { kind, outcome: billing ? "http_error" : "rejected" };
    }
    if (status === 503) {
      const load = (e.code !== null && LOAD_CODES.has(e.code)) || /overloaded|slow down/i.test(e.message);
      return { kind, outcome: load ? "rejected" : "http_error" };
    }
    return { kind, outcome: "http_error" };
  },

  readLimits: readOpenAiLimits,
};
