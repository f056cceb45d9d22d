import { getEncoding, type Tiktoken } from "js-tiktoken";
import type { ChatMessage } from "../../../../schema/workload.ts";

let encoder: Tiktoken | undefined;

/** o200k_base token count of `text` (the encoder is loaded once, on first use). */
export function countTokens(text: string): number {
  encoder ??= getEncoding("o200k_base");
  return encoder.encode(text).length;
}

/** Sum of the o200k_base counts of every message content: no chat-template overhead. */
export function countMessageTokens(messages: readonly ChatMessage[]): number {
  return messages.reduce((sum, m) => sum + countTokens(m.content), 0);
}
