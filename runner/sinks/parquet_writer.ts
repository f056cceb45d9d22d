import { type BasicType, type ColumnSource, parquetWriteFile } from "hyparquet-writer";
import type { TableName } from "../../schema/events.ts";
import { SCHEMA_VERSION } from "../../schema/version.ts";
import { type ColumnKind, columnSpecs, type RowOf } from "./column_kinds.ts";
import { readLogCsv, type ReadLogCsvOptions } from "./csv_read.ts";

/** Parquet type of each column kind: counts are 64-bit so no count can overflow. */
const PARQUET_TYPE: Record<ColumnKind, BasicType> = {
  string: "STRING",
  int: "INT64",
  float: "DOUBLE",
  boolean: "BOOLEAN",
};

/**
 * Writes log rows to a Parquet file with one typed, nullable column per
 * log column (types from the zod row schema: integers → INT64, other numbers
 * → DOUBLE, booleans → BOOLEAN, strings and enums → STRING). The file is
 * written beside the target and renamed into place, so a crash never leaves
 * a half-written `.parquet` under the final name.
 *
 * @example Write two tool rows
 * ```ts
 * import { writeParquetFromRows } from "./parquet_writer.ts";
 * import assert from "node:assert/strict";
 * const file = Deno.makeTempFileSync({ suffix: ".parquet" });
 * writeParquetFromRows(file, "tools", [
 *   { request_id: "r1", round: 1, tool: "lookup", started_ms: 1.5, ended_ms: 9.25, ok: true, error_kind: null },
 *   { request_id: "r2", round: 1, tool: "lookup", started_ms: 2, ended_ms: 3, ok: false, error_kind: "timeout" },
 * ]);
 * const bytes = Deno.readFileSync(file);
 * assert.equal(new TextDecoder().decode(bytes.subarray(0, 4)), "PAR1");
 * Deno.removeSync(file);
 * ```
 */
export function writeParquetFromRows<T extends TableName>(file: string, table: T, rows: readonly RowOf<T>[]): void {
  const columnData: ColumnSource[] = columnSpecs(table).map((spec) => {
    const data = new Array<unknown>(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const v = (rows[i] as Record<string, unknown>)[spec.name] ?? null;
      // hyparquet-writer takes INT64 values as bigint only.
      if (spec.kind === "int" && v !== null) {
        if (!Number.isSafeInteger(v)) throw new TypeError(`${table} row ${i}: ${spec.name} is not an integer: ${v}`);
        data[i] = BigInt(v as number);
      } else data[i] = v;
    }
    return { name: spec.name, data, type: PARQUET_TYPE[spec.kind], nullable: true };
  });
  const tmp = `${file}.partial`;
  parquetWriteFile({
    filename: tmp,
    columnData,
    kvMetadata: [
      { key: "accepted_goodput.schema_version", value: String(SCHEMA_VERSION) },
      { key: "accepted_goodput.table", value: table },
    ],
  });
  Deno.renameSync(tmp, file);
}

/**
 * Converts a finished `<dir>/<table>.csv` log into `<dir>/<table>.parquet`;
 * returns the number of rows. The CSV is validated on the way
 * (see {@linkcode readLogCsv}, whose options apply).
 *
 * @example Convert an empty tools log
 * ```ts
 * import { csvToParquet } from "./parquet_writer.ts";
 * import assert from "node:assert/strict";
 * const dir = Deno.makeTempDirSync();
 * Deno.writeTextFileSync(`${dir}/tools.csv`, "request_id,round,tool,started_ms,ended_ms,ok,error_kind\n");
 * assert.equal(await csvToParquet(dir, "tools"), 0);
 * assert.ok(Deno.statSync(`${dir}/tools.parquet`).size > 0);
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export async function csvToParquet(dir: string, table: TableName, options: ReadLogCsvOptions = {}): Promise<number> {
  const rows = await readLogCsv(`${dir}/${table}.csv`, table, options);
  writeParquetFromRows(`${dir}/${table}.parquet`, table, rows);
  return rows.length;
}
