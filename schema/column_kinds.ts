/**
 * The storage kind of every log column, read once from the zod row schemas of
 * `events.ts`: the runner's sinks and the analysis's dtypes both come from
 * here, so neither can drift from the contract.
 *
 * @module
 */
import { z } from "zod";
import {
  AttemptRow,
  COLUMNS,
  EPOCH_COLUMNS,
  EpochMs,
  PhaseRow,
  RequestRow,
  ServerRow,
  type TableName,
  type TimeUnit,
  ToolRow,
} from "./events.ts";
import { compileRowCheck } from "./row_check.ts";

/** The storage kind of one log column, derived from its zod schema. */
export type ColumnKind = "string" | "int" | "float" | "boolean";

/** One column of a log table: its name, kind, whether null is allowed, and a time column's unit. */
export interface ColumnSpec {
  name: string;
  kind: ColumnKind;
  nullable: boolean;
  /** A time column's unit (an instant on the run's clock or a duration); null for every other column. */
  unit: TimeUnit | null;
}

/** The zod row schema of each log table. */
export const ROW_SCHEMAS = {
  requests: RequestRow,
  attempts: AttemptRow,
  tools: ToolRow,
  server: ServerRow,
  phases: PhaseRow,
} as const;

/**
 * Each table's row schema compiled to an allocation-free check (schema/row_check.ts): true only where the zod
 * schema's `safeParse` succeeds; a caller asks zod itself about a row it refuses (the recorder does, for zod's
 * message: recorder/task_rows.ts `rowsProblem`).
 */
export const ROW_CHECKS: { readonly [T in keyof typeof ROW_SCHEMAS]: (row: unknown) => boolean } = {
  requests: compileRowCheck(RequestRow),
  attempts: compileRowCheck(AttemptRow),
  tools: compileRowCheck(ToolRow),
  server: compileRowCheck(ServerRow),
  phases: compileRowCheck(PhaseRow),
};

/** The row type of a log table. */
export type RowOf<T extends TableName> = z.infer<(typeof ROW_SCHEMAS)[T]>;

function kindOf(table: string, column: string, schema: z.ZodType): Omit<ColumnSpec, "name"> {
  let inner: z.ZodType = schema;
  let nullable = false;
  if (inner instanceof z.ZodNullable) {
    inner = inner.unwrap() as z.ZodType;
    nullable = true;
  }
  // The unit is the `meta({ unit })` of a time column in schema/events.ts.
  const unit = (inner.meta()?.unit ?? null) as TimeUnit | null;
  if (inner instanceof z.ZodNumber) return { kind: inner.isInt ? "int" : "float", nullable, unit };
  if (unit !== null) throw new TypeError(`${table}.${column}: a unit on a column that is not a number`);
  if (inner instanceof z.ZodBoolean) return { kind: "boolean", nullable, unit };
  if (inner instanceof z.ZodString || inner instanceof z.ZodEnum) return { kind: "string", nullable, unit };
  // A new zod type in schema/events.ts must be mapped here, not guessed.
  throw new TypeError(`${table}.${column}: unsupported zod type ${inner.def.type}`);
}

const cache = new Map<TableName, readonly ColumnSpec[]>();

/**
 * The columns of a log table in file order (`COLUMNS`), each with the kind
 * read from the zod row schema (a nullable schema gives `nullable: true`)
 * and, for a time column, its unit: `ms since epoch_iso` for an instant,
 * `ms` for a duration.
 *
 * @example Counts are integers, times are floats with a unit, gates are nullable booleans
 * ```ts
 * import { columnSpecs } from "./column_kinds.ts";
 * import assert from "node:assert/strict";
 * const byName = new Map(columnSpecs("requests").map((c) => [c.name, c]));
 * assert.equal(byName.get("attempts")?.kind, "int");
 * assert.deepEqual(byName.get("scheduled_ms"), {
 *   name: "scheduled_ms", kind: "float", nullable: false, unit: "ms since epoch_iso",
 * });
 * assert.equal(byName.get("send_lag_ms")?.unit, "ms");
 * assert.deepEqual(byName.get("schema_ok"), { name: "schema_ok", kind: "boolean", nullable: true, unit: null });
 * ```
 */
export function columnSpecs(table: TableName): readonly ColumnSpec[] {
  const hit = cache.get(table);
  if (hit) return hit;
  const shape = ROW_SCHEMAS[table].shape as Record<string, z.ZodType>;
  const specs = (COLUMNS[table] as readonly string[]).map((name) => {
    const schema = name === EPOCH_COLUMNS[table].name ? EpochMs : shape[name];
    if (!schema) throw new TypeError(`${table}.${name}: column has no schema`);
    return { name, ...kindOf(table, name, schema) };
  });
  cache.set(table, specs);
  return specs;
}

/** A numeric column and the least value the contract allows in it (0 for counts and some lengths of time). */
export interface NumericBound {
  name: string;
  kind: "int" | "float";
  /** The schema's minimum (`nonnegative()`: 0), or null when it sets none. */
  min: number | null;
}

/**
 * The numeric columns of a log table, each with the least value its zod schema allows: what a reader checks beside
 * the dtype (every value finite, none below its minimum), so a log another tool wrote is held to the same rules the
 * runner's rows meet.
 *
 * @example Counts are never negative; an instant has no minimum
 * ```ts
 * import { numericBounds } from "./column_kinds.ts";
 * import assert from "node:assert/strict";
 * const byName = new Map(numericBounds("requests").map((c) => [c.name, c]));
 * assert.deepEqual(byName.get("output_tokens"), { name: "output_tokens", kind: "int", min: 0 });
 * assert.deepEqual(byName.get("scheduled_ms"), { name: "scheduled_ms", kind: "float", min: null });
 * assert.equal(byName.get("tool_ms")?.min, 0);
 * ```
 */
export function numericBounds(table: TableName): readonly NumericBound[] {
  const shape = ROW_SCHEMAS[table].shape as Record<string, z.ZodType>;
  return columnSpecs(table).filter((c) => c.kind === "int" || c.kind === "float").map((c) => {
    let inner = c.name === EPOCH_COLUMNS[table].name ? EpochMs : shape[c.name]!;
    if (inner instanceof z.ZodNullable) inner = inner.unwrap() as z.ZodType;
    const least = (inner as z.ZodNumber).minValue;
    // An int schema's own bound (the safe integers) is not a minimum the contract sets.
    const min = typeof least === "number" && Number.isFinite(least) && least > Number.MIN_SAFE_INTEGER ? least : null;
    return { name: c.name, kind: c.kind as "int" | "float", min };
  });
}

/**
 * The problem of `n` rows of `file` whose `column` breaks its bound (`what`: "not finite (NaN or infinite)" or
 * "below 0"), `example` one such row's `key` (its request id, or a server row's `t_ms`).
 */
export function valueProblem(
  file: string,
  column: string,
  n: number,
  what: string,
  key: string,
  example: unknown,
): string {
  const e = `${key} ${JSON.stringify(example)}`;
  return `${file}: ${column}: ${n} rows with a value ${what}, which the contract does not allow (e.g. ${e})`;
}

/** The column that names a row of `table` in a problem: its request id, or a server row's second. */
export function exampleKey(table: TableName): string {
  return (COLUMNS[table] as readonly string[]).includes("request_id") ? "request_id" : "t_ms";
}

/** Columns of a log table that the contract says are never null, in file order. */
export function requiredColumns(table: TableName): string[] {
  return columnSpecs(table).filter((c) => !c.nullable).map((c) => c.name);
}
