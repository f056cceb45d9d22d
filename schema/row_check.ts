/**
 * A fast check of a row against one of the contract's row schemas (schema/events.ts), compiled once from the zod
 * schema itself: it says yes only where zod's `safeParse` would succeed, and allocates nothing. The recorder checks
 * each task's rows before it writes them, on the app's thread; zod's own parse allocates some 12 KB a task there
 * (docs/recorder.md "Cost"). A schema with a zod feature the compiler does not know is refused when it is compiled (an
 * `Error` naming the column), so a column of a new kind is never checked more loosely than zod checks it.
 *
 * @module
 */
import type { z } from "zod";

/** What zod keeps of a schema (zod 4's `_zod.def`): the parts the compiler reads. */
interface Def {
  type: string;
  checks?: { _zod: { def: CheckDef } }[];
  innerType?: { _zod: { def: Def } };
  entries?: Record<string, string | number>;
  shape?: Record<string, { _zod: { def: Def } }>;
  catchall?: { _zod: { def: Def } };
}

interface CheckDef {
  check: string;
  format?: string;
  value?: number;
  inclusive?: boolean;
  minimum?: number;
  maximum?: number;
}

type Check = (v: unknown) => boolean;

/** The check of one number bound (zod 4 `greater_than` / `less_than`, inclusive or not). */
function bound(c: CheckDef, where: string): (x: number) => boolean {
  const v = c.value;
  if (typeof v !== "number") throw new Error(`${where}: a ${c.check} check without a number`);
  if (c.check === "greater_than") return c.inclusive ? (x) => x >= v : (x) => x > v;
  return c.inclusive ? (x) => x <= v : (x) => x < v;
}

/** One column's check; throws on a kind or check the compiler does not know. */
function compileColumn(def: Def, where: string): Check {
  const checks = (def.checks ?? []).map((c) => c._zod.def);
  switch (def.type) {
    case "nullable": {
      const inner = compileColumn(def.innerType!._zod.def, where);
      return (v) => v === null || inner(v);
    }
    case "string": {
      let min = 0;
      let max = Infinity;
      for (const c of checks) {
        if (c.check === "min_length") min = Math.max(min, c.minimum!);
        else if (c.check === "max_length") max = Math.min(max, c.maximum!);
        else throw new Error(`${where}: the string check ${c.check} is not known to schema/row_check.ts`);
      }
      return (v) => typeof v === "string" && v.length >= min && v.length <= max;
    }
    case "boolean":
      if (checks.length) throw new Error(`${where}: a boolean with checks`);
      return (v) => typeof v === "boolean";
    case "enum": {
      if (checks.length) throw new Error(`${where}: an enum with checks`);
      const values = new Set(Object.values(def.entries ?? {}));
      return (v) => (typeof v === "string" || typeof v === "number") && values.has(v);
    }
    case "number": {
      // zod 4's number takes finite numbers only (no NaN, no ±Infinity); `int()` is the safe-integer format.
      let int = false;
      const bounds: ((x: number) => boolean)[] = [];
      for (const c of checks) {
        if (c.check === "number_format" && c.format === "safeint") int = true;
        else if (c.check === "greater_than" || c.check === "less_than") bounds.push(bound(c, where));
        else {
          throw new Error(
            `${where}: the number check ${c.check} ${c.format ?? ""} is not known to schema/row_check.ts`,
          );
        }
      }
      const [b0, b1] = bounds;
      if (bounds.length > 2) throw new Error(`${where}: more than two bounds`);
      return (v) =>
        typeof v === "number" && (int ? Number.isSafeInteger(v) : Number.isFinite(v)) &&
        (b0 === undefined || b0(v)) && (b1 === undefined || b1(v));
    }
    default:
      throw new Error(`${where}: zod type ${def.type} is not known to schema/row_check.ts`);
  }
}

/**
 * The check of a strict zod object schema: `check(row)` is true when the row is a plain object holding exactly the
 * schema's keys, each value passing its column's check — only where `schema.safeParse(row).success` is true too
 * (test/schema/row_check_test.ts holds the two equal over random rows). A false may be given where zod would pass a
 * row in ways this does not model (an inherited enumerable key); the caller asks zod then.
 *
 * @example A request row passes; one with a fractional token count or an extra key does not
 * ```ts
 * import { compileRowCheck } from "./row_check.ts";
 * import { ToolRow } from "./events.ts";
 * import assert from "node:assert/strict";
 * const check = compileRowCheck(ToolRow);
 * const row = { run_id: "r", request_id: "q", round: 0, tool: "retrieval", started_ms: 1, ended_ms: 2, ok: true,
 *   error_kind: null };
 * assert.equal(check(row), true);
 * assert.equal(check({ ...row, round: 0.5 }), false);
 * assert.equal(check({ ...row, extra: 1 }), false);
 * assert.equal(check({ ...row, started_ms: NaN }), false);
 * ```
 */
export function compileRowCheck(schema: z.ZodObject): (row: unknown) => boolean {
  const def = (schema as unknown as { _zod: { def: Def } })._zod.def;
  if (def.type !== "object" || !def.shape) throw new Error("compileRowCheck: not an object schema");
  if (def.catchall?._zod.def.type !== "never") throw new Error("compileRowCheck: the object schema is not strict");
  const keys = Object.keys(def.shape);
  const columns = keys.map((k) => compileColumn(def.shape![k]!._zod.def, k));
  const known = new Set(keys);
  const n = keys.length;
  return (row) => {
    if (typeof row !== "object" || row === null || Array.isArray(row)) return false;
    const r = row as Record<string, unknown>;
    for (const k in r) if (!known.has(k)) return false;
    for (let i = 0; i < n; i++) if (!columns[i]!(r[keys[i]!])) return false;
    return true;
  };
}
