import type { WorkloadCase } from "../schema/mod.ts";
import type { ObservedToolCall } from "./checks/check.ts";
import { checkBody, checkChunk, type Chunk, isObject, type ToolCallDelta } from "./response_shape.ts";
import { readUsage, type Usage } from "./usage.ts";

export type { Usage };

/** A message of the OpenAI Chat Completions wire format. */
export type WireMessage =
  | { role: "system" | "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: WireToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

export interface WireToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** Builds the JSON body of one Chat Completions call. */
export function chatBody(
  c: WorkloadCase,
  messages: readonly WireMessage[],
  options: { model: string; stream: boolean; maxTokens: number },
): string {
  const body: Record<string, unknown> = {
    model: options.model,
    messages,
    max_tokens: options.maxTokens,
    stream: options.stream,
  };
  if (options.stream) body.stream_options = { include_usage: true };
  if (c.expected_output_schema) {
    body.response_format = {
      type: "json_schema",
      json_schema: { name: `${c.class}_output`, schema: c.expected_output_schema, strict: true },
    };
  }
  if (c.tools.length) {
    body.tools = c.tools.map((t) => ({ type: "function", function: t }));
    body.tool_choice = "auto";
  }
  return JSON.stringify(body);
}

/**
 * Accumulates one response (streamed chunks or a whole body) into the answer
 * text, tool calls, usage, finish reason and token timing.
 */
export class ResponseState {
  text = "";
  finishReason: string | null = null;
  usage: Usage | null = null;
  /** Set when a usage object cannot be used (see runner/usage.ts); `usage` is then null. */
  badUsage: string | null = null;
  done = false;
  firstTokenMs: number | null = null;
  lastTokenMs: number | null = null;
  /** Set when a chunk or body cannot be understood: what was wrong, for a person. */
  malformed: string | null = null;
  /**
   * The error kind of the first malformed chunk or body when it is more precise
   * than "not JSON" (see `Malformed` in runner/response_shape.ts); null otherwise.
   */
  malformedKind: string | null = null;
  readonly #calls: { id: string; name: string; args: string }[] = [];
  /** Text of a plain content chunk before and after its content string (see `#feedTemplated`). */
  #prefix: string | null = null;
  #suffix = "";
  readonly #gaps: number[] = [];

  /** Feeds one SSE `data` payload of a streamed response. */
  feedChunk(data: string, tMs: number): void {
    // Nothing after [DONE] is applied: the stream said it had ended.
    if (this.done) return this.#bad("data_after_done", `data after [DONE]: ${data.slice(0, 60)}`);
    if (data === "[DONE]") {
      this.done = true;
      return;
    }
    if (this.#feedTemplated(data, tMs)) return;
    let raw: unknown;
    try {
      raw = JSON.parse(data);
    } catch {
      this.malformed ??= `SSE data is not JSON: ${data.slice(0, 60)}`;
      return;
    }
    if (!isObject(raw)) {
      this.malformed ??= "SSE data is not an object";
      return;
    }
    if (raw.error) {
      this.malformed ??= `error in stream: ${JSON.stringify(raw.error).slice(0, 120)}`;
      return;
    }
    const chunk = checkChunk(raw, this.#calls.length);
    if (!chunk.ok) return this.#bad(chunk.kind, chunk.problem);
    this.#learnTemplate(data, chunk.value);
    if (raw.usage != null) this.#takeUsage(raw.usage);
    const choice = chunk.value.choices?.[0];
    if (!choice) return;
    const delta = choice.delta ?? {};
    let token = false;
    if (typeof delta.content === "string" && delta.content.length) {
      this.text += delta.content;
      token = true;
    }
    if (delta.tool_calls) {
      for (const tc of delta.tool_calls) this.#mergeCall(tc);
      token = true;
    }
    if (token) this.#tokenAt(tMs);
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
  }

  /** Reads a whole non-streamed `chat.completion` body; its tokens all arrive at `tMs`. */
  feedBody(body: string, tMs: number): void {
    let raw: unknown;
    try {
      raw = JSON.parse(body);
    } catch {
      this.malformed = `body is not JSON: ${body.slice(0, 60)}`;
      return;
    }
    const choices = isObject(raw) ? raw.choices : undefined;
    // A `choices` of the wrong type gets the kind a stream's would (runner/response_shape.ts), not "not JSON".
    if (choices != null && !Array.isArray(choices)) {
      return this.#bad("bad_choices", `choices is ${JSON.stringify(choices).slice(0, 60)}, not an array`);
    }
    const first: unknown = Array.isArray(choices) ? choices[0] : undefined;
    if (first != null && !isObject(first)) {
      return this.#bad("bad_choices", `choices[0] is ${JSON.stringify(first).slice(0, 60)}, not an object`);
    }
    if (!isObject(raw) || !isObject(first) || first.message == null) {
      this.malformed = "body has no choices[0].message";
      return;
    }
    const checked = checkBody(raw);
    if (!checked.ok) return this.#bad(checked.kind, checked.problem);
    const choice = checked.value;
    this.text = choice.message.content ?? "";
    for (const [i, tc] of (choice.message.tool_calls ?? []).entries()) this.#mergeCall({ ...tc, index: i });
    this.finishReason = choice.finish_reason ?? null;
    if (raw.usage != null) this.#takeUsage(raw.usage);
    this.firstTokenMs = this.lastTokenMs = tMs;
    this.done = true;
  }

  /** Tool calls as the model sent them (arguments parsed when they are JSON). */
  toolCalls(): (ObservedToolCall & { id: string })[] {
    return this.#calls.map((c) => ({ id: c.id, name: c.name, raw_arguments: c.args, arguments: parseArgs(c.args) }));
  }

  /** Median and largest gap between token-bearing chunks (null with fewer than two). */
  itl(): { p50: number | null; max: number | null } {
    const g = this.#gaps;
    if (!g.length) return { p50: null, max: null };
    const s = Float64Array.from(g).sort(); // numeric, native: no comparator calls
    const mid = s.length >> 1;
    const p50 = s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
    return { p50, max: s[s.length - 1]! };
  }

  /**
   * Fast path for a stream's repetitive chunks. The first plain content chunk
   * (one choice, a delta with only `content`, no finish reason, usage or tool
   * calls) is read with JSON.parse and its text around the content string is
   * kept as a template; a later chunk with exactly the same text before and
   * after its content string, and a content string without quotes,
   * backslashes or control characters, is the same JSON with other content.
   * Two string comparisons instead of a JSON.parse per token (about 5× less
   * CPU, and no garbage). Anything else takes the JSON path.
   */
  #feedTemplated(data: string, tMs: number): boolean {
    const pre = this.#prefix;
    const end = data.length - this.#suffix.length;
    // slice + === compares with memcmp; startsWith walks characters and costs ~20× more here.
    if (pre === null || end < pre.length) return false;
    if (data.slice(0, pre.length) !== pre || data.slice(end) !== this.#suffix) return false;
    const text = data.slice(pre.length, end);
    if (UNSAFE_IN_STRING.test(text)) return false;
    if (text.length) {
      this.text += text;
      this.#tokenAt(tMs);
    }
    return true;
  }

  /** Keeps `data` as the template of plain content chunks when it is one. */
  #learnTemplate(data: string, chunk: Chunk): void {
    const choice = chunk.choices?.[0];
    const delta = choice?.delta;
    if (chunk.usage || chunk.choices?.length !== 1 || choice!.finish_reason || !delta) return;
    const keys = Object.keys(delta);
    if (keys.length !== 1 || typeof delta.content !== "string") return;
    const marker = `"content":${JSON.stringify(delta.content)}`;
    const at = data.indexOf(marker);
    if (at < 0 || data.indexOf(marker, at + 1) >= 0) return;
    this.#prefix = data.slice(0, at + 11);
    this.#suffix = data.slice(at + marker.length - 1);
  }

  /** Marks the response malformed with a precise kind (the first problem wins). */
  #bad(kind: string, problem: string): void {
    if (this.malformed !== null) return;
    this.malformed = problem;
    this.malformedKind = kind;
  }

  #takeUsage(u: unknown): void {
    const r = readUsage(u);
    if (r.ok) {
      if (this.badUsage === null) this.usage = r.usage;
      return;
    }
    this.usage = null;
    this.badUsage ??= r.problem;
  }

  #tokenAt(tMs: number): void {
    if (this.firstTokenMs === null) this.firstTokenMs = tMs;
    else this.#gaps.push(tMs - this.lastTokenMs!);
    this.lastTokenMs = tMs;
  }

  #mergeCall(tc: ToolCallDelta): void {
    const i = tc.index ?? this.#calls.length;
    const cur = this.#calls[i] ?? (this.#calls[i] = { id: "", name: "", args: "" });
    if (tc.id) cur.id = tc.id;
    if (tc.function?.name) cur.name += tc.function.name;
    if (tc.function?.arguments) cur.args += tc.function.arguments;
  }
}

/** What a JSON string may not hold unescaped, plus the escape character itself. */
// deno-lint-ignore no-control-regex -- control characters are exactly what must be found
const UNSAFE_IN_STRING = /["\\\x00-\x1f]/;

function parseArgs(raw: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(raw);
    return v !== null && typeof v === "object" && !Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}
