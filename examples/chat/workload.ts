/**
 * The chat app's questions as a workload (`data/workloads/chat-example/`, contract: schema/workload.ts), built by the
 * app's own code so that a load test sends exactly what the app sends: one case per question the driver types, its
 * class by {@linkcode questionClass}, its messages by {@linkcode chatMessages} from the passages the app's retrieval
 * finds ({@linkcode search}) and, for an `order`, the status its order tool answers ({@linkcode orderStatus}), its cap
 * the app's {@linkcode ANSWER_MAX_TOKENS}. The app's retrieval is the case's frozen retrieval step (the runner waits
 * its latency, the app's stand-in delay); the order tool, a step the app runs before the model call, has no field in
 * the workload (a workload's tools are the model's tool calls), so a load test does not wait for it.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { countMessageTokens, countTokens } from "../../data/workloads/design-v1/recipe/tokens.ts";
import type { ClassDefaultsFile, Workload, WorkloadCase } from "../../schema/workload.ts";
import { promptSha256 } from "../../schema/workload_file.ts";
import { orderNumber, orderStatus } from "./orders.ts";
import {
  ANSWER_MAX_TOKENS,
  CHAT_WORKLOAD_NAME,
  type ChatClass,
  chatMessages,
  CLASSES,
  questionClass,
  QUESTIONS,
} from "./prompt.ts";
import { PASSAGES, RETRIEVAL_MS, search } from "./retrieval.ts";

/** A class's latency limits, as the SLO policy states them (data/slo/chat-example.json). */
export interface ClassLimits {
  e2e_ms: number;
  ttft_ms: number;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** The answer the simulator gives when it is right: the order's status for an `order`, else the best passage. */
export function referenceAnswer(question: string): string {
  const order = orderNumber(question);
  return order ? `Your ${orderStatus(order)}.` : search(question)[0]!;
}

/** One case: the question as the app would send it. `n` numbers the cases of a class from 1. */
function chatCase(question: string, cls: ChatClass, n: number): WorkloadCase {
  const passages = search(question);
  const order = orderNumber(question);
  const facts = order ? [orderStatus(order)] : [];
  const messages = chatMessages(question, passages, facts);
  const reference = referenceAnswer(question);
  return {
    case_id: `${cls}-${String(n).padStart(2, "0")}`,
    class: cls,
    // The app begins every task with the recorder's default priority, 0.
    priority: 0,
    messages,
    input_tokens: countMessageTokens(messages),
    prompt_sha256: promptSha256(messages),
    max_output_tokens: ANSWER_MAX_TOKENS,
    expected_output_tokens: countTokens(reference),
    reference_output: reference,
    expected_output_schema: null,
    safety_case: false,
    canary: null,
    tool_calls_expected: [],
    tools: [],
    tool_responses: [],
    permitted_tools: [],
    retrieval: {
      latency_ms: RETRIEVAL_MS,
      documents: passages.map((p) => ({
        doc_id: `passage-${String(PASSAGES.indexOf(p) + 1).padStart(2, "0")}`,
        sha256: sha256(p),
      })),
    },
    quality_check: {
      kind: "contains",
      values: [order ? orderStatus(order) : reference],
      all: true,
      case_insensitive: true,
    },
    input_size: "typical",
    output_size: "typical",
  };
}

/**
 * The workload and its class defaults. `limits`: each class's e2e and TTFT limits (the SLO policy's), copied into the
 * class defaults; each class's TPOT target is the longest mean gap that still lets a capped answer meet both,
 * (e2e − TTFT) / {@linkcode ANSWER_MAX_TOKENS}.
 *
 * @example Nine cases, the order questions with their order's status in the prompt
 * ```ts
 * import { chatWorkload } from "./workload.ts";
 * import assert from "node:assert/strict";
 * const limits = { question: { e2e_ms: 3000, ttft_ms: 1000 }, order: { e2e_ms: 4000, ttft_ms: 1500 } };
 * const { workload, classDefaults } = chatWorkload(limits);
 * assert.equal(workload.cases.length, 9);
 * const order = workload.cases.find((c) => c.class === "order")!;
 * assert.match(order.messages[0]!.content, /order \d+ is /);
 * assert.equal(classDefaults.classes.question!.tpot_ms, 31.25); // (3000 − 1000) / 64
 * ```
 */
export function chatWorkload(
  limits: Record<ChatClass, ClassLimits>,
): { workload: Workload; classDefaults: ClassDefaultsFile } {
  const seen: Record<string, number> = {};
  const cases = QUESTIONS.map((q) => {
    const cls = questionClass(q);
    seen[cls] = (seen[cls] ?? 0) + 1;
    return chatCase(q, cls, seen[cls]);
  });
  const described: Record<ChatClass, string> = {
    question: "A help-desk question answered from two retrieved passages.",
    order: "A question naming an order number: answered from two retrieved passages and the order tool's status.",
  };
  const classes = Object.fromEntries(CLASSES.map((cls) => {
    const { e2e_ms, ttft_ms } = limits[cls];
    const defaults = {
      description: described[cls],
      deadline_ms: e2e_ms,
      ttft_ms,
      tpot_ms: (e2e_ms - ttft_ms) / ANSWER_MAX_TOKENS,
      stream: true,
      priority: 0,
    };
    return [cls, defaults];
  }));
  return {
    workload: {
      workload: CHAT_WORKLOAD_NAME,
      version: "1.0.0",
      kind: "design",
      description: "The example chat app's nine help-desk questions (examples/chat), each as the app sends it to the " +
        "model: a system message with the two passages its retrieval finds (and, for a question naming an order, the " +
        "order tool's status), then the question. Built by examples/chat/workload.ts from the app's own code.",
      does_not_represent: [
        "production traffic: the questions are the example driver's nine, written for the example",
        "the app's own steps outside the model call: its queue, the order tool (run by the app before the model call; " +
        "a workload's tools are the model's tool calls) and the page (the click, the network between page and app, " +
        "the rendering)",
        "live retrieval: the retrieved passages are frozen in the messages and the step is the app's stand-in delay",
        "real answers: a correct answer is the best passage, or the order's status",
        "chat-template tokens: input_tokens counts message contents only",
      ],
      tokenizer: "o200k_base",
      cases,
    },
    classDefaults: { workload: CHAT_WORKLOAD_NAME, classes },
  };
}
