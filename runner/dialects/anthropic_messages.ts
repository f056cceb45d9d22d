/**
 * The `anthropic-messages` dialect: Anthropic's Messages API (`POST /v1/messages`, `x-api-key`, `anthropic-version`).
 * The neutral conversation becomes a top-level `system` and user/assistant turns with `tool_use` and `tool_result`
 * blocks; the answer is read by {@linkcode AnthropicAnswer} (runner/dialects/anthropic_answer.ts). What each field
 * means in the log: docs/dialects/anthropic-messages.md.
 *
 * @module
 */
import { z } from "zod";
import type { WorkloadCase } from "../../schema/mod.ts";
import { InputError } from "../../schema/errors.ts";
import { isObject, parseArgs } from "./answer_base.ts";
import { AnthropicAnswer, LOAD_ERROR_TYPES } from "./anthropic_answer.ts";
import type {
  Dialect,
  DialectCall,
  DialectRouteSpec,
  ErrorVerdict,
  PreparedRoute,
  ProviderLimits,
  WireMessage,
} from "./dialect.ts";
import { checkedBaseUrl, withPath } from "./url.ts";

/** The API path of a call, streamed or not. */
export const MESSAGES_PATH = "/v1/messages";

/** A route's `dialect_options` for Anthropic; unknown fields are refused. */
export const AnthropicOptions = z.object({
  /** The `anthropic-version` header. @default "2023-06-01" */
  anthropic_version: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date like 2023-06-01").default("2023-06-01"),
  /** Beta features, sent joined in one `anthropic-beta` header (none: no header). @default [] */
  beta: z.array(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "must be a feature name like name-2025-01-01"))
    .default([]),
  /** Extended thinking: `thinking: {type: "enabled", budget_tokens}`, the budget added to `max_tokens`. */
  thinking_budget_tokens: z.number().int().min(1024).nullable().default(null),
  /** `service_tier` asked for (null: not sent; the API's default is `auto`). */
  service_tier: z.enum(["auto", "standard_only"]).nullable().default(null),
  /**
   * How a case's `expected_output_schema` is sent: `output_config` (JSON outputs, `output_config.format`) or `off`
   * (not sent; the prompt alone asks for JSON). @default "output_config"
   */
  structured_output: z.enum(["output_config", "off"]).default("output_config"),
}).strict();
/** Validated options, defaults filled in (as recorded in run.json). */
export type AnthropicOptions = z.infer<typeof AnthropicOptions>;

/** The options of each route prepared here, so a call does not validate them again. */
const PREPARED = new WeakMap<PreparedRoute, AnthropicOptions>();

/** Validates a route's options; an InputError names every bad field as `<where>.dialect_options.<field>`. */
export function anthropicOptions(options: Record<string, unknown>, where: string): AnthropicOptions {
  const r = AnthropicOptions.safeParse(options);
  if (r.success) return r.data;
  const at = `${where}.dialect_options`;
  const problems = r.error.issues.flatMap((i) =>
    i.code === "unrecognized_keys"
      ? i.keys.map((k) => `${at}.${k}: unknown option (known: ${Object.keys(AnthropicOptions.shape).join(", ")})`)
      : [`${at}${i.path.map((p) => typeof p === "number" ? `[${p}]` : `.${String(p)}`).join("")}: ${i.message}`]
  );
  throw new InputError(`${at}: ${problems.length} problem(s) in the anthropic-messages options`, problems);
}

/** The Messages request body of one call (see docs/dialects/anthropic-messages.md for the mapping). */
export function anthropicBody(
  c: WorkloadCase,
  messages: readonly WireMessage[],
  call: DialectCall,
  options: AnthropicOptions,
): string {
  const { system, turns } = anthropicTurns(messages);
  const budget = options.thinking_budget_tokens;
  const body: Record<string, unknown> = {
    model: call.model,
    // The thinking budget comes on top of the case's cap, so the visible answer keeps the cap it has elsewhere.
    max_tokens: call.maxTokens + (budget ?? 0),
  };
  if (system.length === 1) body.system = system[0];
  else if (system.length > 1) body.system = system.map((text) => ({ type: "text", text }));
  body.messages = turns;
  if (c.tools.length) {
    body.tools = c.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }));
    body.tool_choice = { type: "auto" };
  }
  if (c.expected_output_schema && options.structured_output === "output_config") {
    body.output_config = { format: { type: "json_schema", schema: c.expected_output_schema } };
  }
  if (budget !== null) body.thinking = { type: "enabled", budget_tokens: budget };
  if (options.service_tier !== null) body.service_tier = options.service_tier;
  body.stream = call.stream;
  return JSON.stringify(body);
}

