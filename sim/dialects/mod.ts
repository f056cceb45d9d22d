/**
 * The simulator's dialects: every provider wire format it answers, each one
 * file behind {@linkcode SimDialect}, and the lookup that picks the dialect of
 * a request from its method and URL.
 *
 * @example The dialect of a request
 * ```ts
 * import { matchDialect } from "./mod.ts";
 * import assert from "node:assert/strict";
 * const url = new URL("http://127.0.0.1:8787/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21");
 * const m = matchDialect("POST", url);
 * assert.equal(m?.dialect.name, "azure_openai");
 * assert.equal(m?.match.model, "gpt-4o");
 * assert.equal(matchDialect("GET", new URL("http://127.0.0.1:8787/v1/chat/completions")), null);
 * ```
 * @module
 */
import { anthropicMessagesSimDialect } from "./anthropic_messages.ts";
import { AZURE_OPENAI } from "./azure_openai.ts";
import { bedrockConverseSimDialect } from "./bedrock_converse.ts";
import type { SimDialect, SimMatch } from "./dialect.ts";
import { geminiSimDialect } from "./gemini.ts";
import { OPENAI_CHAT } from "./openai_chat.ts";
import { openaiResponsesSimDialect } from "./openai_responses.ts";

export type * from "./dialect.ts";
export { AZURE_OPENAI } from "./azure_openai.ts";
export { OPENAI_CHAT } from "./openai_chat.ts";

/** Every dialect the simulator answers, in the order their paths are tried. */
export const SIM_DIALECTS: readonly SimDialect[] = [
  OPENAI_CHAT,
  AZURE_OPENAI,
  openaiResponsesSimDialect,
  anthropicMessagesSimDialect,
  geminiSimDialect,
  bedrockConverseSimDialect,
];

/** The first of `dialects` that answers `method` on `url`, with its match; null when none does. */
export function matchDialect(
  method: string,
  url: URL,
  dialects: readonly SimDialect[] = SIM_DIALECTS,
): { dialect: SimDialect; match: SimMatch } | null {
  for (const dialect of dialects) {
    const match = dialect.match(method, url);
    if (match) return { dialect, match };
  }
  return null;
}
