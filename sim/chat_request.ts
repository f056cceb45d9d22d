/**
 * The simulator's neutral request: what every dialect's request body is read into (sim/dialects/), so that the
 * responder finds the same workload case by its prompt hash whatever the dialect.
 *
 * @module
 */

/** One request message reduced to what the simulator needs. */
export interface SimMessage {
  role: "system" | "developer" | "user" | "assistant" | "tool";
  /** Text content (parts joined; "" when absent). */
  content: string;
  /** Tool calls of an assistant message, as `name(arguments)` text. */
  toolCallText: string;
}

/** A validated request, normalised. */
export interface ParsedChat {
  model: string;
  messages: SimMessage[];
  /** The client's output cap, or null when it sent none. */
  maxTokens: number | null;
  stream: boolean;
  /** Usage asked for in a stream (OpenAI `stream_options.include_usage`; dialects that always send usage: true). */
  includeUsage: boolean;
  /** The service tier the request pins; absent or null: none, or the provider's choice (`auto`). */
  serviceTier?: string | null;
}