/** One Anthropic turn: a user or assistant message with text or content blocks. */
type Turn = { role: "user" | "assistant"; content: string | Record<string, unknown>[] };

/**
 * The neutral conversation in Anthropic's shape: every system message's text (in order) for the top-level
 * `system`; user messages as they are; an assistant's tool calls as `tool_use` blocks after its text; tool results
 * as `tool_result` blocks of one user turn per run of consecutive tool messages.
 *
 * @example A tool round
 * ```ts
 * import { anthropicTurns } from "./anthropic_messages.ts";
 * import assert from "node:assert/strict";
 * const { system, turns } = anthropicTurns([
 *   { role: "system", content: "Be brief." },
 *   { role: "user", content: "Weather in Oslo?" },
 *   { role: "assistant", content: null, tool_calls: [{ id: "toolu_1", type: "function",
 *     function: { name: "weather", arguments: '{"city":"Oslo"}' } }] },
 *   { role: "tool", tool_call_id: "toolu_1", content: "4 °C" },
 * ]);
 * assert.deepEqual(system, ["Be brief."]);
 * assert.deepEqual(turns[1], { role: "assistant", content: [
 *   { type: "tool_use", id: "toolu_1", name: "weather", input: { city: "Oslo" } }] });
 * assert.deepEqual(turns[2], { role: "user", content: [
 *   { type: "tool_result", tool_use_id: "toolu_1", content: "4 °C" }] });
 * ```
 */
export function anthropicTurns(messages: readonly WireMessage[]): { system: string[]; turns: Turn[] } {
  const system: string[] = [];
  const turns: Turn[] = [];
  let results: Record<string, unknown>[] | null = null;
  for (const m of messages) {
    if (m.role === "tool") {
      const block = { type: "tool_result", tool_use_id: m.tool_call_id, content: m.content };
      if (results) results.push(block);
      else turns.push({ role: "user", content: results = [block] });
      continue;
    }
    results = null;
    if (m.role !== "assistant") {
      if (m.role === "system") system.push(m.content);
      else turns.push({ role: "user", content: m.content });
    } else {
      const calls = m.tool_calls ?? [];
      if (!calls.length) {
        turns.push({ role: "assistant", content: m.content ?? "" });
        continue;
      }
      const blocks: Record<string, unknown>[] = m.content ? [{ type: "text", text: m.content }] : [];
      for (const tc of calls) {
        // `input` must be an object: arguments that are not a JSON object (a broken call) go as {}.
        const input = parseArgs(tc.function.arguments) ?? {};
        blocks.push({ type: "tool_use", id: tc.id, name: tc.function.name, input });
      }
      turns.push({ role: "assistant", content: blocks });
    }
  }
  return { system, turns };
}

/**
 * The `error.type` of an error body, or null when the body is not Anthropic's error shape (it may be cut, empty,
 * or a proxy's page).
 */
function errorType(body: string): string | null {
  let j: unknown;
  try {
    j = JSON.parse(body);
  } catch {
    return null; // not JSON: judged by its status alone
  }
  return isObject(j) && isObject(j.error) && typeof j.error.type === "string" ? j.error.type : null;
}

/**
 * A non-2xx answer judged: kind `http_<status>`; `rejected` for 429 (`rate_limit_error`), 529 (`overloaded_error`)
 * or a body naming either type under another status (a gateway's), `http_error` otherwise.
 *
 * @example
 * ```ts
 * import { classifyAnthropicError } from "./anthropic_messages.ts";
 * import assert from "node:assert/strict";
 * const overloaded = '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';
 * assert.deepEqual(classifyAnthropicError(529, overloaded), { kind: "http_529", outcome: "rejected" });
 * assert.deepEqual(classifyAnthropicError(500, "<html>"), { kind: "http_500", outcome: "http_error" });
 * ```
 */
