import type AjvModule from "ajv";
import type { ValidateFunction } from "ajv";
import { createRequire } from "node:module";
import type { WorkloadCase } from "../../schema/workload.ts";
import type { Check, CheckInput, CheckResult } from "./check.ts";
import { parseJsonText } from "./_json.ts";

// Ajv is loaded by the first schema compiled (a workload with `expected_output_schema`, before ms 0), not by every
// run: importing it cost every run's start-up ~0.05 s of CPU.
const require = createRequire(import.meta.url);

/** Most schema errors named in a detail. */
const MAX_ERRORS = 3;

/**
 * One Ajv for the run. JSON Schema draft-07 (Ajv's default); `format` is not
 * validated (ajv-formats is not a dependency) and unknown keywords are
 * ignored rather than refused, since workloads come from many authors.
 */
type AjvClass = typeof AjvModule.default;
let ajv: InstanceType<AjvClass> | null = null;
function theAjv(): InstanceType<AjvClass> {
  if (ajv === null) {
    // ajv is CommonJS: its class is the module's `default` (and the module itself).
    const m = require("ajv") as AjvClass & { default?: AjvClass };
    const Ajv = m.default ?? m;
    ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
  }
  return ajv;
}

interface Compiled {
  schema: WorkloadCase["expected_output_schema"];
  validate: ValidateFunction;
}

// Compiled validators by case_id; the schema object guards against two workloads sharing a case_id.
const cache = new Map<string, Compiled>();

function validatorFor(c: WorkloadCase, schema: NonNullable<WorkloadCase["expected_output_schema"]>): ValidateFunction {
  const hit = cache.get(c.case_id);
  if (hit && hit.schema === schema) return hit.validate;
  const validate = theAjv().compile(schema);
  cache.set(c.case_id, { schema, validate });
  return validate;
}

/**
 * `schema_ok`: the output, parsed strictly as JSON, satisfies the case's
 * `expected_output_schema` (validated with Ajv, each schema compiled once).
 * Null when the case has no schema; unparseable output fails. The detail
 * lists the first errors as `instancePath message`.
 *
 * @example A missing required field fails with its path
 * ```ts
 * import { schemaOk } from "./schema_ok.ts";
 * import assert from "node:assert/strict";
 * const schema = { type: "object", required: ["total"], properties: { total: { type: "number" } } };
 * const input = { case: { case_id: "doc-1", expected_output_schema: schema }, text: '{"total":"3"}' };
 * const r = schemaOk.evaluate(input as never);
 * assert.deepEqual(r, { value: false, detail: "/total must be number" });
 * ```
 */
export const schemaOk: Check = {
  gate: "schema_ok",
  applies: (c) => c.expected_output_schema !== null,
  evaluate(input: CheckInput): CheckResult {
    const schema = input.case.expected_output_schema;
    if (schema === null) return { value: null, detail: null };
    const parsed = parseJsonText(input.text);
    if (!parsed.ok) return { value: false, detail: `not JSON: ${parsed.error}` };
    const validate = validatorFor(input.case, schema);
    if (validate(parsed.value)) return { value: true, detail: null };
    const errors = validate.errors ?? [];
    const shown = errors.slice(0, MAX_ERRORS).map((e) => `${e.instancePath || "(root)"} ${e.message ?? e.keyword}`);
    if (errors.length > MAX_ERRORS) shown.push(`and ${errors.length - MAX_ERRORS} more`);
    return { value: false, detail: shown.join("; ") };
  },
  prepare(cases: readonly WorkloadCase[]): string[] {
    const problems: string[] = [];
    for (const c of cases) {
      if (c.expected_output_schema === null) continue;
      try {
        validatorFor(c, c.expected_output_schema);
      } catch (e) {
        // Converted into a problem line so every bad schema is reported at once.
        problems.push(`case ${c.case_id}: expected_output_schema: ${(e as Error).message}`);
      }
    }
    return problems;
  },
};
