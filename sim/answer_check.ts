import type { QualityCheck } from "../schema/mod.ts";

/**
 * Whether `text` would pass a case's quality check, for the kinds the
 * simulator can judge alone (null for `tool_sequence` and `not_applicable`). The simulator uses it
 * so that padding keeps a right answer right and a "wrong" answer is wrong.
 *
 * @example A contains-check on padded text
 * ```ts
 * import { answerPasses } from "./answer_check.ts";
 * import assert from "node:assert/strict";
 * const check = { kind: "contains" as const, values: ["Paris"], all: true, case_insensitive: true };
 * assert.equal(answerPasses(check, "It is paris. More text."), true);
 * assert.equal(answerPasses(check, "It is Rome."), false);
 * ```
 */
export function answerPasses(check: QualityCheck, text: string): boolean | null {
  switch (check.kind) {
    case "exact":
      return check.normalize ? norm(text) === norm(check.value) : text === check.value;
    case "contains": {
      const hay = check.case_insensitive ? text.toLowerCase() : text;
      const hit = (v: string) => hay.includes(check.case_insensitive ? v.toLowerCase() : v);
      return check.all ? check.values.every(hit) : check.values.some(hit);
    }
    case "regex":
      try {
        return new RegExp(check.pattern, check.flags).test(text);
      } catch {
        return null; // a bad pattern is the checker's problem to report, not the simulator's
      }
    case "json_fields": {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        return false;
      }
      return Object.entries(check.fields).every(([path, want]) => deepEqual(pick(value, path), want));
    }
    case "tool_sequence":
    case "not_applicable":
      return null;
  }
}

const norm = (s: string) => s.trim().replace(/\s+/g, " ").toLowerCase();

function pick(value: unknown, path: string): unknown {
  let cur = value;
  for (const key of path.split(".")) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a), kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}
