/**
 * What the chat app sends the model, in one place: the questions its driver types, a question's class, and the
 * messages built from the question and the notes the app looked up. The server (server.ts) builds every model call
 * with {@linkcode chatMessages}, and the load-test workload of the same questions (workload.ts,
 * `data/workloads/chat-example/`) is built by the same functions, so a load test sends byte for byte the prompts the
 * app sends.
 *
 * @module
 */
import { orderNumber } from "./orders.ts";

/** What the driver types: help-desk questions, a third of them about an order (class `order`, the tool step). */
export const QUESTIONS: readonly string[] = [
  "How long does delivery take?",
  "Can I return an unused item?",
  "When will my refund arrive?",
  "Does the warranty cover a broken screen?",
  "When is support open?",
  "Where is my order 48213?",
  "Has order 50177 shipped yet?",
  "What is the status of order #61420?",
  "Can I pay by invoice?",
];

/** The task classes: a question naming an order number is an `order` (it needs the order tool). */
export const CLASSES = ["question", "order"] as const;
export type ChatClass = typeof CLASSES[number];

/** The workload's name: the recorder's `workload.name` in the app, and the load-test workload's (workload.ts). */
export const CHAT_WORKLOAD_NAME = "chat-example";

/** The answer's token cap: every model call's `max_tokens`. */
export const ANSWER_MAX_TOKENS = 64;

/** A question's class: `order` when it names an order number, else `question`. */
export function questionClass(question: string): ChatClass {
  return orderNumber(question) ? "order" : "question";
}

/**
 * The messages of the model call: a system message holding the notes (the retrieved passages, then the tool's
 * facts), then the user's question.
 *
 * @example
 * ```ts
 * import { chatMessages } from "./prompt.ts";
 * import assert from "node:assert/strict";
 * const m = chatMessages("Where is my order 1234?", ["Orders ship fast."], ["order 1234 is packed"]);
 * assert.equal(m[0]!.content, "Answer from these notes only:\nOrders ship fast.\norder 1234 is packed");
 * assert.deepEqual(m[1], { role: "user", content: "Where is my order 1234?" });
 * ```
 */
export function chatMessages(
  question: string,
  passages: readonly string[],
  facts: readonly string[],
): { role: "system" | "user"; content: string }[] {
  return [
    { role: "system", content: `Answer from these notes only:\n${[...passages, ...facts].join("\n")}` },
    { role: "user", content: question },
  ];
}
