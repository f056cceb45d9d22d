import type { QualityCheck, WorkloadCase } from "../../schema/workload.ts";
import type { Check, CheckInput, CheckResult } from "./check.ts";
import { isJsonObject, jsonEqual, parseJsonText, showJson } from "./_json.ts";

type Of<K extends QualityCheck["kind"]> = Extract<QualityCheck, { kind: K }>;

/** Trim, collapse runs of whitespace to one space, lower-case. */
function normalize(s: string): string {
  return s.trim().replace(/\s+/g, " ").toLowerCase();
}

function fail(detail: string): CheckResult {
  return { value: false, detail };
}

const PASS = (): CheckResult => ({ value: true, detail: null });

function exact(q: Of<"exact">, text: string): CheckResult {
  const same = q.normalize ? normalize(text) === normalize(q.value) : text === q.value;
  return same ? PASS() : fail(`expected ${showJson(q.value)}, got ${showJson(text)}`);
}

function contains(q: Of<"contains">, text: string): CheckResult {
  const hay = q.case_insensitive ? text.toLowerCase() : text;
  const found = (v: string) => hay.includes(q.case_insensitive ? v.toLowerCase() : v);
  if (q.all) {
    const missing = q.values.filter((v) => !found(v));
    return missing.length ? fail(`missing: ${missing.join(", ")}`) : PASS();
  }
  return q.values.some(found) ? PASS() : fail(`none of: ${q.values.join(", ")}`);
}

const regexes = new Map<string, RegExp>();

function regexFor(q: Of<"regex">): RegExp {
  const key = `${q.flags}/${q.pattern}`;
  let re = regexes.get(key);
  if (!re) {
    re = new RegExp(q.pattern, q.flags);
    regexes.set(key, re);
  }
  return re;
}

function regex(q: Of<"regex">, text: string): CheckResult {
  // `search` ignores lastIndex, so a cached /g regex stays stateless.
  return text.search(regexFor(q)) !== -1 ? PASS() : fail(`no match for /${q.pattern}/${q.flags}`);
}

/** Follows a dotted path (`a.b.0.c`: array steps are indexes); undefined when absent. */
function at(value: unknown, path: string): unknown {
  let cur = value;
  for (const step of path.split(".")) {
    if (Array.isArray(cur) && /^\d+$/.test(step)) cur = cur[Number(step)];
    else if (isJsonObject(cur) && Object.hasOwn(cur, step)) cur = cur[step];
    else return undefined;
  }
  return cur;
}

function jsonFields(q: Of<"json_fields">, text: string): CheckResult {
  const parsed = parseJsonText(text);
  if (!parsed.ok) return fail(`not JSON: ${parsed.error}`);
  const wrong: string[] = [];
  for (const [path, expected] of Object.entries(q.fields)) {
    const got = at(parsed.value, path);
    if (!jsonEqual(got, expected)) wrong.push(`field ${path}: expected ${showJson(expected)}, got ${showJson(got)}`);
  }
  return wrong.length ? fail(wrong.join("; ")) : PASS();
}

function toolSequence(q: Of<"tool_sequence">, input: CheckInput): CheckResult {
  const names = input.tool_calls.map((c) => c.name);
  const same = names.length === q.tools.length && names.every((n, i) => n === q.tools[i]);
  return same ? PASS() : fail(`tools: expected [${q.tools.join(",")}] got [${names.join(",")}]`);
}

/**
 * `quality_ok`: the case's `quality_check` holds for the final answer.
 *
 * - `exact`: equal after trimming, collapsing whitespace and lower-casing
 *   (when `normalize`, the default), else byte-equal.
 * - `contains`: every value (`all`) or any one appears, optionally ignoring case.
 * - `regex`: the pattern with its flags matches somewhere (compiled once).
 * - `json_fields`: each dotted path into the JSON output (`a.b`, `items.0.id`)
 *   deep-equals its expected value; unparseable output fails.
 * - `tool_sequence`: the names of the tool calls made, in order, equal the list.
 * - `not_applicable`: not evaluated (null), and the gate does not apply to the case.
 *
 * Evaluated for every other kind; the detail says what failed.
 *
 * @example A missing term is named
 * ```ts
 * import { qualityOk } from "./quality_ok.ts";
 * import assert from "node:assert/strict";
 * const quality_check = { kind: "contains", values: ["refund", "7 days"], all: true, case_insensitive: true };
 * const r = qualityOk.evaluate({ case: { quality_check }, text: "A REFUND is possible.", tool_calls: [] } as never);
 * assert.deepEqual(r, { value: false, detail: "missing: 7 days" });
 * ```
 */
export const qualityOk: Check = {
  gate: "quality_ok",
  // A case whose quality_check is `not_applicable` has no answer to judge: the gate does not apply to it.
  applies: (c) => c.quality_check.kind !== "not_applicable",
  evaluate(input: CheckInput): CheckResult {
    const q = input.case.quality_check;
    switch (q.kind) {
      case "exact":
        return exact(q, input.text);
      case "contains":
        return contains(q, input.text);
      case "regex":
        return regex(q, input.text);
      case "json_fields":
        return jsonFields(q, input.text);
      case "tool_sequence":
        return toolSequence(q, input);
      case "not_applicable":
        return { value: null, detail: null };
    }
  },
  prepare(cases: readonly WorkloadCase[]): string[] {
    const problems: string[] = [];
    for (const c of cases) {
      const q = c.quality_check;
      if (q.kind !== "regex") continue;
      try {
        regexFor(q);
      } catch (e) {
        // Converted into a problem line so every bad pattern is reported at once.
        problems.push(`case ${c.case_id}: quality_check.pattern: ${(e as Error).message}`);
      }
    }
    return problems;
  },
};
