/**
 * The dialects' room: every provider dialect by name (runner/dialects/dialect.ts says what one is).
 *
 * @module
 */
import { InputError } from "../../schema/errors.ts";
import { DEFAULT_DIALECT, type Dialect, DIALECT_NAMES, type DialectName } from "./dialect.ts";
import { anthropicMessagesDialect } from "./anthropic_messages.ts";
import { bedrockConverseDialect } from "./bedrock_converse.ts";
import { geminiDialect } from "./gemini.ts";
import { azureOpenaiDialect, openaiChatDialect } from "./openai_chat.ts";
import { openaiResponsesDialect } from "./openai_responses.ts";

export * from "./dialect.ts";
export { DEFAULT_DIALECT, DIALECT_NAMES };

const DIALECTS: Partial<Record<DialectName, Dialect>> = {
  "openai-chat": openaiChatDialect,
  "azure-openai": azureOpenaiDialect,
  "anthropic-messages": anthropicMessagesDialect,
  gemini: geminiDialect,
  "bedrock-converse": bedrockConverseDialect,
  "openai-responses": openaiResponsesDialect,
};

/** The dialect of that name; an {@linkcode InputError} naming `where` and the known names otherwise. */
export function dialectNamed(name: string | undefined, where: string): Dialect {
  const d = DIALECTS[(name ?? DEFAULT_DIALECT) as DialectName];
  if (d) return d;
  const known = Object.keys(DIALECTS).join(", ");
  throw new InputError(`${where}: unknown dialect ${JSON.stringify(name)}; one of ${known}`);
}

/** The names of the dialects this build speaks. */
export function dialectNames(): string[] {
  return Object.keys(DIALECTS);
}
