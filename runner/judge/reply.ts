/**
 * The judge's reply is untrusted text: it becomes a verdict only when it is one JSON object of the contract
 * (schema/judge_call.ts `JudgeReply`) whose scores name every criterion of the rubric once, on its scale
 * (schema/rubric.ts `rubricVerdict`). Anything else is a failed call, retried within the budget — never a crash.
 *
 * @module
 */
import { JudgeReply } from "../../schema/judge_call.ts";
import { type Rubric, rubricVerdict } from "../../schema/rubric.ts";

/** The longest rationale kept in a verdict row (characters); a longer one is cut and marked with `…`. */
export const MAX_RATIONALE_CHARS = 2000;

/** A reply that is a verdict. */
export interface ReplyVerdict {
  ok: true;
  /** Criterion id → score, in the rubric's criterion order. */
  scores: Record<string, number>;
  /** The rubric's verdict on the scores. */
  pass: boolean;
  /** The judge's reasons, at most {@linkcode MAX_RATIONALE_CHARS} characters. */
  rationale: string;
}

/** A reply that is not: why, in one line, and its kind. */
export interface ReplyProblem {
  ok: false;
  /** `reply_not_json` (not one JSON object) or `reply_off_contract` (wrong fields, criteria or scale). */
  kind: "reply_not_json" | "reply_off_contract";
  problem: string;
}

/**
 * Reads a judge's reply text against `rubric`.
 *
 * @example A verdict, a score off its scale, and prose
 * ```ts
 * import { readJudgeReply } from "./reply.ts";
 * import assert from "node:assert/strict";
 * const rubric = { criteria: [
 *   { id: "grounded", description: "d", scale: { kind: "pass_fail" as const } },
 *   { id: "coverage", description: "d", scale: { kind: "points" as const, min: 1, max: 5, pass_at: 4 } },
 * ] };
 * const ok = readJudgeReply('{"scores": {"coverage": 4, "grounded": 1}, "rationale": "Fine."}', rubric);
 * assert.deepEqual(ok, { ok: true, scores: { grounded: 1, coverage: 4 }, pass: true, rationale: "Fine." });
 * const off = readJudgeReply('{"scores": {"grounded": 1, "coverage": 7}, "rationale": ""}', rubric);
 * assert.equal(off.ok === false && off.kind, "reply_off_contract");
 * assert.equal(readJudgeReply("I think it passes.", rubric).ok, false);
 * ```
 */
export function readJudgeReply(text: string, rubric: Pick<Rubric, "criteria">): ReplyVerdict | ReplyProblem {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, kind: "reply_not_json", problem: `not JSON: ${(e as Error).message} (${preview(text)})` };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { ok: false, kind: "reply_not_json", problem: `not one JSON object (${preview(text)})` };
  }
  const parsed = JudgeReply.safeParse(value);
  if (!parsed.success) {
    const first = parsed.error.issues[0]!;
    return {
      ok: false,
      kind: "reply_off_contract",
      problem: `${first.path.map(String).join(".") || "(root)"}: ${first.message}`,
    };
  }
  const verdict = rubricVerdict(rubric, parsed.data.scores);
  if (verdict.pass === null) return { ok: false, kind: "reply_off_contract", problem: verdict.problems.join("; ") };
  const scores = Object.fromEntries(rubric.criteria.map((c) => [c.id, parsed.data.scores[c.id]!]));
  const r = parsed.data.rationale;
  const rationale = r.length > MAX_RATIONALE_CHARS ? `${r.slice(0, MAX_RATIONALE_CHARS - 1)}…` : r;
  return { ok: true, scores, pass: verdict.pass, rationale };
}

function preview(text: string): string {
  const t = text.trim();
  return t.length > 60 ? `${JSON.stringify(t.slice(0, 60))}…` : JSON.stringify(t);
}
