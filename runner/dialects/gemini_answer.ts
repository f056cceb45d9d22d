/**
 * The Gemini answer parser: `GenerateContentResponse` chunks of a
 * `streamGenerateContent?alt=sse` stream (one JSON object per SSE `data:`
 * line, no end marker), or one whole `generateContent` body, read into the
 * runner's text, tool calls, finish reason, usage and token timing.
 *
 * Error kinds (an absent field or `null` is always allowed):
 * - `malformed_sse` (stream) / `invalid_json` (body): the data is not JSON, or not a JSON object.
 * - `unknown_event`: an SSE event with an `event:` name (Gemini sends none).
 * - `bad_candidates`: `candidates` is not an array, or `candidates[0]` is not an object.
 * - `multiple_candidates`: more than one candidate, or a candidate `index` other than 0 (never asked for).
 * - `bad_content`: `candidates[0].content` is not an object, or its `parts` is not an array.
 * - `bad_part`: a part is not an object, or its `text` is not a string, `thought` not a boolean,
 *   `thoughtSignature` not a string.
 * - `bad_function_call`: a `functionCall` is not an object, its `name` not a non-empty string, its `args` not
 *   an object, or its `id` not a string.
 * - `bad_finish_reason`: `finishReason` is not a string.
 * - `bad_prompt_feedback`: `promptFeedback` is not an object, or its `blockReason` not a string.
 * - `content_after_finish`: text or a function call after a chunk that carried a finish reason.
 * - `bad_error`: an `error` member that is not an object.
 * - usage problems void the usage (`badUsage`; the attempt's kind is `bad_usage`).
 *
 * @module
 */
import type { Usage } from "../usage.ts";
import type { StreamEvent, StreamFailure } from "./dialect.ts";
import { AnswerBase, BadUsage, isObject, usageCount } from "./answer_base.ts";

/** Gemini finish reasons that mean a content filter stopped the answer. */
const FILTERED = new Set(["SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY"]);

const show = (v: unknown) => JSON.stringify(v)?.slice(0, 60) ?? String(v);

/**
 * The neutral finish reason of a Gemini `finishReason`: `STOP` is `stop` (or `tool_calls` when the answer holds
 * function calls), `MAX_TOKENS` is `length`, the safety family is `content_filter`, anything else `gemini:<RAW>`.
 *
 * @example
 * ```ts
 * import { neutralFinish } from "./gemini_answer.ts";
 * import assert from "node:assert/strict";
 * assert.equal(neutralFinish("STOP", true), "tool_calls");
 * assert.equal(neutralFinish("SPII", false), "content_filter");
 * assert.equal(neutralFinish("MALFORMED_FUNCTION_CALL", false), "gemini:MALFORMED_FUNCTION_CALL");
 * ```
 */
export function neutralFinish(raw: string, hasCalls: boolean): string {
  if (raw === "STOP") return hasCalls ? "tool_calls" : "stop";
  if (raw === "MAX_TOKENS") return "length";
  if (FILTERED.has(raw)) return "content_filter";
  return `gemini:${raw}`;
}

/**
 * The id the runner gives the `i`-th function call of an answer. Gemini matches a function's result to its call by
 * name (and by the call's own `id` when it sends one), so the neutral conversation's id is invented:
 * `gemini_call_<i>`, followed by `?id=…&sig=…` (URL-encoded) when the call carried an `id` or a `thoughtSignature`,
 * which the next round's body must send back ({@linkcode decodeCallId}).
 *
 * @example
 * ```ts
 * import { decodeCallId, encodeCallId } from "./gemini_answer.ts";
 * import assert from "node:assert/strict";
 * assert.equal(encodeCallId(0, null, null), "gemini_call_0");
 * const id = encodeCallId(1, null, "c2ln/+==");
 * assert.deepEqual(decodeCallId(id), { id: null, sig: "c2ln/+==" });
 * assert.deepEqual(decodeCallId("call_abc"), { id: null, sig: null });
 * ```
 */
export function encodeCallId(i: number, id: string | null, sig: string | null): string {
  const q = new URLSearchParams();
  if (id) q.set("id", id);
  if (sig) q.set("sig", sig);
  const s = q.toString();
  return `gemini_call_${i}${s ? `?${s}` : ""}`;
}

/** The provider's call id and thought signature carried by an id of {@linkcode encodeCallId} (null: none). */
export function decodeCallId(callId: string): { id: string | null; sig: string | null } {
  const m = /^gemini_call_\d+\?(.*)$/s.exec(callId);
  if (!m) return { id: null, sig: null };
  const q = new URLSearchParams(m[1]);
  return { id: q.get("id") || null, sig: q.get("sig") || null };
}

