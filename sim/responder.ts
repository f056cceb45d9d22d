import { createHash } from "node:crypto";
import type { SimBehaviourRates, SimProfile, Workload } from "../schema/mod.ts";
import { CaseOutputs, type PlannedOutput } from "./case_outputs.ts";
import type { SimMessage } from "./chat_request.ts";
import { fillerPieces } from "./filler.ts";
import type { SimTokenizer } from "./tokenizer.ts";

/** Uniform draws in [0, 1) taken for one request at arrival. */
export interface Draws {
  /** Right vs wrong (accuracy, refusal_rate or tool_accuracy). */
  accuracy: number;
  /** Valid vs broken JSON. */
  validity: number;
  /** Which wrong answer. */
  variant: number;
}

/** What the simulated model decided to say. */
export type Verdict =
  | "correct"
  | "wrong"
  | "refusal"
  | "leak"
  | "tool_ok"
  | "tool_forbidden"
  | "unknown_prompt"
  /** A judge request's verdict (sim/judge.ts). */
  | "judge_pass"
  | "judge_fail";

/** The answer to one request, before the output cap is applied. */
export interface Answer {
  caseId: string | null;
  round: number;
  output: PlannedOutput;
  finishReason: "stop" | "tool_calls";
  verdict: Verdict;
  /** The answer is JSON cut before its closing brace. */
  brokenJson: boolean;
  promptTokens: number;
  /** Prompt tokens served from the prefix cache (later tool rounds). */
  cachedTokens: number;
  /** Hidden reasoning tokens decoded before the answer; null when the profile is not a reasoning model (not reported). */
  reasoningTokens: number | null;
}

export interface RespondOptions {
  /** The request's output cap (the unknown-prompt answer is min(cap, 64) tokens). */
  maxTokens: number;
  /** The queue is past the degraded threshold. */
  degraded: boolean;
  prefixCaching: boolean;
}

/** Tokens of the answer to a prompt the workload does not hold. */
const UNKNOWN_ANSWER_TOKENS = 64;

/**
 * The prompt hash that identifies a case: sha256 of `JSON.stringify` of the
 * messages before the first assistant message, each as `{role, content}`.
 *
 * @example
 * ```ts
 * import { promptSha256 } from "./responder.ts";
 * import assert from "node:assert/strict";
 * const h = promptSha256([{ role: "user", content: "hi" }, { role: "assistant", content: "x" }]);
 * assert.equal(h, promptSha256([{ role: "user", content: "hi" }]));
 * ```
 */
export function promptSha256(messages: readonly { role: string; content: string }[]): string {
  const end = messages.findIndex((m) => m.role === "assistant");
  const initial = (end < 0 ? messages : messages.slice(0, end)).map((m) => ({ role: m.role, content: m.content }));
  return createHash("sha256").update(JSON.stringify(initial)).digest("hex");
}

/**
 * Answers requests from a workload: identifies the case by its prompt hash,
 * the round by the tool results present, and draws right or wrong answers
 * at the profile's per-class rates.
 */
export class Responder {
  readonly #byPrompt = new Map<string, CaseOutputs>();
  readonly #behaviour: SimProfile["behaviour"];
  readonly #tok: SimTokenizer;
  readonly #filler = new Map<number, PlannedOutput>();
  /** Some class reasons: every answer reports its reasoning tokens. */
  readonly #reasoningModel: boolean;

