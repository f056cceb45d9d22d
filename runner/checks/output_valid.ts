import type { Check, CheckInput, CheckResult } from "./check.ts";
import { parseJsonText } from "./_json.ts";

/**
 * `output_valid`: the final answer is complete, non-empty and parseable.
 *
 * - complete: the last round finished with `stop`. `length`, or as many
 *   output tokens as the cap allowed, means it was cut at the output cap;
 *   `tool_calls` on the last round means the model still wanted tools.
 * - non-empty: some non-whitespace text.
 * - parseable: when the case has an `expected_output_schema`, the raw text
 *   must be JSON. Strict on purpose: a Markdown code fence or prose around
 *   the object fails, because a program consuming the answer would fail too.
 *
 * Never null: every finished response is judged.
 *
 * @example A response cut at its cap is not valid
 * ```ts
 * import { outputValid } from "./output_valid.ts";
 * import assert from "node:assert/strict";
 * const input = { text: "The answer is", finish_reason: "length", max_tokens: 64, output_tokens: 64 };
 * const r = outputValid.evaluate({ ...input, case: { expected_output_schema: null } } as never);
 * assert.deepEqual(r, { value: false, detail: "cut at output cap (64 tokens)" });
 * ```
 */
export const outputValid: Check = {
  gate: "output_valid",
  applies: () => true,
  evaluate(input: CheckInput): CheckResult {
    const { finish_reason: finish, max_tokens: cap } = input;
    if (finish === "length" || input.output_tokens >= cap) {
      return { value: false, detail: `cut at output cap (${cap} tokens)` };
    }
    if (finish !== "stop") {
      return {
        value: false,
        detail: finish === null ? "incomplete: no finish_reason" : `incomplete: finish_reason ${finish}`,
      };
    }
    if (input.text.trim() === "") return { value: false, detail: "empty output" };
    if (input.case.expected_output_schema !== null) {
      const parsed = parseJsonText(input.text);
      if (!parsed.ok) return { value: false, detail: `not JSON: ${parsed.error}` };
    }
    return { value: true, detail: null };
  },
};