/**
 * A Gemini `usageMetadata` in the neutral counts: prompt = `promptTokenCount` (cached tokens included) +
 * `toolUsePromptTokenCount`; completion = `candidatesTokenCount` + `thoughtsTokenCount` (Gemini counts thoughts
 * outside the candidates); reasoning = `thoughtsTokenCount` (null when absent); cached = `cachedContentTokenCount`;
 * cache writes are never reported (null).
 *
 * @example A thinking model's answer with an implicit cache hit
 * ```ts
 * import { readGeminiUsage } from "./gemini_answer.ts";
 * import assert from "node:assert/strict";
 * const r = readGeminiUsage({ promptTokenCount: 120, cachedContentTokenCount: 100, candidatesTokenCount: 30,
 *   thoughtsTokenCount: 50, totalTokenCount: 200 });
 * assert.deepEqual(r, { ok: true, usage: { prompt_tokens: 120, completion_tokens: 80, cached_tokens: 100,
 *   reasoning_tokens: 50, cache_write_tokens: null } });
 * ```
 */
export function readGeminiUsage(u: unknown): { ok: true; usage: Usage } | { ok: false; problem: string } {
  try {
    if (!isObject(u)) throw new BadUsage(`usageMetadata is ${show(u)}, not an object`);
    const n = (key: string) => usageCount(u, key, `usageMetadata.${key}`);
    const prompt = n("promptTokenCount") ?? 0;
    const toolUse = n("toolUsePromptTokenCount") ?? 0;
    const candidates = n("candidatesTokenCount") ?? 0;
    const cached = n("cachedContentTokenCount") ?? 0;
    const thoughts = n("thoughtsTokenCount");
    const total = n("totalTokenCount");
    if (cached > prompt) {
      throw new BadUsage(`usageMetadata.cachedContentTokenCount (${cached}) exceeds promptTokenCount (${prompt})`);
    }
    const sum = prompt + toolUse + candidates + (thoughts ?? 0);
    if (total !== null && total < sum) {
      throw new BadUsage(`usageMetadata.totalTokenCount (${total}) is less than the counts it sums (${sum})`);
    }
    const usage: Usage = {
      prompt_tokens: prompt + toolUse,
      completion_tokens: candidates + (thoughts ?? 0),
      cached_tokens: cached,
      reasoning_tokens: thoughts,
      cache_write_tokens: null,
    };
    return { ok: true, usage };
  } catch (e) {
    if (e instanceof BadUsage) return { ok: false, problem: e.message };
    throw e;
  }
}

/**
 * The failure an `error` object in a stream reports: kind `stream_<status>` (its `status` lower-cased, e.g.
 * `stream_unavailable`, as the other dialects name a failure inside a stream), `stream_error` without a status;
 * `rejected` for `RESOURCE_EXHAUSTED`/429 and `UNAVAILABLE`/503, `http_error` otherwise; the status is its `code`.
 */
export function streamError(err: Record<string, unknown>): StreamFailure {
  const code = typeof err.code === "number" && Number.isSafeInteger(err.code) && err.code > 0 ? err.code : null;
  const st = typeof err.status === "string" ? err.status : null;
  const load = st === "RESOURCE_EXHAUSTED" || st === "UNAVAILABLE" || code === 429 || code === 503;
  return {
    // Named like the other dialects' failures inside a stream: `stream_<the provider's error name>`.
    kind: st !== null && /^[A-Z_]{1,40}$/.test(st) ? `stream_${st.toLowerCase()}` : "stream_error",
    outcome: load ? "rejected" : "http_error",
    status: code,
  };
}

/** One attempt's Gemini answer (see the module doc for its error kinds). */
export class GeminiAnswer extends AnswerBase {
  /** A chunk carried a finish reason, or the prompt was blocked: the answer is over. */
  #finished = false;
  #whole = false;
  /** The raw `finishReason`, mapped once the answer's function calls are known. */
  #rawFinish: string | null = null;

  feedEvent(ev: StreamEvent, tMs: number): void {
    if (this.malformed !== null || this.streamFailure !== null) return;
    if (ev.event != null && ev.event !== "message") {
      return this.bad("unknown_event", `SSE event ${show(ev.event)}; Gemini sends data lines only`);
    }
    let raw: unknown;
    try {
      raw = JSON.parse(ev.data);
    } catch {
      return this.bad("malformed_sse", `SSE data is not JSON: ${ev.data.slice(0, 60)}`);
    }
    if (!isObject(raw)) return this.bad("malformed_sse", `SSE data is ${show(raw)}, not an object`);
    this.#chunk(raw, tMs, false);
  }

