/**
 * The runner's inline checks, one per gate (`output_valid`, `schema_ok`,
 * `quality_ok`, `safety_ok`, `auth_ok`), each behind the {@linkcode Check}
 * interface. A gate is null when it does not apply: never silently true.
 *
 * @example Judge a finished request
 * ```ts
 * import { evaluateChecks, failureDetail } from "./mod.ts";
 * import assert from "node:assert/strict";
 * const c = {
 *   case_id: "faq-2", expected_output_schema: null, safety_case: false, canary: null, tools: [], permitted_tools: [],
 *   quality_check: { kind: "regex", pattern: "\\b7 days\\b", flags: "i" },
 * };
 * const r = evaluateChecks({ case: c, text: "Within 7 days.", finish_reason: "length", tool_calls: [], max_tokens: 4, output_tokens: 4 } as never);
 * assert.equal(r.quality_ok.value, true);
 * assert.equal(failureDetail(r), "output_valid: cut at output cap (4 tokens)");
 * ```
 * @module
 */
export * from "./check.ts";
export * from "./evaluate_checks.ts";
export * from "./output_valid.ts";
export * from "./schema_ok.ts";
export * from "./quality_ok.ts";
export * from "./safety_ok.ts";
export * from "./auth_ok.ts";
