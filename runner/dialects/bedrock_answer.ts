/**
 * A Bedrock Converse answer read into the runner's rows: the ConverseStream events (decoded from the AWS event
 * stream by `AwsEventStreamDecoder`, runner/dialects/aws_eventstream.ts) or a whole Converse body. Every field read
 * is checked where it enters; a wrong one sets the malformed kind (docs/dialects/bedrock-converse.md lists them).
 *
 * @module
 */
import type { Usage } from "../usage.ts";
import { AnswerBase, BadUsage, isObject, usageCount } from "./answer_base.ts";
import type { StreamEvent, StreamFailure } from "./dialect.ts";

/** Bedrock stop reasons in the neutral vocabulary; any other is kept as `bedrock-converse:<raw>`. */
const FINISH: Record<string, string> = {
  end_turn: "stop",
  stop_sequence: "stop",
  max_tokens: "length",
  tool_use: "tool_calls",
  guardrail_intervened: "content_filter",
  content_filtered: "content_filter",
};

/** The neutral finish reason of a Bedrock `stopReason`. */
export function bedrockFinish(raw: string): string {
  return Object.hasOwn(FINISH, raw) ? FINISH[raw]! : `bedrock-converse:${raw}`;
}

/**
 * A ConverseStream exception frame judged: the HTTP status Bedrock documents for it, and whether it is a refusal
 * for load (`rejected`: throttling, service unavailable) or another failure (`http_error`).
 */
const STREAM_EXCEPTIONS: Record<string, StreamFailure> = {
  throttlingException: { kind: "stream_throttling", outcome: "rejected", status: 429 },
  serviceUnavailableException: { kind: "stream_service_unavailable", outcome: "rejected", status: 503 },
  internalServerException: { kind: "stream_internal_server", outcome: "http_error", status: 500 },
  modelStreamErrorException: { kind: "stream_model_stream_error", outcome: "http_error", status: 424 },
  validationException: { kind: "stream_validation", outcome: "http_error", status: 400 },
};

const show = (v: unknown) => JSON.stringify(v)?.slice(0, 60) ?? String(v);

/**
 * Reads a Bedrock `usage` (TokenUsage). Bedrock's `inputTokens` does not include the prompt-cache reads and writes
 * (`cacheReadInputTokens`, `cacheWriteInputTokens`), so the neutral prompt count is their sum; `outputTokens`
 * includes any reasoning, which Bedrock does not break out (reasoning_tokens stays null). `totalTokens`, when sent,
 * must be input + output with or without the cache counts.
 *
 * @example A cache write: 10 fresh + 1900 written = 1910 prompt tokens
 * ```ts
 * import { readBedrockUsage } from "./bedrock_answer.ts";
 * import assert from "node:assert/strict";
 * const r = readBedrockUsage({ inputTokens: 10, outputTokens: 5, totalTokens: 1915, cacheWriteInputTokens: 1900 });
 * assert.deepEqual(r, { ok: true, usage: { prompt_tokens: 1910, completion_tokens: 5, cached_tokens: 0,
 *   reasoning_tokens: null, cache_write_tokens: 1900 } });
 * assert.equal(readBedrockUsage({ inputTokens: -1, outputTokens: 0 }).ok, false);
 * ```
 */
export function readBedrockUsage(u: unknown): { ok: true; usage: Usage } | { ok: false; problem: string } {
  try {
    if (!isObject(u)) throw new BadUsage(`usage is ${show(u)}, not an object`);
    const input = usageCount(u, "inputTokens", "usage.inputTokens");
    const output = usageCount(u, "outputTokens", "usage.outputTokens");
    if (input === null || output === null) throw new BadUsage("usage lacks inputTokens or outputTokens");
    const read = usageCount(u, "cacheReadInputTokens", "usage.cacheReadInputTokens");
    const write = usageCount(u, "cacheWriteInputTokens", "usage.cacheWriteInputTokens");
    const total = usageCount(u, "totalTokens", "usage.totalTokens");
    const prompt = input + (read ?? 0) + (write ?? 0);
    if (total !== null && total !== input + output && total !== prompt + output) {
      throw new BadUsage(
        `usage.totalTokens (${total}) is neither inputTokens + outputTokens (${input + output}) nor that plus the ` +
          `cache reads and writes (${prompt + output})`,
      );
    }
    return {
      ok: true,
      usage: {
        prompt_tokens: prompt,
        completion_tokens: output,
        cached_tokens: read ?? 0,
        reasoning_tokens: null,
        cache_write_tokens: write,
      },
    };
  } catch (e) {
    if (e instanceof BadUsage) return { ok: false, problem: e.message };
    throw e;
  }
}

