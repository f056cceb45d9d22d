/**
 * Replays an Anthropic Messages fixture through the runner's answer parser: an SSE transcript is decoded by the
 * runner's own `SseDecoder` (fed in 13-byte pieces, so events and UTF-8 characters split across reads) and event `i`
 * is fed at `1000 + 10·i²` ms (as the attempt feeds them: `event` absent when the line was), so gaps between events differ and ITL has something to measure.
 *
 * @module
 */
import { SseDecoder } from "../../../runner/http/sse.ts";
import { anthropicMessagesDialect } from "../../../runner/dialects/anthropic_messages.ts";
import type { AnswerParser, StreamEvent, WireMessage } from "../../../runner/dialects/dialect.ts";
import type { WorkloadCase } from "../../../schema/mod.ts";
import { tinyCase } from "../../../testing/tiny_workload.ts";

/** The folder of the dialect's fixtures. */
export const FIXTURES = new URL("../../fixtures/dialects/anthropic-messages/", import.meta.url);

/** The time event `i` of a replay arrives at. */
export const at = (i: number): number => 1000 + 10 * i * i;

/** The events of an SSE text, as the runner decodes them. */
export function sseEvents(text: string): StreamEvent[] {
  const bytes = new TextEncoder().encode(text);
  const dec = new SseDecoder();
  // The decoder's events as the attempt hands them over: `event` left out when the stream had no `event:` line.
  const out: StreamEvent[] = [];
  for (let o = 0; o < bytes.length; o += 13) {
    out.push(...dec.push(bytes.subarray(o, o + 13)) as StreamEvent[]);
  }
  out.push(...dec.end().events as StreamEvent[]);
  return out;
}

/** A fresh parser fed every event of an SSE text, event `i` at {@linkcode at}(i). */
export function replayText(text: string): AnswerParser {
  const a = anthropicMessagesDialect.newAnswer();
  sseEvents(text).forEach((ev, i) => a.feedEvent(ev, at(i)));
  return a;
}

/** A fresh parser fed the fixture `name` (an `.sse` transcript, or a whole body read at 5000 ms). */
export function replay(name: string): AnswerParser {
  const text = Deno.readTextFileSync(new URL(name, FIXTURES));
  if (name.endsWith(".sse")) return replayText(text);
  const a = anthropicMessagesDialect.newAnswer();
  a.feedBody(text, 5000);
  return a;
}

/** A two-round tool case: system prompt, the model's call, the tool's result. */
export function toolConversation(): { c: WorkloadCase; messages: WireMessage[] } {
  const c = tinyCase({
    messages: [{ role: "system", content: "Answer from the tools." }, { role: "user", content: "Order A1?" }],
    tools: [{
      name: "get_order",
      description: "Look an order up",
      parameters: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
    }],
    expected_output_schema: { type: "object", properties: { status: { type: "string" } }, additionalProperties: false },
  });
  const messages: WireMessage[] = [
    ...c.messages as WireMessage[],
    {
      role: "assistant",
      content: "Looking it up.",
      tool_calls: [
        { id: "toolu_1", type: "function", function: { name: "get_order", arguments: '{"id":"A1"}' } },
        { id: "toolu_2", type: "function", function: { name: "get_order", arguments: '{"id":"A2"}' } },
      ],
    },
    { role: "tool", tool_call_id: "toolu_1", content: "shipped" },
    { role: "tool", tool_call_id: "toolu_2", content: "pending" },
  ];
  return { c, messages };
}
