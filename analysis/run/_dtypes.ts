import pl from "nodejs-polars";
import { type ColumnKind, columnSpecs } from "../../schema/column_kinds.ts";
import type { TableName } from "../../schema/events.ts";

/** The polars dtype of each column kind. */
const DTYPE: Record<ColumnKind, pl.DataType> = { int: pl.Int64, float: pl.Float64, boolean: pl.Bool, string: pl.Utf8 };

/**
 * Polars dtype of every column of a log table, in file order, from the
 * column kinds of the contract (`schema/column_kinds.ts`): counts Int64,
 * times Float64, gates Boolean, strings Utf8.
 */
export function tableDtypes(table: TableName): Record<string, pl.DataType> {
  return Object.fromEntries(columnSpecs(table).map((c) => [c.name, DTYPE[c.kind]]));
}
