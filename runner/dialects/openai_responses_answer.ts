/**
 * The answer of an OpenAI Responses API call (`POST /v1/responses`), streamed
 * (semantic SSE events: `response.created` … `response.completed`) or whole
 * (the `response` object), read into the runner's rows. Every field read is
 * type-checked where it enters; a problem makes the attempt
 * `invalid_response` with one of these kinds (the first problem wins):
 *
 * - `malformed_sse`: an event's data is not JSON. `invalid_json`: a whole body is not JSON.
 * - `bad_event`: an event is not an object, its `type` is not a string, or a delta event's `item_id` is not a string.
 * - `event_type_mismatch`: the SSE `event:` name differs from the data's `type`.
 * - `event_after_end`: an event after `response.completed`, `response.incomplete` or `response.failed`.
 * - `bad_output_item`: an output item is not an object, or its `type` or (streamed) `id` is not a string;
 *   `duplicate_item`: an item id announced twice.
 * - `unknown_item`: a delta or `output_item.done` for an item never announced by `output_item.added`, or of the
 *   other kind (text for a function call, arguments for a message).
 * - `bad_text_delta`: an `output_text.delta` / `refusal.delta` whose `delta` is not a string.
 * - `bad_tool_call`: a `function_call` item's `call_id`, `name` or `arguments`, or an arguments delta, is not a
 *   string. `tool_call_mismatch`: the arguments a `.done` event states differ from the streamed pieces.
 * - `bad_output` / `bad_content_part` (whole body): `output` is not an array, a message's `content` is not an
 *   array of parts with string `text` / `refusal`.
 * - `bad_response`: a terminal event's `response` is not an object. `bad_status`: its `status` is not the one
 *   the event names (`completed`, `incomplete`, `failed`), or a body's is none of them.
 * - `bad_incomplete_details`: `incomplete_details` is not an object with a string `reason`.
 * - `bad_service_tier`: `service_tier` is not a string.
 * - usage problems void the usage (`bad_usage`, see runner/dialects/answer_base.ts).
 *
 * @module
 */
import type { StreamEvent } from "./dialect.ts";
import { AnswerBase, BadUsage, isObject, usageCount } from "./answer_base.ts";

/** Error codes that mean the provider refused the call for load (outcome `rejected`). */
export const LOAD_CODES: ReadonlySet<string> = new Set([
  "rate_limit_exceeded",
  "overloaded",
  "server_is_overloaded",
  "slow_down",
]);

type Obj = Record<string, unknown>;
const show = (v: unknown) => JSON.stringify(v)?.slice(0, 60) ?? String(v);
const TERMINAL: Record<string, string> = {
  "response.completed": "completed",
  "response.incomplete": "incomplete",
  "response.failed": "failed",
};

/** The `error_kind` of a failure the answer reports: `stream_<code>` (code reduced to `[a-z0-9_]`), or `stream_error`. */
export function streamFailureKind(code: unknown): string {
  if (typeof code !== "string") return "stream_error";
  const c = code.toLowerCase().replace(/[^a-z0-9_]+/g, "_").slice(0, 40);
  return c ? `stream_${c}` : "stream_error";
}

/** One OpenAI Responses answer being read (see the module doc for the malformed kinds). */
export class ResponsesAnswer extends AnswerBase {
  /** The terminal status reached (`completed`, `incomplete`, `failed`), null before it. */
  #ended: string | null = null;
  /** Streamed output items by id: their type, and the tool call a function_call item fills. */
  readonly #items = new Map<string, { type: string; call: number | null }>();
  #refused = false;

  feedEvent(ev: StreamEvent, tMs: number): void {
    if (this.#ended !== null) {
      return this.bad("event_after_end", `${ev.event ?? "event"} after response.${this.#ended}`);
    }
    let o: unknown;
    try {
      o = JSON.parse(ev.data);
    } catch {
      return this.bad("malformed_sse", `SSE data is not JSON: ${ev.data.slice(0, 60)}`);
    }
    if (!isObject(o) || typeof o.type !== "string") return this.bad("bad_event", `event is ${show(o)}`);
    const type = o.type;
    if (ev.event != null && ev.event !== type) {
      return this.bad("event_type_mismatch", `SSE event ${show(ev.event)} carries type ${show(type)}`);
    }
    switch (type) {
      case "response.created":
      case "response.in_progress":
      case "response.queued":
        if (!isObject(o.response)) return this.bad("bad_response", `${type}: response is ${show(o.response)}`);
        return this.#tier(o.response.service_tier);
      case "response.output_item.added":
        return this.#itemAdded(o.item, tMs);
      case "response.output_item.done":
        return this.#itemDone(o.item, tMs);
      case "response.output_text.delta":
      case "response.refusal.delta":
        return this.#textDelta(o, type === "response.refusal.delta", tMs);
      case "response.function_call_arguments.delta":
        return this.#argsDelta(o, tMs);
      case "response.function_call_arguments.done":
        return this.#argsDone(o, tMs);
      case "response.completed":
      case "response.incomplete":
      case "response.failed":
        if (!isObject(o.response)) return this.bad("bad_response", `${type}: response is ${show(o.response)}`);
        return this.#final(o.response, TERMINAL[type]!);
      case "error":
        this.streamFailure ??= failure(isObject(o.error) ? o.error : o);
        return;
      default:
        // content_part.*, output_text.done, reasoning summaries, annotations…: nothing the rows need.
        return;
    }
  }

