/**
 * The shape of what a target sends, checked where it enters: every field of a
 * streamed chunk or a whole `chat.completion` body that the runner reads has
 * its type checked before anything of it is applied. A field of the wrong type
 * makes that attempt `invalid_response` with the error kind named here, never
 * an exception later in the request's flow or at finalisation.
 *
 * Error kinds (an absent field or `null` is always allowed):
 * - `bad_choices`: `choices` is not an array, or `choices[0]` is not an object.
 * - `multiple_choices`: more than one choice in `choices`, or a choice whose `index` is not 0 — an answer
 *   with several choices (`n` > 1, which the runner never asks for). Never joined to the first choice's text
 *   nor taken by its position in the array: the attempt is refused.
 * - `bad_delta`: a chunk's `choices[0].delta` is not an object.
 * - `bad_message`: a body's `choices[0].message` is not an object.
 * - `bad_role`: `role` is not a string.
 * - `bad_content`: `content` is not a string.
 * - `bad_finish_reason`: `finish_reason` is not a string.
 * - `bad_tool_call`: `tool_calls` is not an array, an entry is not an object, or its `id`,
 *   `function`, `function.name` or `function.arguments` is not of its type (strings, an object).
 * - `bad_tool_call_index`: a streamed entry's `index` is not an integer from 0 to the number
 *   of calls seen so far (a new call takes the next index; none is skipped).
 *
 * @module
 */

/** One tool-call entry, checked. */
export interface ToolCallDelta {
  index?: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}
/** The fields of a streamed chunk that the runner reads, checked. */
export interface Chunk {
  usage?: unknown;
  choices?: { delta?: Delta; finish_reason?: string | null }[];
}
interface Delta {
  role?: string;
  content?: string;
  tool_calls?: ToolCallDelta[];
}
/** `choices[0]` of a whole body, checked. */
export interface BodyChoice {
  message: { content?: string; tool_calls?: ToolCallDelta[] };
  finish_reason?: string | null;
}

/** A checked value, or the error kind and a short description of what was wrong. */
export type Checked<T> = { ok: true; value: T } | { ok: false; kind: string; problem: string };

/** True for a plain JSON object (not null, not an array). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

const fail = (kind: string, problem: string): { ok: false; kind: string; problem: string } => ({
  ok: false,
  kind,
  problem: problem.slice(0, 160),
});
const show = (v: unknown) => JSON.stringify(v)?.slice(0, 60) ?? String(v);
const optString = (v: unknown) => v == null || typeof v === "string";

/**
 * Checks a parsed chunk. `callsSoFar` is the number of tool calls already
 * seen in this stream: an entry's `index` may continue one of them or start
 * the next, never skip ahead.
 */
export function checkChunk(chunk: Record<string, unknown>, callsSoFar: number): Checked<Chunk> {
  const choices = chunk.choices;
  if (choices == null) return { ok: true, value: chunk as Chunk };
  if (!Array.isArray(choices)) return fail("bad_choices", `choices is ${show(choices)}, not an array`);
  if (choices.length === 0) return { ok: true, value: chunk as Chunk };
  const choice = choices[0];
  if (!isObject(choice)) return fail("bad_choices", `choices[0] is ${show(choice)}, not an object`);
  const several = severalChoices(choices);
  if (several) return several;
  if (!optString(choice.finish_reason)) {
    return fail("bad_finish_reason", `finish_reason is ${show(choice.finish_reason)}, not a string`);
  }
  const delta = choice.delta;
  if (delta != null) {
    if (!isObject(delta)) return fail("bad_delta", `delta is ${show(delta)}, not an object`);
    const fields = checkMessageFields(delta);
    if (fields) return fields;
    if (delta.tool_calls != null) {
      let next = callsSoFar;
      for (const tc of delta.tool_calls as Record<string, unknown>[]) {
        const i = tc.index;
        if (i === undefined) {
          next++;
          continue;
        }
        if (typeof i !== "number" || !Number.isInteger(i) || i < 0 || i > next) {
          return fail("bad_tool_call_index", `tool call index ${show(i)} with ${next} calls so far`);
        }
        if (i === next) next++;
      }
    }
  }
  return { ok: true, value: chunk as Chunk };
}

/** Checks `choices[0]` of a whole body (the caller has seen that it exists and has a `message`). */
export function checkBody(body: Record<string, unknown>): Checked<BodyChoice> {
  const choice = (body.choices as unknown[])[0] as Record<string, unknown>;
  const several = severalChoices(body.choices as unknown[]);
  if (several) return several;
  if (!optString(choice.finish_reason)) {
    return fail("bad_finish_reason", `finish_reason is ${show(choice.finish_reason)}, not a string`);
  }
  const message = choice.message;
  if (!isObject(message)) return fail("bad_message", `message is ${show(message)}, not an object`);
  const fields = checkMessageFields(message);
  if (fields) return fields;
  return { ok: true, value: choice as unknown as BodyChoice };
}

/** `multiple_choices` when `choices` holds more than one entry or its one entry's `index` is set and not 0. */
function severalChoices(choices: readonly unknown[]): { ok: false; kind: string; problem: string } | null {
  if (choices.length > 1) return fail("multiple_choices", `${choices.length} choices; only one (index 0) is asked for`);
  const index = (choices[0] as Record<string, unknown>).index;
  if (index == null || index === 0) return null;
  return fail("multiple_choices", `choice index ${show(index)}; only one (index 0) is asked for`);
}

/** The fields a delta and a message share: role, content, tool_calls (entries without their index). */
function checkMessageFields(m: Record<string, unknown>): { ok: false; kind: string; problem: string } | null {
  if (!optString(m.role)) return fail("bad_role", `role is ${show(m.role)}, not a string`);
  if (!optString(m.content)) return fail("bad_content", `content is ${show(m.content)}, not a string`);
  const calls = m.tool_calls;
  if (calls == null) return null;
  if (!Array.isArray(calls)) return fail("bad_tool_call", `tool_calls is ${show(calls)}, not an array`);
  for (const tc of calls) {
    if (!isObject(tc)) return fail("bad_tool_call", `a tool call is ${show(tc)}, not an object`);
    if (!optString(tc.id)) return fail("bad_tool_call", `tool call id is ${show(tc.id)}, not a string`);
    const f = tc.function;
    if (f == null) continue;
    if (!isObject(f)) return fail("bad_tool_call", `tool call function is ${show(f)}, not an object`);
    if (!optString(f.name) || !optString(f.arguments)) {
      return fail("bad_tool_call", `tool call function name or arguments not a string: ${show(f)}`);
    }
  }
  return null;
}
