/**
 * The judge's prompt: a system message with the rubric — its instructions, every criterion with its id, description
 * and scale, the pass and fail examples — and the output contract; a user message that is the JSON document
 * `{"conversation": <the case's original messages>, "answer": "<saved text>"}` (schema/judge_call.ts).
 *
 * @module
 */
import { judgeDocumentText, rubricLine } from "../../schema/judge_call.ts";
import type { Criterion, Rubric } from "../../schema/rubric.ts";
import type { ChatMessage } from "../../schema/workload.ts";

/** A criterion's scale in words, as the judge reads it. */
function scaleText(c: Criterion): string {
  const s = c.scale;
  return s.kind === "pass_fail"
    ? "0 (fail) or 1 (pass)"
    : `a whole number from ${s.min} to ${s.max}; ${s.pass_at} or more passes`;
}

/**
 * The system message of a judge call for `rubric`.
 *
 * @example Every criterion is named with its scale, and the reply's form closes the message
 * ```ts
 * import { judgeSystemPrompt } from "./prompt.ts";
 * import assert from "node:assert/strict";
 * const rubric = {
 *   rubric_id: "r", version: "1.0.0", sha256: "0".repeat(64), instructions: "Judge against the document.",
 *   applies_to: { classes: ["c"], cases: [] },
 *   criteria: [{ id: "faithful", description: "Nothing invented.", scale: { kind: "pass_fail" as const } }],
 *   examples: { pass: [{ answer: "A.", why: "faithful 1" }], fail: [{ answer: "B.", why: "faithful 0" }] },
 * };
 * const text = judgeSystemPrompt(rubric);
 * assert.ok(text.includes("- faithful: Nothing invented. Scale: 0 (fail) or 1 (pass)."));
 * assert.ok(text.endsWith('{"scores": {"faithful": <integer>}, "rationale": "<one or two sentences>"}'));
 * ```
 */
export function judgeSystemPrompt(rubric: Rubric): string {
  const example = (
    kind: string,
    e: { answer: string; why: string },
  ) => [`Example of an answer that ${kind}:`, `Answer: ${e.answer}`, `Scores and why: ${e.why}`, ""];
  const form = rubric.criteria.map((c) => `${JSON.stringify(c.id)}: <integer>`).join(", ");
  return [
    "You are a grader. Score one answer against the rubric below, criterion by criterion, and reply with one JSON " +
    "object and nothing else.",
    "",
    rubricLine(rubric),
    "",
    "Instructions:",
    rubric.instructions,
    "",
    "Criteria (score every one):",
    ...rubric.criteria.map((c) => `- ${c.id}: ${c.description} Scale: ${scaleText(c)}.`),
    "",
    ...rubric.examples.pass.flatMap((e) => example("passes", e)),
    ...rubric.examples.fail.flatMap((e) => example("fails", e)),
    'The user message is a JSON document: "conversation" holds the messages the answer replied to, "answer" the ' +
    "answer to score.",
    "",
    "Reply with exactly one JSON object of this form:",
    `{"scores": {${form}}, "rationale": "<one or two sentences>"}`,
  ].join("\n");
}

/**
 * The messages of one judge call: the rubric's system message, then the JSON document of `conversation` (the case's
 * original messages from the workload, not those a run sent) and `answer`.
 */
export function judgeMessages(
  rubric: Rubric,
  conversation: readonly ChatMessage[],
  answer: string,
): { role: "system" | "user"; content: string }[] {
  return [
    { role: "system", content: judgeSystemPrompt(rubric) },
    { role: "user", content: judgeDocumentText(conversation, answer) },
  ];
}
