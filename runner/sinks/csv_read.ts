import type { TableName } from "../../schema/events.ts";
import type { RowOf } from "../../schema/column_kinds.ts";
import { readLogCsvBatches, type ReadLogCsvOptions } from "./csv_read_batches.ts";

export type { ReadLogCsvOptions } from "./csv_read_batches.ts";

/**
 * Reads a log CSV written by `CsvSink` (or another tool) back into typed
 * rows: an unquoted empty field is null, `""` is the empty string, numeric
 * and boolean columns are converted by the kinds in the zod row schema, and
 * every row is validated with it. Errors are {@linkcode InputError}s naming
 * the file, line and field, all problems at once.
 *
 * A last row without its line end (the runner was killed mid-write) is an
 * error unless `dropTruncatedLast` is set, which skips it with a warning.
 *
 * Every row is held in memory: for a log of any size, read it in batches
 * with {@linkcode readLogCsvBatches}, which this collects.
 *
 * @example Null, empty string and numbers come back as written
 * ```ts
 * import { readLogCsv } from "./csv_read.ts";
 * import assert from "node:assert/strict";
 * const file = Deno.makeTempFileSync({ suffix: ".csv" });
 * Deno.writeTextFileSync(
 *   file,
 *   "run_id,request_id,round,tool,started_ms,ended_ms,ok,error_kind,started_epoch_ms\nx,r1,0,\"\",0.1,2,false,,1767225600000.1\n",
 * );
 * const rows = await readLogCsv(file, "tools");
 * assert.deepEqual(rows, [{ run_id: "x", request_id: "r1", round: 0, tool: "", started_ms: 0.1, ended_ms: 2, ok: false, error_kind: null }]);
 * Deno.removeSync(file);
 * ```
 */
export async function readLogCsv<T extends TableName>(
  file: string,
  table: T,
  options: ReadLogCsvOptions = {},
): Promise<RowOf<T>[]> {
  const rows: RowOf<T>[] = [];
  for await (const batch of readLogCsvBatches(file, table, options)) for (const r of batch) rows.push(r);
  return rows;
}