  feedBody(body: string, tMs: number): void {
    let raw: unknown;
    try {
      raw = JSON.parse(body);
    } catch {
      return this.bad("invalid_json", `body is not JSON: ${body.slice(0, 60)}`);
    }
    if (!isObject(raw)) return this.bad("bad_response", `body is ${show(raw)}, not an object`);
    const output = raw.output;
    if (output != null && !Array.isArray(output)) return this.bad("bad_output", `output is ${show(output)}`);
    for (const item of output ?? []) {
      if (!isObject(item) || typeof item.type !== "string") return this.bad("bad_output_item", `item ${show(item)}`);
      if (item.type === "function_call") {
        const call = checkedCall(item);
        if (typeof call === "string") return this.bad("bad_tool_call", call);
        this.mergeCall({ index: this.calls.length, ...call });
      } else if (item.type === "message") {
        const problem = this.#messageParts(item.content);
        if (problem) return this.bad("bad_content_part", problem);
      }
    }
    this.wholeAt(tMs);
    this.#final(raw, null);
  }

  complete(): boolean {
    return this.#ended !== null;
  }

  /** A whole message's content parts: output_text and refusal texts appended; a problem, or null. */
  #messageParts(content: unknown): string | null {
    if (!Array.isArray(content)) return `message content is ${show(content)}, not an array`;
    for (const p of content) {
      if (!isObject(p)) return `content part is ${show(p)}`;
      if (p.type === "output_text") {
        if (typeof p.text !== "string") return `output_text text is ${show(p.text)}`;
        this.text += p.text;
      } else if (p.type === "refusal") {
        if (typeof p.refusal !== "string") return `refusal is ${show(p.refusal)}`;
        this.text += p.refusal;
        this.#refused = true;
      }
    }
    return null;
  }

  #itemAdded(item: unknown, tMs: number): void {
    if (!isObject(item) || typeof item.type !== "string" || typeof item.id !== "string") {
      return this.bad("bad_output_item", `output_item.added item is ${show(item)}`);
    }
    if (this.#items.has(item.id)) return this.bad("duplicate_item", `output item ${show(item.id)} added twice`);
    if (item.type !== "function_call") return void this.#items.set(item.id, { type: item.type, call: null });
    const call = checkedCall(item);
    if (typeof call === "string") return this.bad("bad_tool_call", call);
    const index = this.calls.length;
    this.#items.set(item.id, { type: item.type, call: index });
    this.mergeCall({ index, ...call });
    // The function's name is the first content of a tool call (as in a Chat Completions tool_calls delta).
    if (call.name || call.arguments) this.tokenAt(tMs);
  }

  #itemDone(item: unknown, tMs: number): void {
    if (!isObject(item) || typeof item.type !== "string" || typeof item.id !== "string") {
      return this.bad("bad_output_item", `output_item.done item is ${show(item)}`);
    }
    const known = this.#items.get(item.id);
    if (!known || known.type !== item.type) return this.bad("unknown_item", `output_item.done for ${show(item.id)}`);
    if (known.call === null) return;
    if (item.arguments !== undefined && typeof item.arguments !== "string") {
      return this.bad("bad_tool_call", `function_call arguments is ${show(item.arguments)}`);
    }
    this.#settleArgs(known.call, item.arguments, tMs);
  }

  #textDelta(o: Obj, refusal: boolean, tMs: number): void {
    if (typeof o.item_id !== "string") return this.bad("bad_event", `${o.type}: item_id is ${show(o.item_id)}`);
    if (this.#items.get(o.item_id)?.type !== "message") {
      return this.bad("unknown_item", `${o.type} for item ${show(o.item_id)}, not an announced message`);
    }
    if (typeof o.delta !== "string") return this.bad("bad_text_delta", `${o.type}: delta is ${show(o.delta)}`);
    if (refusal) this.#refused = true;
    if (!o.delta) return;
    this.text += o.delta;
    this.tokenAt(tMs);
  }

  #argsDelta(o: Obj, tMs: number): void {
    const call = this.#callOf(o);
    if (call === null) return;
    if (typeof o.delta !== "string") return this.bad("bad_tool_call", `arguments delta is ${show(o.delta)}`);
    if (!o.delta) return;
    this.calls[call]!.args += o.delta;
    this.tokenAt(tMs);
  }

  #argsDone(o: Obj, tMs: number): void {
    const call = this.#callOf(o);
    if (call === null) return;
    if (typeof o.arguments !== "string") return this.bad("bad_tool_call", `arguments is ${show(o.arguments)}`);
    this.#settleArgs(call, o.arguments, tMs);
  }

  /** The tool call a function-call event names by `item_id`, or null (marked bad). */
  #callOf(o: Obj): number | null {
    if (typeof o.item_id !== "string") {
      this.bad("bad_event", `${o.type}: item_id is ${show(o.item_id)}`);
      return null;
    }
    const call = this.#items.get(o.item_id)?.call ?? null;
    if (call === null) {
      this.bad("unknown_item", `${o.type} for item ${show(o.item_id)}, not an announced function_call`);
    }
    return call;
  }

  /** The full arguments a `.done` states: taken when none were streamed, else they must be the streamed ones. */
  #settleArgs(call: number, stated: string | undefined, tMs: number): void {
    const c = this.calls[call]!;
    if (stated === undefined || stated === c.args) return;
    if (c.args === "") {
      c.args = stated;
      this.tokenAt(tMs);
      return;
    }
    this.bad("tool_call_mismatch", `call ${c.id}: done arguments ${show(stated)} differ from the streamed ones`);
  }

  /** A terminal response object: its status, finish, usage, tier and error. `expected`: the event's status. */
  #final(r: Obj, expected: string | null): void {
    const status = r.status;
    const known = status === "completed" || status === "incomplete" || status === "failed";
    if (!known || (expected !== null && status !== expected)) {
      return this.bad("bad_status", `status ${show(status)}${expected ? ` in response.${expected}` : ""}`);
    }
    this.#ended = status;
    this.#tier(r.service_tier);
    if (r.usage != null) this.#usage(r.usage);
    if (status === "failed") {
      this.streamFailure ??= failure(isObject(r.error) ? r.error : {});
      return;
    }
    if (status === "completed") {
      this.finishReason = this.calls.length ? "tool_calls" : this.#refused ? "refusal" : "stop";
      return;
    }
    const d = r.incomplete_details;
    if (d != null && (!isObject(d) || typeof d.reason !== "string")) {
      return this.bad("bad_incomplete_details", `incomplete_details is ${show(d)}`);
    }
    const reason = isObject(d) ? d.reason as string : "incomplete";
    this.finishReason = reason === "max_output_tokens"
      ? "length"
      : reason === "content_filter"
      ? "content_filter"
      : `openai-responses:${reason}`;
  }

  #tier(v: unknown): void {
    if (v == null) return;
    if (typeof v !== "string") return this.bad("bad_service_tier", `service_tier is ${show(v)}`);
    this.serviceTier = v;
  }

  /** `usage` of a response: input includes cached tokens, output includes reasoning tokens. */
  #usage(u: unknown): void {
    try {
      if (!isObject(u)) throw new BadUsage(`usage is ${show(u)}, not an object`);
      const inD = details(u, "input_tokens_details");
      const outD = details(u, "output_tokens_details");
      const input = usageCount(u, "input_tokens", "usage.input_tokens");
      const output = usageCount(u, "output_tokens", "usage.output_tokens");
      if (input === null || output === null) throw new BadUsage("usage.input_tokens or usage.output_tokens is missing");
      const cached = usageCount(inD, "cached_tokens", "usage.input_tokens_details.cached_tokens") ?? 0;
      const reasoning = usageCount(outD, "reasoning_tokens", "usage.output_tokens_details.reasoning_tokens");
      const total = usageCount(u, "total_tokens", "usage.total_tokens");
      if (cached > input) throw new BadUsage(`cached_tokens (${cached}) exceed input_tokens (${input})`);
      if (reasoning !== null && reasoning > output) {
        throw new BadUsage(`reasoning_tokens (${reasoning}) exceed output_tokens (${output})`);
      }
      if (total !== null && total !== input + output) {
        throw new BadUsage(`total_tokens (${total}) is not input_tokens + output_tokens (${input + output})`);
      }
      this.takeUsage({
        ok: true,
        usage: {
          prompt_tokens: input,
          completion_tokens: output,
          cached_tokens: cached,
          reasoning_tokens: reasoning,
          cache_write_tokens: null,
        },
      });
    } catch (e) {
      if (!(e instanceof BadUsage)) throw e;
      this.takeUsage({ ok: false, problem: e.message });
    }
  }
}

/** A usage details object: absent or null → null; otherwise it must be an object. */
function details(u: Obj, key: string): Obj | null {
  const v = u[key];
  if (v == null) return null;
  if (isObject(v)) return v;
  throw new BadUsage(`usage.${key} is ${show(v)}, not an object`);
}

/** A function_call item's call id, name and arguments, or what is wrong with them. */
function checkedCall(item: Obj): { id: string; name: string; arguments: string } | string {
  const { call_id, name, arguments: args } = item;
  if (typeof call_id !== "string" || typeof name !== "string" || (args != null && typeof args !== "string")) {
    return `function_call call_id/name/arguments not strings: ${show({ call_id, name, arguments: args })}`;
  }
  return { id: call_id, name, arguments: (args as string | undefined) ?? "" };
}

/** A failure the answer reports (`error` event or a failed response's `error`): load codes are `rejected`. */
function failure(e: Obj): { kind: string; outcome: "rejected" | "http_error"; status: null } {
  const code = typeof e.code === "string" ? e.code : null;
  return {
    kind: streamFailureKind(code),
    outcome: code !== null && LOAD_CODES.has(code) ? "rejected" : "http_error",
    status: null,
  };
}
