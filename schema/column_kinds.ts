/**
 * The storage kind of every log column, read once from the zod row schemas of
 * `events.ts`: the runner's sinks and the analysis's dtypes both come from
 * here, so neither can drift from the contract.
 *
 * @module
 */
import { z } from "zod";
import { AttemptRow, COLUMNS, RequestRow, ServerRow, type TableName, ToolRow } from "./events.ts";

/** The storage kind of one log column, derived from its zod schema. */
export type ColumnKind = "string" | "int" | "float" | "boolean";

/** One column of a log table: its name, kind and whether null is allowed. */
export interface ColumnSpec {
  name: string;
  kind: ColumnKind;
  nullable: boolean;
}

/** The zod row schema of each log table. */
export const ROW_SCHEMAS = {
  requests: RequestRow,
  attempts: AttemptRow,
  tools: ToolRow,
  server: ServerRow,
} as const;

/** The row type of a log table. */
export type RowOf<T extends TableName> = z.infer<(typeof ROW_SCHEMAS)[T]>;

function kindOf(table: string, column: string, schema: z.ZodType): { kind: ColumnKind; nullable: boolean } {
  let inner: z.ZodType = schema;
  let nullable = false;
  if (inner instanceof z.ZodNullable) {
    inner = inner.unwrap() as z.ZodType;
    nullable = true;
  }
  if (inner instanceof z.ZodNumber) return { kind: inner.isInt ? "int" : "float", nullable };
  if (inner instanceof z.ZodBoolean) return { kind: "boolean", nullable };
  if (inner instanceof z.ZodString || inner instanceof z.ZodEnum) return { kind: "string", nullable };
  // A new zod type in schema/events.ts must be mapped here, not guessed.
  throw new TypeError(`${table}.${column}: unsupported zod type ${inner.def.type}`);
}

const cache = new Map<TableName, readonly ColumnSpec[]>();

/**
 * The columns of a log table in file order (`COLUMNS`), each with the kind
 * read from the zod row schema (a nullable schema gives `nullable: true`).
 *
 * @example Counts are integers, times are floats, gates are nullable booleans
 * ```ts
 * import { columnSpecs } from "./column_kinds.ts";
 * import assert from "node:assert/strict";
 * const byName = new Map(columnSpecs("requests").map((c) => [c.name, c]));
 * assert.equal(byName.get("attempts")?.kind, "int");
 * assert.equal(byName.get("scheduled_ms")?.kind, "float");
 * assert.deepEqual(byName.get("schema_ok"), { name: "schema_ok", kind: "boolean", nullable: true });
 * ```
 */
export function columnSpecs(table: TableName): readonly ColumnSpec[] {
  const hit = cache.get(table);
  if (hit) return hit;
  const shape = ROW_SCHEMAS[table].shape as Record<string, z.ZodType>;
  const specs = COLUMNS[table].map((name) => {
    const schema = shape[name];
    if (!schema) throw new TypeError(`${table}.${name}: column has no schema`);
    return { name, ...kindOf(table, name, schema) };
  });
  cache.set(table, specs);
  return specs;
}

/** Columns of a log table that the contract says are never null, in file order. */
export function requiredColumns(table: TableName): string[] {
  return columnSpecs(table).filter((c) => !c.nullable).map((c) => c.name);
}
