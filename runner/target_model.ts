/**
 * The model a run names in its requests when no conditions file states one: the first model the target lists at
 * `GET <base>/v1/models` (OpenAI's list: `{"data": [{"id": …}, …]}`), asked once before ms 0 with the route's own
 * headers. Servers that serve one model (llama.cpp's `llama-server`, vLLM, SGLang, TGI) list it first; a server that
 * checks the field refuses the `"unstated"` a run would otherwise send. When the list cannot be had, the model stays
 * `"unstated"` and the note says why.
 *
 * @module
 */
import { isObject } from "./dialects/openai_chat_shape.ts";
import { redactUrl, scrubUrl } from "./target_url.ts";

/** Longest model id taken from a list (a longer one is not a model name but something else). */
const MAX_ID_CHARS = 256;

/** What the lookup found: the model id (null: none) and the note run.json keeps beside it. */
export interface TargetModel {
  model: string | null;
  note: string;
}

/**
 * The models URL beside a chat completions URL: `…/chat/completions` → `…/models`, query kept.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { modelsUrl } from "./target_model.ts";
 * assert.equal(modelsUrl(new URL("http://127.0.0.1:8080/v1/chat/completions")).href, "http://127.0.0.1:8080/v1/models");
 * ```
 */
export function modelsUrl(chat: URL): URL {
  const u = new URL(chat);
  u.pathname = u.pathname.replace(/\/chat\/completions$/, "") + "/models";
  return u;
}

/**
 * The first model id of a models list body, or why there is none.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { firstModelId } from "./target_model.ts";
 * assert.deepEqual(firstModelId({ data: [{ id: "tiny.gguf" }, { id: "other" }] }), { id: "tiny.gguf" });
 * assert.deepEqual(firstModelId({ data: [] }), { why: "the list is empty" });
 * ```
 */
export function firstModelId(body: unknown): { id: string } | { why: string } {
  if (!isObject(body) || !Array.isArray(body.data)) return { why: "not an OpenAI model list (no `data` array)" };
  const first = body.data[0];
  if (first === undefined) return { why: "the list is empty" };
  if (!isObject(first) || typeof first.id !== "string") return { why: "its first entry has no string `id`" };
  const id = first.id;
  const control = [...id].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f);
  if (id.length === 0 || id.length > MAX_ID_CHARS || control) {
    return { why: `its first id is not a model name (empty, over ${MAX_ID_CHARS} characters or control characters)` };
  }
  return { id };
}

/**
 * Asks `GET <models URL>` once within `timeoutMs` and returns the first model id with a note; never throws (a target
 * without the list keeps the run going with `"unstated"`).
 */
export async function targetModel(
  chat: URL,
  headers: Record<string, string>,
  options: { timeoutMs?: number } = {},
): Promise<TargetModel> {
  const { timeoutMs = 5000 } = options;
  const url = modelsUrl(chat);
  const where = `GET ${redactUrl(url)}`;
  let why: string;
  try {
    const auth: Record<string, string> = {};
    if (headers.authorization !== undefined) auth.authorization = headers.authorization;
    const res = await fetch(url, { headers: auth, redirect: "manual", signal: AbortSignal.timeout(timeoutMs) });
    const text = await res.text();
    if (res.status !== 200) why = `HTTP ${res.status}`;
    else {
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      const found = body === undefined ? { why: "not JSON" } : firstModelId(body);
      if ("id" in found) {
        return {
          model: found.id,
          note: `no conditions file stated the model: the first id ${where} listed before the run`,
        };
      }
      why = found.why;
    }
  } catch (e) {
    why = (e as Error).name === "TimeoutError" ? `no answer in ${timeoutMs} ms` : scrubUrl((e as Error).message, url);
  }
  return { model: null, note: `no conditions file stated the model and ${where} gave none (${why}): sent "unstated"` };
}
