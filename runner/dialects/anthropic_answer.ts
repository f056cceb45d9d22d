/**
 * An Anthropic Messages answer read into the runner's rows: the streamed
 * events (`message_start`, `content_block_start` / `_delta` / `_stop`,
 * `message_delta`, `message_stop`, `ping`, `error`) or a whole `message`
 * body. Every field read is checked where it enters; a field of the wrong
 * type or an event out of order makes the attempt `invalid_response` with a
 * precise kind (docs/dialects/anthropic-messages.md), never an exception.
 *
 * Token timing: only text (`text_delta`), a tool call's start (it names the
 * tool) and its arguments (`input_json_delta`) are tokens. Thinking
 * (`thinking_delta`, `signature_delta`) is not visible output, so a long
 * think shows as a late first token, as it does to a user.
 *
 * Usage: Anthropic's `input_tokens` excludes cache reads and writes; the
 * neutral `prompt_tokens` adds them back. `output_tokens` already includes
 * thinking, which Anthropic does not count apart: `reasoning_tokens` is null.
 *
 * @module
 */
import type { Usage } from "../usage.ts";
import { AnswerBase, BadUsage, isObject, usageCount } from "./answer_base.ts";
import type { StreamEvent, StreamFailure } from "./dialect.ts";

/** Anthropic stop reasons that have a neutral name; any other is kept as `anthropic:<raw>`. */
export const STOP_REASONS: Readonly<Record<string, string>> = {
  end_turn: "stop",
  stop_sequence: "stop",
  max_tokens: "length",
  tool_use: "tool_calls",
  refusal: "refusal",
};

/**
 * An Anthropic stop reason in the neutral vocabulary.
 *
 * @example
 * ```ts
 * import { neutralFinish } from "./anthropic_answer.ts";
 * import assert from "node:assert/strict";
 * assert.equal(neutralFinish("tool_use"), "tool_calls");
 * assert.equal(neutralFinish("pause_turn"), "anthropic:pause_turn");
 * ```
 */
export function neutralFinish(raw: string): string {
  return Object.hasOwn(STOP_REASONS, raw) ? STOP_REASONS[raw]! : `anthropic:${raw}`;
}

/** Anthropic's error types (`error.type`) and the HTTP status the API answers each with. */
export const ERROR_STATUS: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

/** Error types by which the provider refuses a call for load: the attempt is `rejected`. */
export const LOAD_ERROR_TYPES: ReadonlySet<string> = new Set(["overloaded_error", "rate_limit_error"]);

/**
 * What an `error` event (or a 200 body of type `error`) ends the attempt with: kind `stream_<type>` for a type the
 * API documents (`stream_error` otherwise, so an untrusted string never becomes a kind), the type's status, and
 * `rejected` for an overload or a rate limit, `http_error` for anything else.
 *
 * @example A mid-stream overload
 * ```ts
 * import { streamFailureOf } from "./anthropic_answer.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(streamFailureOf("overloaded_error"),
 *   { kind: "stream_overloaded_error", outcome: "rejected", status: 529 });
 * assert.deepEqual(streamFailureOf("<script>"), { kind: "stream_error", outcome: "http_error", status: null });
 * ```
 */
export function streamFailureOf(type: string | null): StreamFailure {
  if (type === null || !Object.hasOwn(ERROR_STATUS, type)) {
    return { kind: "stream_error", outcome: "http_error", status: null };
  }
  return {
    kind: `stream_${type}`,
    outcome: LOAD_ERROR_TYPES.has(type) ? "rejected" : "http_error",
    status: ERROR_STATUS[type]!,
  };
}

/** One content block of a streamed answer: its kind, the tool call it is (tool_use), and whether it is open. */
interface Block {
  kind: "text" | "tool_use" | "thinking" | "other";
  call: number;
  open: boolean;
}

/** The counts as Anthropic reports them, latest value of each (message_delta counts are cumulative). */
interface RawUsage {
  input: number | null;
  cacheWrite: number | null;
  cacheRead: number | null;
  output: number | null;
}

const show = (v: unknown) => JSON.stringify(v)?.slice(0, 60) ?? String(v);
const isIndex = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0;

