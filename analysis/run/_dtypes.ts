import pl from "nodejs-polars";
import { z } from "zod";
import { AttemptRow, COLUMNS, RequestRow, ServerRow, type TableName, ToolRow } from "../../schema/events.ts";

const SCHEMAS = { requests: RequestRow, attempts: AttemptRow, tools: ToolRow, server: ServerRow } as const;

function dtypeOf(table: string, column: string, schema: z.ZodType): pl.DataType {
  let inner: z.ZodType = schema;
  if (inner instanceof z.ZodNullable) inner = inner.unwrap() as z.ZodType;
  if (inner instanceof z.ZodNumber) return inner.isInt ? pl.Int64 : pl.Float64;
  if (inner instanceof z.ZodBoolean) return pl.Bool;
  if (inner instanceof z.ZodString || inner instanceof z.ZodEnum) return pl.Utf8;
  // A new zod type in schema/events.ts must be mapped here, not guessed.
  throw new TypeError(`${table}.${column}: unsupported zod type ${inner.def.type}`);
}

/**
 * Polars dtype of every column of a log table, in file order, read from the
 * zod row schema (counts Int64, times Float64, gates Boolean, strings Utf8).
 */
export function tableDtypes(table: TableName): Record<string, pl.DataType> {
  const shape = SCHEMAS[table].shape as Record<string, z.ZodType>;
  const out: Record<string, pl.DataType> = {};
  for (const name of COLUMNS[table]) out[name] = dtypeOf(table, name, shape[name]!);
  return out;
}

/** Columns of a log table that the contract says are never null. */
export function requiredColumns(table: TableName): string[] {
  const shape = SCHEMAS[table].shape as Record<string, z.ZodType>;
  return COLUMNS[table].filter((name) => !(shape[name] instanceof z.ZodNullable));
}
