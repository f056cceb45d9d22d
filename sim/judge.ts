/**
 * The simulator's judge mode (profile `judge`, schema/sim_profile.ts `SimJudgeMode`): a judge whose error rates
 * against the truth are known, so that tests can check the calibration arithmetic. A chat request is a judge's when
 * its last user message is the JSON document `{conversation, answer}` (schema/judge_call.ts) of a workload case that
 * has a rubric, and its system message names that rubric's sha256. The truth is the case's own deterministic check on
 * the answer (sim/answer_check.ts; the simulator's wrong answers fail it). The verdict is pass with probability
 * `sensitivity` when the answer truly passes, fail with probability `specificity` when it truly fails, drawn from the
 * seed and the request's content, so a rerun gets the same verdict. The scores agree with the verdict (pass: every
 * criterion at or above its pass mark; fail: at least one below) and are served through the engine like any answer,
 * with real token counts.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { mulberry32 } from "../lib/prng.ts";
import { JudgeDocument } from "../schema/judge_call.ts";
import type { Criterion, Rubric } from "../schema/rubric.ts";
import type { SimJudgeMode } from "../schema/sim_profile.ts";
import type { Workload, WorkloadCase } from "../schema/workload.ts";
import { promptSha256 } from "../schema/workload_file.ts";
import { answerPasses } from "./answer_check.ts";
import type { SimMessage } from "./chat_request.ts";
import type { Answer } from "./responder.ts";
import type { SimTokenizer } from "./tokenizer.ts";

/** The judge's decision on one request. */
export interface SimJudgeVerdict {
  caseId: string;
  /** The case's check on the answer: the truth the error rates are against. */
  truth: boolean;
  /** The verdict given. */
  pass: boolean;
  scores: Record<string, number>;
  rationale: string;
  /** The reply: `{"scores": {...}, "rationale": "..."}`. */
  text: string;
}

/** A uniform [0, 1) draw and a 32-bit seed from the sha256 of `text`. */
function drawsOf(text: string): { u: number; seed: number } {
  const h = createHash("sha256").update(text).digest();
  // 48 bits for the verdict's draw (exact in a double), the next 32 for the scores' generator.
  const u = (h.readUIntBE(0, 6)) / 2 ** 48;
  return { u, seed: h.readUInt32BE(6) };
}

/** A whole number from `lo` to `hi` (inclusive). */
const between = (r: () => number, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));

function passing(c: Criterion, r: () => number): number {
  return c.scale.kind === "pass_fail" ? 1 : between(r, c.scale.pass_at, c.scale.max);
}
function failing(c: Criterion, r: () => number): number {
  return c.scale.kind === "pass_fail" ? 0 : between(r, c.scale.min, c.scale.pass_at - 1);
}
function anywhere(c: Criterion, r: () => number): number {
  return c.scale.kind === "pass_fail" ? between(r, 0, 1) : between(r, c.scale.min, c.scale.max);
}
function passes(c: Criterion, s: number): boolean {
  return c.scale.kind === "pass_fail" ? s === 1 : s >= c.scale.pass_at;
}

/**
 * Scores that agree with `pass`: every criterion at or above its pass mark, or one criterion (drawn) below it and the
 * others anywhere on their scales.
 *
 * @example A fail always has a criterion below its mark
 * ```ts
 * import { verdictScores } from "./judge.ts";
 * import { mulberry32 } from "../lib/prng.ts";
 * import assert from "node:assert/strict";
 * const criteria = [
 *   { id: "faithful", description: "d", scale: { kind: "pass_fail" as const } },
 *   { id: "coverage", description: "d", scale: { kind: "points" as const, min: 1, max: 5, pass_at: 4 } },
 * ];
 * const fail = verdictScores(criteria, false, mulberry32(3));
 * assert.ok(fail.faithful === 0 || fail.coverage! < 4);
 * const pass = verdictScores(criteria, true, mulberry32(3));
 * assert.ok(pass.faithful === 1 && pass.coverage! >= 4);
 * ```
 */
export function verdictScores(
  criteria: readonly Criterion[],
  pass: boolean,
  r: () => number,
): Record<string, number> {
  const low = pass ? -1 : Math.floor(r() * criteria.length);
  return Object.fromEntries(
    criteria.map((c, i) => [c.id, pass ? passing(c, r) : i === low ? failing(c, r) : anywhere(c, r)]),
  );
}

/** Answers judge requests for a workload's cases that have rubrics. */
export class SimJudge {
  readonly #mode: SimJudgeMode;
  readonly #byPrompt: Map<string, WorkloadCase>;
  readonly #rubrics: ReadonlyMap<string, Rubric>;
  readonly #tok: SimTokenizer;

  /** `rubrics`: the rubric of each case that has one (schema/workload_file.ts `LoadedRubrics.byCaseId`). */
  constructor(mode: SimJudgeMode, workload: Workload, rubrics: ReadonlyMap<string, Rubric>, tok: SimTokenizer) {
    this.#mode = mode;
    this.#byPrompt = new Map(workload.cases.map((c) => [c.prompt_sha256, c]));
    this.#rubrics = rubrics;
    this.#tok = tok;
  }

  /** Cases it can judge (those with a rubric). */
  get size(): number {
    return this.#rubrics.size;
  }

  /** The verdict on a request, or null when it is not a judge request this simulator can answer. */
  verdict(messages: readonly SimMessage[]): SimJudgeVerdict | null {
    const user = messages.findLast((m) => m.role === "user");
    if (!user || !user.content.startsWith("{")) return null;
    let value: unknown;
    try {
      value = JSON.parse(user.content);
    } catch {
      return null;
    }
    const doc = JudgeDocument.safeParse(value);
    if (!doc.success) return null;
    const c = this.#byPrompt.get(promptSha256(doc.data.conversation));
    const rubric = c && this.#rubrics.get(c.case_id);
    const system = messages.filter((m) => m.role === "system" || m.role === "developer").map((m) => m.content)
      .join("\n");
    if (!c || !rubric || !system.includes(rubric.sha256)) return null;
    const truth = answerPasses(c.quality_check, doc.data.answer);
    if (truth === null) return null;
    const { u, seed } = drawsOf(`${this.#mode.seed}\n${system}\n${user.content}`);
    const pass = truth ? u < this.#mode.sensitivity : u >= this.#mode.specificity;
    const scores = verdictScores(rubric.criteria, pass, mulberry32(seed));
    const short = rubric.criteria.filter((k) => !passes(k, scores[k.id]!));
    const rationale = pass
      ? `Every criterion passes: ${rubric.criteria.map((k) => `${k.id} ${scores[k.id]}`).join(", ")}.`
      : `Falls short on ${short.map((k) => `${k.id} (${scores[k.id]})`).join(" and ")}.`;
    return { caseId: c.case_id, truth, pass, scores, rationale, text: JSON.stringify({ scores, rationale }) };
  }

  /**
   * The answer to serve for a judge request (null when it is not one): the verdict's JSON, tokenized, with
   * `promptTokens` (every message of the request, counted by the simulator's tokenizer) as its prompt.
   */
  answer(messages: readonly SimMessage[], promptTokens: number): Answer | null {
    const v = this.verdict(messages);
    if (!v) return null;
    return {
      caseId: v.caseId,
      round: 0,
      output: { kind: "text", pieces: this.#tok.pieces(v.text) },
      finishReason: "stop",
      verdict: v.pass ? "judge_pass" : "judge_fail",
      brokenJson: false,
      promptTokens,
      cachedTokens: 0,
      reasoningTokens: null,
    };
  }
}