/** The answer parser of the `anthropic-messages` dialect. */
export class AnthropicAnswer extends AnswerBase {
  #started = false;
  #stopped = false;
  #whole = false;
  readonly #blocks: Block[] = [];
  #raw: RawUsage = { input: null, cacheWrite: null, cacheRead: null, output: null };

  /** One SSE event; `event` is its `event:` name (null or absent when the line was), which must match `data.type`. */
  feedEvent(ev: StreamEvent, tMs: number): void {
    if (this.malformed !== null || this.streamFailure !== null) return;
    if (this.#stopped) return this.bad("data_after_stop", `${ev.event ?? "data"} after message_stop`);
    let raw: unknown;
    try {
      raw = JSON.parse(ev.data);
    } catch {
      return this.bad("malformed_sse", `SSE data is not JSON: ${ev.data.slice(0, 60)}`);
    }
    if (!isObject(raw) || typeof raw.type !== "string") {
      return this.bad("bad_event", `event data has no string type: ${ev.data.slice(0, 60)}`);
    }
    if (ev.event != null && ev.event !== raw.type) {
      return this.bad("bad_event", `event: ${ev.event.slice(0, 40)} carries data of type ${raw.type.slice(0, 40)}`);
    }
    const type = raw.type;
    if (type === "ping") return;
    if (type === "error") return this.#error(raw.error);
    if (type === "message_start") {
      if (this.#started) return this.bad("bad_event_order", "a second message_start");
      this.#started = true;
      if (!isObject(raw.message)) return this.bad("bad_event", `message_start.message is ${show(raw.message)}`);
      if (raw.message.usage != null) this.#readUsage(raw.message.usage, "message_start.message.usage");
      return;
    }
    // Anthropic announces that new event types may appear: an unknown one is skipped, not refused.
    if (!KNOWN_EVENTS.has(type)) return;
    if (!this.#started) return this.bad("bad_event_order", `${type} before message_start`);
    if (type === "content_block_start") return this.#blockStart(raw, tMs);
    if (type === "content_block_delta") return this.#blockDelta(raw, tMs);
    if (type === "content_block_stop") {
      const b = this.#openBlock(raw.index, "content_block_stop");
      if (b) b.open = false;
      return;
    }
    if (type === "message_delta") return this.#messageDelta(raw);
    // message_stop
    const open = this.#blocks.findIndex((b) => b.open);
    if (open >= 0) return this.bad("bad_event_order", `message_stop with content block ${open} still open`);
    this.#stopped = true;
  }

  /** A whole `message` body (a non-streamed call); every token arrives at `tMs`. */
  feedBody(body: string, tMs: number): void {
    let raw: unknown;
    try {
      raw = JSON.parse(body);
    } catch {
      return this.bad("invalid_json", `body is not JSON: ${body.slice(0, 60)}`);
    }
    if (!isObject(raw)) return this.bad("bad_body", `body is ${show(raw)}, not an object`);
    if (raw.type === "error") return this.#error(raw.error);
    if (raw.type !== "message") return this.bad("bad_body", `body type is ${show(raw.type)}, not "message"`);
    if (!Array.isArray(raw.content)) return this.bad("bad_content_block", `content is ${show(raw.content)}`);
    for (const [i, b] of raw.content.entries()) {
      if (!isObject(b) || typeof b.type !== "string") {
        return this.bad("bad_content_block", `content[${i}] is ${show(b)}`);
      }
      if (b.type === "text") {
        if (typeof b.text !== "string") return this.bad("bad_content_block", `content[${i}].text is ${show(b.text)}`);
        this.text += b.text;
      } else if (b.type === "tool_use") {
        if (!this.#toolUse(b, `content[${i}]`)) return;
        if (!isObject(b.input)) return this.bad("bad_tool_call", `content[${i}].input is ${show(b.input)}`);
        this.mergeCall({ id: b.id as string, name: b.name as string, arguments: JSON.stringify(b.input) });
      }
      // thinking, redacted_thinking and server-tool blocks are not part of the answer.
    }
    if (!this.#stopReason(raw.stop_reason, "stop_reason")) return;
    if (raw.usage != null) this.#readUsage(raw.usage, "usage");
    this.wholeAt(tMs);
    this.#whole = true;
  }

  /** The stream reached `message_stop`, or a whole body was read. */
  complete(): boolean {
    return this.#stopped || this.#whole;
  }

  #error(e: unknown): void {
    this.streamFailure = streamFailureOf(isObject(e) && typeof e.type === "string" ? e.type : null);
  }

  #blockStart(raw: Record<string, unknown>, tMs: number): void {
    const i = raw.index;
    if (!isIndex(i) || i !== this.#blocks.length) {
      return this.bad(
        "bad_content_block",
        `content_block_start index ${show(i)}; the next block is ${this.#blocks.length}`,
      );
    }
    const cb = raw.content_block;
    if (!isObject(cb) || typeof cb.type !== "string") {
      return this.bad("bad_content_block", `content_block_start.content_block is ${show(cb)}`);
    }
    if (cb.type === "text") {
      if (cb.text != null && typeof cb.text !== "string") {
        return this.bad("bad_content_block", `content_block.text is ${show(cb.text)}`);
      }
      this.#blocks.push({ kind: "text", call: -1, open: true });
      if (cb.text) {
        this.text += cb.text;
        this.tokenAt(tMs);
      }
    } else if (cb.type === "tool_use") {
      if (!this.#toolUse(cb, "content_block")) return;
      if (cb.input != null && !isObject(cb.input)) {
        return this.bad("bad_tool_call", `content_block.input is ${show(cb.input)}`);
      }
      const call = this.calls.length;
      // The input streams as input_json_delta pieces after an empty `{}`; a non-empty one is the whole input.
      const given = isObject(cb.input) && Object.keys(cb.input).length ? JSON.stringify(cb.input) : "";
      this.mergeCall({ index: call, id: cb.id as string, name: cb.name as string, arguments: given });
      this.#blocks.push({ kind: "tool_use", call, open: true });
      this.tokenAt(tMs);
    } else {
      const kind = cb.type === "thinking" || cb.type === "redacted_thinking" ? "thinking" : "other";
      this.#blocks.push({ kind, call: -1, open: true });
    }
  }

  #blockDelta(raw: Record<string, unknown>, tMs: number): void {
    const b = this.#openBlock(raw.index, "content_block_delta");
    if (!b) return;
    const d = raw.delta;
    if (!isObject(d) || typeof d.type !== "string") return this.bad("bad_content_block", `delta is ${show(d)}`);
    if (b.kind === "other") return; // a server tool's block: not the model's answer
    const want = Object.hasOwn(DELTA_FIELD, d.type) ? DELTA_FIELD[d.type] : undefined;
    if (!want) return; // a delta type added later (citations and the like) carries no answer text
    if (want.block !== b.kind) {
      return this.bad("bad_content_block", `${d.type} on a ${b.kind} block (index ${raw.index})`);
    }
    const piece = d[want.field];
    if (typeof piece !== "string") return this.bad("bad_content_block", `${d.type}.${want.field} is ${show(piece)}`);
    if (b.kind === "thinking" || !piece.length) return;
    if (b.kind === "text") this.text += piece;
    else this.mergeCall({ index: b.call, arguments: piece });
    this.tokenAt(tMs);
  }

  #messageDelta(raw: Record<string, unknown>): void {
    const d = raw.delta;
    if (d != null && !isObject(d)) return this.bad("bad_event", `message_delta.delta is ${show(d)}`);
    if (d && !this.#stopReason(d.stop_reason, "message_delta.delta.stop_reason")) return;
    if (raw.usage != null) this.#readUsage(raw.usage, "message_delta.usage");
  }

  /** The open block at `index`, or null after marking the event malformed. */
  #openBlock(index: unknown, event: string): Block | null {
    const b = isIndex(index) ? this.#blocks[index] : undefined;
    if (!b || !b.open) {
      this.bad("bad_content_block", `${event} for content block ${show(index)}, which is not open`);
      return null;
    }
    return b;
  }

  /** A tool_use block's id and name are non-empty strings; else the answer is malformed. */
  #toolUse(b: Record<string, unknown>, path: string): boolean {
    if (typeof b.id === "string" && b.id && typeof b.name === "string" && b.name) return true;
    this.bad("bad_tool_call", `${path} tool_use has id ${show(b.id)} and name ${show(b.name)}`);
    return false;
  }

  #stopReason(v: unknown, path: string): boolean {
    if (v == null) return true;
    if (typeof v !== "string") {
      this.bad("bad_finish_reason", `${path} is ${show(v)}, not a string`);
      return false;
    }
    this.finishReason = neutralFinish(v);
    return true;
  }