/** One content block of a stream: text, or tool call number `call`. */
interface Block {
  call: number | null;
  stopped: boolean;
}

/** A Bedrock Converse answer being read. */
export class BedrockAnswer extends AnswerBase {
  #started = false;
  #stopped = false;
  #metadata = false;
  #whole = false;
  readonly #blocks = new Map<number, Block>();

  feedEvent(ev: StreamEvent, tMs: number): void {
    if (this.streamFailure !== null) return;
    const name = ev.event;
    if (name === null || name === undefined) {
      return this.bad("bad_event", "an event-stream message without an event or exception type");
    }
    // The exception's message is the provider's prose: the kind and status carry the verdict.
    if (name.startsWith("exception:")) {
      const type = name.slice(10);
      this.streamFailure = Object.hasOwn(STREAM_EXCEPTIONS, type)
        ? { ...STREAM_EXCEPTIONS[type]! }
        : { kind: "stream_exception", outcome: "http_error", status: null };
      return;
    }
    if (name.startsWith("error:")) {
      this.streamFailure = { kind: "stream_error", outcome: "http_error", status: null };
      return;
    }
    let p: unknown;
    try {
      p = JSON.parse(ev.data);
    } catch {
      return this.bad("bad_event_json", `${name} payload is not JSON: ${ev.data.slice(0, 60)}`);
    }
    if (!isObject(p)) return this.bad("bad_event_json", `${name} payload is ${show(p)}, not an object`);
    if (name !== "messageStart" && name !== "metadata" && !this.#started) {
      return this.bad("bad_event_order", `${name} before messageStart`);
    }
    if (this.#stopped && name !== "metadata") return this.bad("bad_event_order", `${name} after messageStop`);
    switch (name) {
      case "messageStart":
        if (this.#started) return this.bad("bad_event_order", "a second messageStart");
        if (p.role !== "assistant") return this.bad("bad_message_start", `messageStart role is ${show(p.role)}`);
        this.#started = true;
        return;
      case "contentBlockStart":
        return this.#blockStart(p, tMs);
      case "contentBlockDelta":
        return this.#blockDelta(p, tMs);
      case "contentBlockStop": {
        const b = this.#block(p);
        if (b) b.stopped = true;
        return;
      }
      case "messageStop":
        if (typeof p.stopReason !== "string") {
          return this.bad("bad_finish_reason", `messageStop stopReason is ${show(p.stopReason)}, not a string`);
        }
        this.#stopped = true;
        this.finishReason = bedrockFinish(p.stopReason);
        return;
      case "metadata":
        if (this.#metadata) return this.bad("bad_event_order", "a second metadata event");
        this.#metadata = true;
        this.takeUsage(readBedrockUsage(p.usage));
        return this.#tier(p.serviceTier);
      default:
        return; // An event type added after this parser was written carries nothing it reads.
    }
  }

  feedBody(body: string, tMs: number): void {
    let raw: unknown;
    try {
      raw = JSON.parse(body);
    } catch {
      return this.bad("invalid_json", `body is not JSON: ${body.slice(0, 60)}`);
    }
    if (!isObject(raw)) return this.bad("invalid_json", `body is ${show(raw)}, not an object`);
    const msg = isObject(raw.output) ? raw.output.message : undefined;
    if (!isObject(msg)) return this.bad("bad_message", `output.message is ${show(msg)}, not an object`);
    if (!Array.isArray(msg.content)) return this.bad("bad_content", `output.message.content is not an array`);
    for (const [i, b] of msg.content.entries()) {
      if (!isObject(b)) return this.bad("bad_content_block", `content[${i}] is ${show(b)}, not an object`);
      if ("text" in b) {
        if (typeof b.text !== "string") return this.bad("bad_content_block", `content[${i}].text is not a string`);
        this.text += b.text;
      } else if ("toolUse" in b) {
        const t = b.toolUse;
        if (!isObject(t) || typeof t.toolUseId !== "string" || typeof t.name !== "string" || !isObject(t.input)) {
          return this.bad("bad_tool_call", `content[${i}].toolUse is ${show(t)}`);
        }
        this.mergeCall({ id: t.toolUseId, name: t.name, arguments: JSON.stringify(t.input) });
      }
    }
    if (typeof raw.stopReason !== "string") {
      return this.bad("bad_finish_reason", `stopReason is ${show(raw.stopReason)}, not a string`);
    }
    this.finishReason = bedrockFinish(raw.stopReason);
    this.takeUsage(readBedrockUsage(raw.usage));
    this.#tier(raw.serviceTier);
    this.wholeAt(tMs);
    this.#whole = true;
  }

  /** A stream ends at its metadata event after messageStop (usage comes last); a body when it was read. */
  complete(): boolean {
    return this.#whole || (this.#stopped && this.#metadata);
  }

  /** The block a start/delta/stop names, created on first sight; null (and malformed) when the index is bad. */
  #block(p: Record<string, unknown>): Block | null {
    const i = p.contentBlockIndex;
    if (typeof i !== "number" || !Number.isSafeInteger(i) || i < 0) {
      this.bad("bad_content_block", `contentBlockIndex is ${show(i)}, not a non-negative integer`);
      return null;
    }
    let b = this.#blocks.get(i);
    if (!b) this.#blocks.set(i, b = { call: null, stopped: false });
    else if (b.stopped) {
      this.bad("bad_event_order", `content block ${i} continued after its contentBlockStop`);
      return null;
    }
    return b;
  }

  #blockStart(p: Record<string, unknown>, tMs: number): void {
    const known = this.#blocks.has(p.contentBlockIndex as number);
    const b = this.#block(p);
    if (!b) return;
    if (known) return this.bad("bad_content_block", `a second contentBlockStart for block ${p.contentBlockIndex}`);
    if (!isObject(p.start)) return this.bad("bad_content_block", `contentBlockStart start is ${show(p.start)}`);
    const t = p.start.toolUse;
    if (t === undefined) return; // Another kind of block (a tool result, an image): nothing visible to read.
    if (!isObject(t) || typeof t.toolUseId !== "string" || typeof t.name !== "string") {
      return this.bad("bad_tool_call", `contentBlockStart toolUse is ${show(t)}`);
    }
    b.call = this.calls.length;
    this.mergeCall({ index: b.call, id: t.toolUseId, name: t.name });
    this.tokenAt(tMs); // The tool's name is content: the model has begun to answer.
  }

  #blockDelta(p: Record<string, unknown>, tMs: number): void {
    const b = this.#block(p);
    if (!b) return;
    const d = p.delta;
    if (!isObject(d)) return this.bad("bad_delta", `contentBlockDelta delta is ${show(d)}, not an object`);
    if ("text" in d) {
      if (typeof d.text !== "string") return this.bad("bad_delta", `delta.text is ${show(d.text)}, not a string`);
      if (b.call !== null) return this.bad("bad_delta", "text delta in a toolUse block");
      if (!d.text.length) return;
      this.text += d.text;
      return this.tokenAt(tMs);
    }
    if ("toolUse" in d) {
      const input = isObject(d.toolUse) ? d.toolUse.input : undefined;
      if (typeof input !== "string") return this.bad("bad_tool_call", `delta.toolUse is ${show(d.toolUse)}`);
      if (b.call === null) return this.bad("bad_tool_call", "toolUse delta in a block no toolUse started");
      if (!input.length) return;
      this.mergeCall({ index: b.call, arguments: input });
      return this.tokenAt(tMs);
    }
    if ("reasoningContent" in d && !isObject(d.reasoningContent)) {
      return this.bad("bad_delta", `delta.reasoningContent is ${show(d.reasoningContent)}, not an object`);
    }
    // Reasoning, citations and other members are not the visible answer: no token.
  }

  #tier(t: unknown): void {
    if (t === undefined || t === null) return;
    if (!isObject(t) || typeof t.type !== "string") return this.bad("bad_service_tier", `serviceTier is ${show(t)}`);
    this.serviceTier = t.type;
  }
}
