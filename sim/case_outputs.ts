import type { WorkloadCase } from "../schema/mod.ts";
import { answerPasses } from "./answer_check.ts";
import { padPieces } from "./filler.ts";
import type { SimTokenizer } from "./tokenizer.ts";

/** A text answer, one piece per output token. */
export interface TextOutput {
  kind: "text";
  pieces: readonly string[];
}

/** One tool call; `pieces` are the name's tokens followed by the arguments' tokens. */
export interface ToolCallOutput {
  kind: "tool_call";
  name: string;
  arguments: string;
  nameTokens: number;
  pieces: readonly string[];
}

export type PlannedOutput = TextOutput | ToolCallOutput;

/** How a case is answered: its final answer's family. */
export type CaseKind = "prose" | "json" | "safety";

/**
 * Every answer the simulator can give to one case, tokenized once and kept:
 * the right one, plausible wrong ones, broken JSON, refusals and leaks, and
 * each expected tool call made right or wrong.
 */
export class CaseOutputs {
  readonly case: WorkloadCase;
  readonly kind: CaseKind;
  readonly #siblings: readonly WorkloadCase[];
  readonly #tok: SimTokenizer;
  readonly #memo = new Map<string, PlannedOutput>();
  readonly #broken = new WeakMap<TextOutput, TextOutput>();

  /** `siblings`: the other cases of the same class (sources of wrong answers). */
  constructor(c: WorkloadCase, siblings: readonly WorkloadCase[], tok: SimTokenizer) {
    this.case = c;
    this.#siblings = siblings;
    this.#tok = tok;
    this.kind = c.safety_case
      ? "safety"
      : c.expected_output_schema !== null || c.quality_check.kind === "json_fields"
      ? "json"
      : "prose";
  }

  /** The reference answer (for safety cases: the refusal or hand-off), padded where that keeps it right. */
  correct(): TextOutput {
    return this.#text("correct", () => this.#prose(this.case.reference_output));
  }

  /**
   * A wrong answer: another case's reference (u picks which), or for safety
   * cases a compliant answer that leaks the canary.
   */
  wrong(u: number): TextOutput {
    const c = this.case;
    if (this.kind === "safety") {
      const leak = c.canary === null
        ? "Sure, here is what you asked for."
        : `Sure, here is what you asked for: ${c.canary}.`;
      return this.#text("leak", () => padPieces(leak, c.expected_output_tokens, this.#tok));
    }
    const pool = this.#siblings.filter((s) =>
      s.reference_output !== c.reference_output && answerPasses(c.quality_check, s.reference_output) !== true
    );
    const other = pool[Math.min(pool.length - 1, Math.floor(u * pool.length))];
    if (!other) {
      const text = this.kind === "json" ? '{"error": "could not extract the fields"}' : "I could not determine that.";
      return this.#text("wrong:none", () => this.kind === "json" ? this.#tok.pieces(text) : this.#prose(text));
    }
    return this.#text(
      `wrong:${other.case_id}`,
      () => this.kind === "json" ? this.#tok.pieces(other.reference_output) : this.#prose(other.reference_output),
    );
  }

  /** `output` with its JSON cut before the last closing brace (invalid JSON). */
  broken(output: TextOutput): TextOutput {
    let out = this.#broken.get(output);
    if (!out) {
      const text = output.pieces.join("");
      const cut = text.lastIndexOf("}");
      const pieces = this.#tok.pieces(cut > 0 ? text.slice(0, cut) : text.slice(0, Math.floor(text.length / 2)));
      this.#broken.set(output, out = { kind: "text", pieces });
    }
    return out;
  }

  /**
   * Expected tool call `round`, made as permitted (`ok`) or not: a tool the
   * case may not call (u < 0.5) or a permitted tool with a refused argument.
   */
  toolCall(round: number, ok: boolean, u: number): ToolCallOutput {
    const expected = this.case.tool_calls_expected[round];
    if (!expected) throw new RangeError(`case ${this.case.case_id} has no tool call ${round}`);
    if (ok) return this.#call(`call:${round}`, expected.name, expected.arguments);
    if (u < 0.5) return this.#call(`call:${round}:tool`, this.#forbiddenTool(), expected.arguments);
    return this.#call(`call:${round}:arg`, expected.name, this.#forbiddenArguments(expected.name, expected.arguments));
  }

  #prose(text: string): string[] {
    const c = this.case;
    const own = this.#tok.pieces(text);
    if (c.quality_check.kind === "exact" || own.length >= c.expected_output_tokens) return own;
    const padded = padPieces(text, c.expected_output_tokens, this.#tok);
    // Padding must not turn a passing answer into a failing one (e.g. an anchored regex).
    const before = answerPasses(c.quality_check, text);
    return before === true && answerPasses(c.quality_check, padded.join("")) === false ? own : padded;
  }

  #text(key: string, make: () => string[]): TextOutput {
    let out = this.#memo.get(key);
    if (!out) this.#memo.set(key, out = { kind: "text", pieces: make() });
    return out as TextOutput;
  }

  #call(key: string, name: string, args: Record<string, unknown>): ToolCallOutput {
    let out = this.#memo.get(key);
    if (!out) {
      const argText = JSON.stringify(args);
      const nameP = this.#tok.pieces(name);
      out = {
        kind: "tool_call",
        name,
        arguments: argText,
        nameTokens: nameP.length,
        pieces: [...nameP, ...this.#tok.pieces(argText)],
      };
      this.#memo.set(key, out);
    }
    return out as ToolCallOutput;
  }

  #forbiddenTool(): string {
    const permitted = new Set(this.case.permitted_tools.map((p) => p.name));
    return this.case.tools.map((t) => t.name).find((n) => !permitted.has(n)) ?? "admin_override";
  }

  #forbiddenArguments(tool: string, args: Record<string, unknown>): Record<string, unknown> {
    const allowed = this.case.permitted_tools.find((p) => p.name === tool)?.allowed_arguments ?? {};
    const key = Object.keys(args).find((k) => k in allowed);
    // Arguments not listed in the permission are refused, so an extra one is always forbidden.
    if (key === undefined) return { ...args, scope: "all_records" };
    const values = allowed[key] ?? [];
    const cur = args[key];
    let bad: unknown;
    if (typeof cur === "number") bad = Math.max(cur, ...values.filter((v) => typeof v === "number")) + 1000;
    else if (typeof cur === "boolean" && !values.includes(!cur)) bad = !cur;
    else bad = `${String(cur)}-unauthorized`;
    return { ...args, [key]: bad };
  }
}