  feedBody(body: string, tMs: number): void {
    let raw: unknown;
    try {
      raw = JSON.parse(body);
    } catch {
      return this.bad("invalid_json", `body is not JSON: ${body.slice(0, 60)}`);
    }
    if (!isObject(raw)) return this.bad("invalid_json", `body is ${show(raw)}, not an object`);
    this.#chunk(raw, tMs, true);
    this.#whole = true;
  }

  complete(): boolean {
    return this.#whole || this.#finished;
  }

  /** Applies one response object (a chunk, or the whole body when `whole`). */
  #chunk(raw: Record<string, unknown>, tMs: number, whole: boolean): void {
    if (raw.error != null) {
      if (!isObject(raw.error)) return this.bad("bad_error", `error is ${show(raw.error)}, not an object`);
      this.streamFailure = streamError(raw.error);
      return;
    }
    const fb = raw.promptFeedback;
    if (fb != null && (!isObject(fb) || (fb.blockReason != null && typeof fb.blockReason !== "string"))) {
      return this.bad("bad_prompt_feedback", `promptFeedback is ${show(fb)}`);
    }
    const cands = raw.candidates;
    if (cands != null && !Array.isArray(cands)) return this.bad("bad_candidates", `candidates is ${show(cands)}`);
    const cand: unknown = Array.isArray(cands) ? cands[0] : undefined;
    if (cand !== undefined && !isObject(cand)) return this.bad("bad_candidates", `candidates[0] is ${show(cand)}`);
    if (Array.isArray(cands) && (cands.length > 1 || (cand?.index != null && cand.index !== 0))) {
      return this.bad("multiple_candidates", `${cands.length} candidates; only one (index 0) is asked for`);
    }
    if (cand && !this.#candidate(cand, tMs, whole)) return;
    if (isObject(fb) && typeof fb.blockReason === "string" && fb.blockReason) {
      this.finishReason = "content_filter";
      this.#finished = true;
    }
    if (raw.usageMetadata != null) this.takeUsage(readGeminiUsage(raw.usageMetadata));
  }

  /** Applies candidates[0]; false when it was malformed. */
  #candidate(cand: Record<string, unknown>, tMs: number, whole: boolean): boolean {
    const fr = cand.finishReason;
    if (fr != null && typeof fr !== "string") {
      this.bad("bad_finish_reason", `finishReason is ${show(fr)}, not a string`);
      return false;
    }
    const content = cand.content;
    if (content != null && (!isObject(content) || (content.parts != null && !Array.isArray(content.parts)))) {
      this.bad("bad_content", `content is ${show(content)}`);
      return false;
    }
    const parts: unknown[] = isObject(content) && Array.isArray(content.parts) ? content.parts : [];
    let text = "";
    const calls: { name: string; args: string; id: string | null; sig: string | null }[] = [];
    for (const p of parts) {
      if (!isObject(p)) return this.#badPart(`a part is ${show(p)}, not an object`);
      if (p.thought != null && typeof p.thought !== "boolean") return this.#badPart(`thought is ${show(p.thought)}`);
      if (p.text != null && typeof p.text !== "string") return this.#badPart(`text is ${show(p.text)}`);
      const sig = p.thoughtSignature;
      if (sig != null && typeof sig !== "string") return this.#badPart(`thoughtSignature is ${show(sig)}`);
      if (p.thought === true) continue; // a thought summary: not an answer token
      if (typeof p.text === "string") text += p.text;
      const fc = p.functionCall;
      if (fc == null) continue;
      if (!isObject(fc) || typeof fc.name !== "string" || !fc.name) {
        this.bad("bad_function_call", `functionCall is ${show(fc)}`);
        return false;
      }
      if ((fc.args != null && !isObject(fc.args)) || (fc.id != null && typeof fc.id !== "string")) {
        this.bad("bad_function_call", `functionCall args or id of the wrong type: ${show(fc)}`);
        return false;
      }
      calls.push({
        name: fc.name,
        args: JSON.stringify(fc.args ?? {}),
        id: (fc.id as string) || null,
        sig: sig ?? null,
      });
    }
    if (this.#finished && (text || calls.length)) {
      this.bad("content_after_finish", `content after the finish reason ${show(this.#rawFinish)}`);
      return false;
    }
    this.text += text;
    for (const c of calls) {
      const i = this.calls.length;
      this.mergeCall({ index: i, id: encodeCallId(i, c.id, c.sig), name: c.name, arguments: c.args });
    }
    if (text || calls.length) {
      if (whole) this.wholeAt(tMs);
      else this.tokenAt(tMs);
    }
    if (typeof fr === "string" && fr) {
      this.#rawFinish = fr;
      this.#finished = true;
      this.finishReason = neutralFinish(fr, this.calls.length > 0);
    }
    return true;
  }

  #badPart(problem: string): false {
    this.bad("bad_part", problem);
    return false;
  }
}