export function classifyAnthropicError(status: number, body: string): ErrorVerdict {
  const type = errorType(body);
  const load = status === 429 || status === 529 || (type !== null && LOAD_ERROR_TYPES.has(type));
  return { kind: `http_${status}`, outcome: load ? "rejected" : "http_error" };
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Anthropic's rate-limit headers read against `nowMs` (the wall clock when the head arrived): the request window
 * (`anthropic-ratelimit-requests-*`) and the token window (`anthropic-ratelimit-tokens-*`, the most restrictive token
 * limit in force; when absent, the input and output windows summed, resetting when the later one does). Resets are
 * RFC 3339 times, turned into ms from `nowMs` (0 when already past). A malformed value is null; null when no
 * `anthropic-ratelimit-` header was sent.
 *
 * @example
 * ```ts
 * import { anthropicLimits } from "./anthropic_messages.ts";
 * import assert from "node:assert/strict";
 * const h = new Map([["anthropic-ratelimit-requests-limit", "50"], ["anthropic-ratelimit-requests-remaining", "49"],
 *   ["anthropic-ratelimit-requests-reset", "2026-01-01T00:00:01.5Z"]]);
 * const l = anthropicLimits(h, Date.parse("2026-01-01T00:00:00Z"));
 * assert.equal(l?.limit_requests, 50);
 * assert.equal(l?.reset_requests_ms, 1500);
 * assert.equal(anthropicLimits(new Map(), 0), null);
 * ```
 */
export function anthropicLimits(headers: ReadonlyMap<string, string>, nowMs: number): ProviderLimits | null {
  const P = "anthropic-ratelimit-";
  if (![...headers.keys()].some((k) => k.toLowerCase().startsWith(P))) return null;
  const count = (name: string): number | null => {
    const v = headers.get(P + name)?.trim();
    return v !== undefined && /^\d{1,15}$/.test(v) ? Number(v) : null;
  };
  const reset = (name: string): number | null => {
    const v = headers.get(P + name)?.trim().toUpperCase();
    if (v === undefined || !RFC3339.test(v)) return null;
    const at = Date.parse(v);
    return Number.isFinite(at) ? Math.max(0, at - nowMs) : null;
  };
  const sum = (a: number | null, b: number | null) => a === null || b === null ? null : a + b;
  const later = (a: number | null, b: number | null) => a === null || b === null ? null : Math.max(a, b);
  const split = count("tokens-limit") === null && count("tokens-remaining") === null && reset("tokens-reset") === null;
  return {
    limit_requests: count("requests-limit"),
    remaining_requests: count("requests-remaining"),
    limit_tokens: split ? sum(count("input-tokens-limit"), count("output-tokens-limit")) : count("tokens-limit"),
    remaining_tokens: split
      ? sum(count("input-tokens-remaining"), count("output-tokens-remaining"))
      : count("tokens-remaining"),
    reset_requests_ms: reset("requests-reset"),
    reset_tokens_ms: split ? later(reset("input-tokens-reset"), reset("output-tokens-reset")) : reset("tokens-reset"),
  };
}

/** The Anthropic Messages dialect. */
export const anthropicMessagesDialect: Dialect = {
  name: "anthropic-messages",
  framing: "sse",
  streamContentType: "text/event-stream",

  prepare(spec: DialectRouteSpec): PreparedRoute {
    const options = anthropicOptions(spec.options, spec.where);
    const base = checkedBaseUrl(spec.url, spec.where === "--target" ? spec.where : `${spec.where}.url`);
    const endpoint = withPath(base, MESSAGES_PATH);
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "text/event-stream, application/json",
      "anthropic-version": options.anthropic_version,
    };
    if (options.beta.length) headers["anthropic-beta"] = options.beta.join(",");
    if (spec.key !== null) headers["x-api-key"] = spec.key;
    const route: PreparedRoute = {
      url: () => new URL(endpoint),
      headers,
      secretHeaders: ["x-api-key"],
      sign: null,
      serviceTier: options.service_tier,
      options: { ...options, beta: [...options.beta] },
    };
    PREPARED.set(route, options);
    return route;
  },

  body(c, messages, call, route) {
    return anthropicBody(c, messages, call, PREPARED.get(route) ?? anthropicOptions(route.options, "route"));
  },

  newAnswer: () => new AnthropicAnswer(),

  classifyError: (status, _headers, body) => classifyAnthropicError(status, body),

  readLimits: (headers) => anthropicLimits(headers, Date.now()),
};
