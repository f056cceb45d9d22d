/**
 * What the recording fetch (recorder/fetch.ts) reads of an OpenAI-compatible exchange as it passes: the request's
 * model and stream flag, an SSE stream's content events, usage and finish reason, a JSON answer's, Retry-After, and
 * the names of failures — the runner's names (runner/attempt.ts, runner/http/), so a recorded log and a load test's
 * speak alike. Nothing here throws on bad input: what cannot be read is null.
 *
 * @module
 */
import type { Usage } from "./types.ts";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

/** A count as usage states it: absent → null; anything but a whole number ≥ 0 → undefined (unusable). */
function count(o: unknown, key: string): number | null | undefined {
  const v = isObj(o) ? o[key] : undefined;
  if (v === undefined || v === null) return null;
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 0 ? v : undefined;
}

/** The usage fields OpenAI-compatible servers use for prompt-cache writes (the runner's list, runner/dialects/openai_chat_usage.ts). */
const CACHE_WRITES: [string | null, string][] = [
  ["prompt_tokens_details", "cache_write_tokens"],
  ["prompt_tokens_details", "cache_creation_tokens"],
  [null, "cache_creation_input_tokens"],
];

/**
 * A `usage` object as the recorder's {@linkcode Usage}; null when absent or when a count in it is not a whole number
 * ≥ 0 (then the attempt's tokens are 0 and its token source null: not reported).
 */
export function readUsage(u: unknown): Usage | null {
  if (!isObj(u)) return null;
  const input = count(u, "prompt_tokens"), output = count(u, "completion_tokens");
  const cached = count(u.prompt_tokens_details, "cached_tokens");
  const reasoning = count(u.completion_tokens_details, "reasoning_tokens");
  const writes = CACHE_WRITES.map(([head, key]) => count(head === null ? u : u[head], key));
  if ([input, output, cached, reasoning, ...writes].includes(undefined)) return null;
  return {
    input_tokens: input ?? 0,
    output_tokens: output ?? 0,
    cached_input_tokens: cached ?? 0,
    reasoning_tokens: reasoning ?? null,
    cache_write_tokens: writes.find((w) => w !== null) ?? null,
  };
}

/** Whether a choice carries generated content: text, reasoning or a tool call (a delta, a message or legacy text). */
function hasContent(choice: unknown): boolean {
  if (!isObj(choice)) return false;
  const d = isObj(choice.delta) ? choice.delta : isObj(choice.message) ? choice.message : {};
  const text = (v: unknown) => typeof v === "string" && v.length > 0;
  return text(d.content) || text(d.reasoning) || text(d.reasoning_content) || text(choice.text) ||
    (Array.isArray(d.tool_calls) && d.tool_calls.length > 0);
}

/** Reads an SSE body of Chat (or legacy) Completions chunk by chunk: content events, usage, finish, [DONE]. */
export class SseReading {
  usage: Usage | null = null;
  finishReason: string | null = null;
  done = false;
  /** The first chunk that could not be read (not JSON, or an error object in the stream). */
  malformed: string | null = null;
  readonly #decoder = new TextDecoder();
  #line = "";
  #data: string[] = [];

  /** Feeds bytes as they arrive; returns how many content events they completed. */
  push(bytes: Uint8Array): number {
    return this.#text(this.#decoder.decode(bytes, { stream: true }));
  }

  /** The stream ended: a last event without its blank line still counts. */
  end(): number {
    return this.#text(this.#decoder.decode() + "\n\n");
  }

  #text(text: string): number {
    let tokens = 0;
    const lines = (this.#line + text).split("\n");
    this.#line = lines.pop()!;
    for (const raw of lines) {
      const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
      if (line === "") {
        if (this.#data.length) tokens += this.#event(this.#data.join("\n"));
        this.#data = [];
      } else if (line.startsWith("data:")) this.#data.push(line.slice(line[5] === " " ? 6 : 5));
    }
    return tokens;
  }

  #event(data: string): number {
    if (data === "[DONE]") {
      this.done = true;
      return 0;
    }
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      this.malformed ??= `SSE data is not JSON: ${data.slice(0, 60)}`;
      return 0;
    }
    if (!isObj(chunk) || chunk.error != null) {
      this.malformed ??= `not a chunk: ${data.slice(0, 60)}`;
      return 0;
    }
    if (chunk.usage != null) this.usage = readUsage(chunk.usage);
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    for (const c of choices) {
      if (isObj(c) && typeof c.finish_reason === "string") this.finishReason = c.finish_reason;
    }
    return choices.some(hasContent) ? 1 : 0;
  }
}

/** What a whole JSON answer says: whether it holds an answer, its finish reason and usage. */
export function readJsonAnswer(text: string): { ok: boolean; finishReason: string | null; usage: Usage | null } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, finishReason: null, usage: null };
  }
  const choice = isObj(body) && Array.isArray(body.choices) ? body.choices[0] : undefined;
  const ok = isObj(choice) && (isObj(choice.message) || typeof choice.text === "string");
  const finishReason = isObj(choice) && typeof choice.finish_reason === "string" ? choice.finish_reason : null;
  return { ok, finishReason, usage: isObj(body) ? readUsage(body.usage) : null };
}

/** Retry-After (delta seconds or an HTTP date) in ms; null when absent or unreadable (as runner/retry.ts reads it). */
export function parseRetryAfter(value: string | null, nowUnixMs = Date.now()): number | null {
  if (value === null || value.trim() === "") return null;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) {
    const ms = Number(v) * 1000;
    return Number.isFinite(ms) ? ms : null;
  }
  if (!/[a-z]/i.test(v)) return null;
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : Math.max(0, t - nowUnixMs);
}

/** The messages of an error and its causes, with their codes (Node's undici puts the reason in `cause.code`). */
function describe(err: unknown): string {
  let out = "";
  for (let e = err, depth = 0; e !== undefined && e !== null && depth < 5; depth++) {
    const o = e as { name?: unknown; message?: unknown; code?: unknown; cause?: unknown };
    out += ` ${String(o.name ?? "")} ${String(o.message ?? e)} ${String(o.code ?? "")}`;
    e = o.cause;
  }
  return out;
}

const isAbort = (err: unknown) => {
  const name = (err as { name?: unknown } | null)?.name;
  return name === "AbortError" || name === "TimeoutError";
};

/**
 * The runner's name for a fetch that failed before its answer's head (runner/http/fetch_client.ts): `aborted`,
 * `connect_refused`, `connect_error` (DNS, TCP connect, a connect timeout) or `connection_reset`.
 */
export function sendErrorKind(err: unknown): string {
  if (isAbort(err)) return "aborted";
  const text = describe(err);
  if (/refused|ECONNREFUSED|os error 111/i.test(text)) return "connect_refused";
  if (/ENOTFOUND|EAI_AGAIN|ETIMEDOUT|dns error|tcp connect error|connect error|UND_ERR_CONNECT/i.test(text)) {
    return "connect_error";
  }
  return "connection_reset";
}

/** The runner's name for a body that failed after the answer's head: `aborted` or `stream_cut`. */
export function bodyErrorKind(err: unknown): string {
  return isAbort(err) ? "aborted" : "stream_cut";
}