  constructor(workload: Workload | undefined, behaviour: SimProfile["behaviour"], tok: SimTokenizer) {
    this.#behaviour = behaviour;
    this.#reasoningModel = [behaviour.default, ...Object.values(behaviour.classes)].some((r) =>
      (r.reasoning_tokens ?? 0) > 0
    );
    this.#tok = tok;
    const cases = workload?.cases ?? [];
    for (const c of cases) {
      const outs = new CaseOutputs(c, cases.filter((s) => s.class === c.class && s !== c), tok);
      // Tokenize the right answers now so requests only look them up.
      outs.correct();
      c.tool_calls_expected.forEach((_, r) => outs.toolCall(r, true, 0));
      this.#byPrompt.set(c.prompt_sha256, outs);
    }
  }

  /** Number of cases known. */
  get size(): number {
    return this.#byPrompt.size;
  }

  /** The effective rates of a class, before degradation. */
  rates(className: string): SimBehaviourRates {
    return { ...this.#behaviour.default, ...this.#behaviour.classes[className] };
  }

  /**
   * The texts of a request whose tokens its answer needs, one per message, in order: for a known case the messages
   * from its first assistant message on (the case's own prompt is counted in the workload), for an unknown prompt
   * every message. {@linkcode respond} takes their counts.
   */
  countedTexts(messages: readonly SimMessage[]): string[] {
    const known = this.#byPrompt.has(promptSha256(messages));
    const firstAssistant = messages.findIndex((m) => m.role === "assistant");
    const counted = !known ? messages : firstAssistant < 0 ? [] : messages.slice(firstAssistant);
    return counted.map((m) => m.content + m.toolCallText);
  }

  /**
   * Decides the answer to one request. `tokens`: the token counts of {@linkcode countedTexts} (counted here, on
   * the caller's thread, when absent).
   */
  respond(messages: readonly SimMessage[], draws: Draws, options: RespondOptions, tokens?: readonly number[]): Answer {
    const counts = tokens ?? this.countedTexts(messages).map((t) => this.#tok.count(t));
    const sum = (ns: readonly number[]) => ns.reduce((s, n) => s + n, 0);
    const outs = this.#byPrompt.get(promptSha256(messages));
    if (!outs) return this.#unknown(sum(counts), options.maxTokens);
    const c = outs.case;
    const firstAssistant = messages.findIndex((m) => m.role === "assistant");
    const later = firstAssistant < 0 ? [] : messages.slice(firstAssistant);
    const lastAssistant = later.findLastIndex((m) => m.role === "assistant");
    const promptTokens = c.input_tokens + sum(counts);
    const round = messages.filter((m) => m.role === "tool").length;
    const cachedTokens = options.prefixCaching && lastAssistant >= 0
      ? c.input_tokens + sum(counts.slice(0, lastAssistant + 1))
      : 0;
    const rates = this.rates(c.class);
    const reasoningTokens = this.#reasoningModel ? rates.reasoning_tokens : null;
    const base = { caseId: c.case_id, round, promptTokens, cachedTokens, reasoningTokens, brokenJson: false };

    const deg = this.#behaviour.degraded;
    const factor = options.degraded && deg.enabled ? deg.accuracy_factor : 1;
    if (round < c.tool_calls_expected.length) {
      const ok = draws.accuracy < rates.tool_accuracy * factor;
      return {
        ...base,
        output: outs.toolCall(round, ok, draws.variant),
        finishReason: "tool_calls",
        verdict: ok ? "tool_ok" : "tool_forbidden",
      };
    }
    if (outs.kind === "safety") {
      const refuse = draws.accuracy < rates.refusal_rate;
      return {
        ...base,
        output: refuse ? outs.correct() : outs.wrong(draws.variant),
        finishReason: "stop",
        verdict: refuse ? "refusal" : "leak",
      };
    }
    const right = draws.accuracy < rates.accuracy * factor;
    let output = right ? outs.correct() : outs.wrong(draws.variant);
    const broken = outs.kind === "json" && draws.validity >= rates.json_validity;
    if (broken) output = outs.broken(output);
    return { ...base, output, finishReason: "stop", verdict: right ? "correct" : "wrong", brokenJson: broken };
  }

  #unknown(promptTokens: number, maxTokens: number): Answer {
    const n = Math.min(maxTokens, UNKNOWN_ANSWER_TOKENS);
    let output = this.#filler.get(n);
    if (!output) this.#filler.set(n, output = { kind: "text", pieces: fillerPieces(n, this.#tok) });
    return {
      caseId: null,
      round: 0,
      output,
      finishReason: "stop",
      verdict: "unknown_prompt",
      brokenJson: false,
      promptTokens,
      cachedTokens: 0,
      reasoningTokens: this.#reasoningModel ? this.#behaviour.default.reasoning_tokens : null,
    };
  }
}
