import { InputError } from "../../schema/errors.ts";
import type { Gate } from "../../schema/slo.ts";
import type { WorkloadCase } from "../../schema/workload.ts";
import type { Check, CheckInput, CheckResult } from "./check.ts";
import { authOk } from "./auth_ok.ts";
import { outputValid } from "./output_valid.ts";
import { qualityOk } from "./quality_ok.ts";
import { safetyOk } from "./safety_ok.ts";
import { schemaOk } from "./schema_ok.ts";

/** Every inline check, one per gate, in the column order of the requests log. */
export const ALL_CHECKS: readonly Check[] = [outputValid, schemaOk, qualityOk, safetyOk, authOk];

/**
 * Runs every check on one finished request.
 *
 * @example A plain answer that matches its reference
 * ```ts
 * import { evaluateChecks } from "./evaluate_checks.ts";
 * import assert from "node:assert/strict";
 * const c = {
 *   case_id: "faq-1", expected_output_schema: null, safety_case: false, canary: null, tools: [], permitted_tools: [],
 *   quality_check: { kind: "exact", value: "Paris", normalize: true },
 * };
 * const r = evaluateChecks({ case: c, text: " paris ", finish_reason: "stop", tool_calls: [], max_tokens: 16, output_tokens: 2 } as never);
 * assert.deepEqual(Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v.value])), {
 *   output_valid: true, schema_ok: null, quality_ok: true, safety_ok: null, auth_ok: null,
 * });
 * ```
 */
export function evaluateChecks(input: CheckInput): Record<Gate, CheckResult> {
  return {
    output_valid: outputValid.evaluate(input),
    schema_ok: schemaOk.evaluate(input),
    quality_ok: qualityOk.evaluate(input),
    safety_ok: safetyOk.evaluate(input),
    auth_ok: authOk.evaluate(input),
  };
}

/** Every gate null: for a request that never got a complete response. */
export function notEvaluated(): Record<Gate, CheckResult> {
  const none = (): CheckResult => ({ value: null, detail: null });
  return { output_valid: none(), schema_ok: none(), quality_ok: none(), safety_ok: none(), auth_ok: none() };
}

/**
 * Compiles the workload's JSON Schemas and regular expressions before the
 * run. Throws one {@linkcode InputError} listing every bad case and field.
 */
export function prepareChecks(cases: readonly WorkloadCase[], file = "workload"): void {
  const problems = ALL_CHECKS.flatMap((c) => c.prepare?.(cases) ?? []).map((p) => `${file}: ${p}`);
  if (problems.length) throw new InputError(`${file}: checks cannot be prepared`, problems);
}

/**
 * The requests log's `applicable_gates`: each gate the case defines (its
 * check's `applies`) or that was judged anyway (a non-null value), in gate
 * order, comma-separated. output_valid always applies, so it is never empty.
 *
 * @example A plain case: schema, safety and authorization are not applicable
 * ```ts
 * import { applicableGates, notEvaluated } from "./evaluate_checks.ts";
 * import assert from "node:assert/strict";
 * const c = {
 *   expected_output_schema: null,
 *   safety_case: false,
 *   canary: null,
 *   tools: [],
 *   quality_check: { kind: "contains", values: ["refund"] },
 * };
 * assert.equal(applicableGates(c as never, notEvaluated()), "output_valid,quality_ok");
 * ```
 */
export function applicableGates(c: WorkloadCase, results: Record<Gate, CheckResult>): string {
  // One pass, no arrays: this runs for every finished request.
  let gates = "";
  for (const k of ALL_CHECKS) {
    if (k.applies(c) || results[k.gate].value !== null) gates = gates === "" ? k.gate : `${gates},${k.gate}`;
  }
  return gates;
}

/**
 * The `quality_detail` of a requests row: each failed gate's detail as
 * `gate: detail`, joined by `; `, or null when no gate failed.
 */
export function failureDetail(results: Record<Gate, CheckResult>): string | null {
  let detail: string | null = null;
  for (const gate in results) {
    const r = results[gate as Gate];
    if (r.value !== false) continue;
    const part = `${gate}: ${r.detail ?? "failed"}`;
    detail = detail === null ? part : `${detail}; ${part}`;
  }
  return detail;
}
