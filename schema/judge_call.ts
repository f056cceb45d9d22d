/**
 * The model judge's call, as a contract between the judge (runner/judge/) and any chat endpoint that plays one (the
 * simulator's judge mode, sim/judge.ts): the user message is a JSON document holding the conversation an answer
 * replied to and the answer; the system message carries the rubric, named by its sha256; the reply is one JSON object
 * of per-criterion scores and a rationale.
 *
 * @module
 */
import { z } from "zod";
import { ChatMessage } from "./workload.ts";

/** The user message of a judge call: the case's original messages and the saved answer text. */
export const JudgeDocument = z.object({
  conversation: z.array(ChatMessage).min(1),
  answer: z.string(),
}).strict();
export type JudgeDocument = z.infer<typeof JudgeDocument>;

/**
 * The judge's reply: integer scores by criterion id and its reasons. Keys other than these two are ignored; whether
 * the scores name every criterion on its scale is the rubric's to say (schema/rubric.ts `rubricVerdict`).
 */
export const JudgeReply = z.object({
  scores: z.record(z.string(), z.number().int()),
  rationale: z.string(),
});
export type JudgeReply = z.infer<typeof JudgeReply>;

/**
 * The user message text of a judge call: `{"conversation": [...], "answer": "..."}`, each message as a plain
 * `{role, content}` in that key order, so that `promptSha256(conversation)` (schema/workload_file.ts) is the case's
 * prompt hash.
 *
 * @example The document parses back to what went in
 * ```ts
 * import { JudgeDocument, judgeDocumentText } from "./judge_call.ts";
 * import assert from "node:assert/strict";
 * const text = judgeDocumentText([{ role: "user", content: "Sum up." }], "It went well.");
 * assert.equal(text, '{"conversation":[{"role":"user","content":"Sum up."}],"answer":"It went well."}');
 * assert.deepEqual(JudgeDocument.parse(JSON.parse(text)).answer, "It went well.");
 * ```
 */
export function judgeDocumentText(conversation: readonly ChatMessage[], answer: string): string {
  return JSON.stringify({ conversation: conversation.map((m) => ({ role: m.role, content: m.content })), answer });
}

/**
 * The line of a judge's system message that names the rubric it scores by: its id, version and sha256. An endpoint
 * that plays the judge checks the hash is there before it answers as one.
 *
 * @example
 * ```ts
 * import { rubricLine } from "./judge_call.ts";
 * import assert from "node:assert/strict";
 * const line = rubricLine({ rubric_id: "rag-answer", version: "1.0.0", sha256: "ab".repeat(32) });
 * assert.equal(line, `Rubric: rag-answer, version 1.0.0 (sha256 ${"ab".repeat(32)})`);
 * ```
 */
export function rubricLine(rubric: { rubric_id: string; version: string; sha256: string }): string {
  return `Rubric: ${rubric.rubric_id}, version ${rubric.version} (sha256 ${rubric.sha256})`;
}