  /**
   * A usage object (message_start's, message_delta's cumulative one, or a body's): each count present replaces the
   * last; once input and output are known the neutral usage is taken. The tier served is read here too.
   */
  #readUsage(u: unknown, path: string): void {
    if (isObject(u) && u.service_tier != null) {
      if (typeof u.service_tier !== "string") {
        return this.bad("bad_service_tier", `${path}.service_tier is ${show(u.service_tier)}`);
      }
      this.serviceTier = u.service_tier;
    }
    try {
      if (!isObject(u)) throw new BadUsage(`${path} is ${show(u)}, not an object`);
      const last = this.#raw;
      const next: RawUsage = {
        input: usageCount(u, "input_tokens", `${path}.input_tokens`) ?? last.input,
        cacheWrite: usageCount(u, "cache_creation_input_tokens", `${path}.cache_creation_input_tokens`) ??
          last.cacheWrite,
        cacheRead: usageCount(u, "cache_read_input_tokens", `${path}.cache_read_input_tokens`) ?? last.cacheRead,
        output: usageCount(u, "output_tokens", `${path}.output_tokens`) ?? last.output,
      };
      checkCacheBreakdown(u, path);
      if (next.output !== null && last.output !== null && next.output < last.output) {
        throw new BadUsage(`${path}.output_tokens fell from ${last.output} to ${next.output}; it is cumulative`);
      }
      this.#raw = next;
      if (next.input === null || next.output === null) return; // not yet a whole report
      const prompt = next.input + (next.cacheWrite ?? 0) + (next.cacheRead ?? 0);
      if (!Number.isSafeInteger(prompt)) throw new BadUsage(`${path}: input + cache counts overflow`);
      const usage: Usage = {
        prompt_tokens: prompt,
        completion_tokens: next.output,
        cached_tokens: next.cacheRead ?? 0,
        reasoning_tokens: null,
        cache_write_tokens: next.cacheWrite,
      };
      this.takeUsage({ ok: true, usage });
    } catch (e) {
      if (!(e instanceof BadUsage)) throw e;
      this.takeUsage({ ok: false, problem: e.message });
    }
  }
}

/** Which delta type goes into which kind of block, and the field carrying its piece. */
const DELTA_FIELD: Readonly<Record<string, { block: Block["kind"]; field: string }>> = {
  text_delta: { block: "text", field: "text" },
  input_json_delta: { block: "tool_use", field: "partial_json" },
  thinking_delta: { block: "thinking", field: "thinking" },
  signature_delta: { block: "thinking", field: "signature" },
};

/** Event types past message_start that the parser reads. */
const KNOWN_EVENTS: ReadonlySet<string> = new Set([
  "content_block_start",
  "content_block_delta",
  "content_block_stop",
  "message_delta",
  "message_stop",
]);

/** `cache_creation` (writes by TTL), when given, must be an object whose counts add up to the write count. */
function checkCacheBreakdown(u: Record<string, unknown>, path: string): void {
  const c = u.cache_creation;
  if (c == null) return;
  if (!isObject(c)) throw new BadUsage(`${path}.cache_creation is ${show(c)}, not an object`);
  const parts = ["ephemeral_5m_input_tokens", "ephemeral_1h_input_tokens"]
    .map((k) => usageCount(c, k, `${path}.cache_creation.${k}`));
  const total = usageCount(u, "cache_creation_input_tokens", `${path}.cache_creation_input_tokens`);
  if (total === null || parts.every((p) => p === null)) return;
  const sum = parts.reduce<number>((s, p) => s + (p ?? 0), 0);
  if (sum !== total) {
    throw new BadUsage(`${path}.cache_creation adds up to ${sum}, but cache_creation_input_tokens is ${total}`);
  }
}
