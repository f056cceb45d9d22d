import { Buffer } from "node:buffer";
import type { InfoField } from "csv-parse";
import { parse } from "csv-parse/stream";
import { CsvError } from "csv-parse/sync";
import { InputError } from "../../schema/errors.ts";
import { unescapeCell } from "../../schema/log_csv.ts";
import { COLUMNS, EPOCH_COLUMNS, type TableName } from "../../schema/events.ts";
import { columnSpecs, ROW_SCHEMAS, type RowOf } from "../../schema/column_kinds.ts";
import { WholeRows } from "./_whole_rows.ts";
import { Fifo } from "../../lib/fifo.ts";

/** Options for `readLogCsv` and {@linkcode readLogCsvBatches}. */
export interface ReadLogCsvOptions {
  /**
   * Skip a last row cut off mid-write (a killed run) instead of failing,
   * and report it through `onWarning`. @default false
   */
  dropTruncatedLast?: boolean;
  /** Receives warnings (a dropped last row). @default console.warn */
  onWarning?: (message: string) => void;
  /** Most problems listed in an error before the rest are counted. @default 50 */
  maxProblems?: number;
}

/** Options for {@linkcode readLogCsvBatches}. */
export interface ReadLogCsvBatchesOptions extends ReadLogCsvOptions {
  /** Most rows in one batch. @default 16384 */
  batchRows?: number;
  /** Bytes read from the file at a time. @default 1048576 */
  chunkBytes?: number;
}

/**
 * Reads a log CSV written by `CsvSink` (or another tool) as typed rows in
 * batches of at most `batchRows`, holding one batch and one chunk of the
 * file at a time, never the whole file: the reader behind `readLogCsv`,
 * with the same conversions and validation. An unquoted empty field is
 * null, `""` is the empty string, numeric and boolean columns are converted
 * by the kinds in the zod row schema, and every row is validated with it.
 * Errors are {@linkcode InputError}s naming the file, line and field, all
 * problems at once.
 *
 * A last row without its line end (the runner was killed mid-write) is an
 * error unless `dropTruncatedLast` is set, which skips it with a warning.
 *
 * Rows are yielded as they are read, so an error found later in the file
 * (a bad row, a cut last row) is thrown after some batches went out: a
 * consumer treats what it made of them as void when the iteration throws.
 * From the first bad row on, no further batch is yielded; the rest of the
 * file is still read so the error lists every problem.
 *
 * @example Three rows in batches of two
 * ```ts
 * import { readLogCsvBatches } from "./csv_read_batches.ts";
 * import assert from "node:assert/strict";
 * const file = Deno.makeTempFileSync({ suffix: ".csv" });
 * Deno.writeTextFileSync(
 *   file,
 *   "run_id,request_id,round,tool,started_ms,ended_ms,ok,error_kind,started_epoch_ms\n" +
 *     "x,r1,0,t,0,1,true,,1767225600000\nx,r2,0,t,1,2,true,,1767225600001\nx,r3,0,t,2,3,false,x,1767225600002\n",
 * );
 * const sizes: number[] = [];
 * for await (const batch of readLogCsvBatches(file, "tools", { batchRows: 2 })) sizes.push(batch.length);
 * assert.deepEqual(sizes, [2, 1]);
 * Deno.removeSync(file);
 * ```
 */
export async function* readLogCsvBatches<T extends TableName>(
  file: string,
  table: T,
  options: ReadLogCsvBatchesOptions = {},
): AsyncGenerator<RowOf<T>[], void, undefined> {
  const specs = columnSpecs(table);
  const expected = COLUMNS[table] as readonly string[];
  const epochAt = expected.indexOf(EPOCH_COLUMNS[table].name);
  const schema = ROW_SCHEMAS[table];
  const max = options.maxProblems ?? 50;
  const batchRows = options.batchRows ?? 16384;
  const cannotRead = (e: unknown) =>
    new InputError(`${file}: cannot read ${table} log: ${(e as Error).message}`, [], { cause: e });
  let fh: Deno.FsFile;
  try {
    fh = await Deno.open(file, { read: true });
  } catch (e) {
    throw cannotRead(e);
  }

  // Line of each data row's first field, in row order: where errors point.
  const rowLines = new Fifo<number>();
  const cast = (value: string, ctx: InfoField): unknown => {
    if (ctx.records === 0) return value; // the header
    if (ctx.index === 0) rowLines.push(ctx.lines);
    const spec = specs[ctx.index];
    if (!spec) return value;
    if (value === "" && !ctx.quoting) return null;
    switch (spec.kind) {
      case "string":
        return unescapeCell(value); // contract 1.2: one leading ' is the writer's escape
      case "int":
      case "float": {
        const n = value.trim() === "" ? Number.NaN : Number(value);
        return Number.isNaN(n) && value !== "NaN" ? value : n;
      }
      case "boolean":
        return value === "true" ? true : value === "false" ? false : value;
    }
  };
  const parser = parse({ cast, bom: true });
  const writer = parser.writable.getWriter();
  const reader = parser.readable.getReader();
  const split = new WholeRows();
  let abandoned = false;
  // Whole rows go to the parser; after it fails, the rest is still read to learn whether the file ends in a cut row
  // (that error comes first, as it did when the file was read whole).
  const feeding = (async (): Promise<unknown> => {
    const buf = new Uint8Array(options.chunkBytes ?? 1 << 20);
    let parsing = true;
    try {
      while (!abandoned) {
        const n = await fh.read(buf);
        if (n === null) break;
        const rows = split.push(buf.subarray(0, n));
        if (!rows || !parsing) continue;
        try {
          await writer.write(Buffer.from(rows.buffer, rows.byteOffset, rows.byteLength));
        } catch {
          parsing = false; // the parser failed (or was cancelled): the reading side has its error
        }
      }
    } catch (e) {
      if (parsing) await writer.abort(e).catch((x: unknown) => x);
      return e;
    }
    if (parsing) {
      try {
        await writer.close();
      } catch {
        parsing = false; // the parser failed at the end: the reading side has its error
      }
    }
    return null;
  })();

  let header: string[] | undefined;
  let headerProblem: InputError | null = null;
  let csvError: CsvError | null = null;
  let streamError: unknown = null;
  let finished = false;
  const problems: string[] = [];
  let more = 0;
  let records = 0;
  let batch: RowOf<T>[] = [];
  try {
    while (true) {
      let next: ReadableStreamReadResult<unknown>;
      try {
        next = await reader.read();
      } catch (e) {
        if (e instanceof CsvError) csvError = e;
        else streamError = e;
        break;
      }
      if (next.done) break;
      const cells = next.value as unknown[];
      if (records++ === 0) {
        header = cells as string[];
        headerProblem = headerError(file, table, header, expected);
        continue;
      }
      const line = rowLines.shift() ?? records;
      if (headerProblem) continue;
      const obj: Record<string, unknown> = {};
      // The epoch column (contract 1.6) is not part of a row: a writer derives it again from the row's anchor.
      for (let i = 0; i < expected.length; i++) if (i !== epochAt) obj[expected[i]!] = cells[i];
      const res = schema.safeParse(obj);
      if (res.success) {
        if (problems.length) continue;
        batch.push(res.data as RowOf<T>);
        if (batch.length >= batchRows) {
          yield batch;
          batch = [];
        }
        continue;
      }
      for (const issue of res.error.issues) {
        if (problems.length >= max) {
          more++;
          continue;
        }
        const field = issue.path.map(String).join(".") || "(row)";
        problems.push(`${file}: line ${line}: ${field}: ${issue.message} (got ${JSON.stringify(obj[field])})`);
      }
      batch = [];
    }
    finished = true;
  } finally {
    // Left early (the consumer stopped, or threw): stop reading.
    if (!finished) {
      abandoned = true;
      await reader.cancel().catch((e: unknown) => e);
    }
    await feeding;
    fh.close();
  }
  const readError = await feeding;
  if (readError) throw cannotRead(readError);
  if (streamError) throw streamError;

  if (split.total === 0) throw new InputError(`${file}: empty file: no header line for ${table}`);
  if (split.keptBytes > 0) {
    if (split.handed === 0) throw new InputError(`${file}: line 1: header is truncated (no line end)`);
    const what =
      `${file}: line ${split.keptLine}: truncated last row (no line end: the run was probably killed mid-write)`;
    if (!options.dropTruncatedLast) throw new InputError(`${what}; read with dropTruncatedLast to skip it`);
    (options.onWarning ?? console.warn)(`${what}; dropped`);
  }
  if (csvError) throw new InputError(`${file}: ${csvError.message}`, [], { cause: csvError });
  if (headerProblem) throw headerProblem;
  if (!header) throw headerError(file, table, [], expected)!;
  if (problems.length) {
    if (more) problems.push(`... and ${more} more problems`);
    throw new InputError(`${file}: invalid ${table} rows`, problems);
  }
  if (batch.length) yield batch;
}

/** The error for a header that is not the table's, or null when it is. */
function headerError(file: string, table: TableName, got: string[], expected: readonly string[]): InputError | null {
  if (got.join(",") === expected.join(",")) return null;
  const missing = expected.filter((c) => !got.includes(c));
  const unknown = got.filter((c) => !expected.includes(c));
  const problems = [
    ...(missing.length ? [`${file}: line 1: missing columns: ${missing.join(", ")}`] : []),
    ...(unknown.length ? [`${file}: line 1: unknown columns: ${unknown.join(", ")}`] : []),
  ];
  if (!problems.length) problems.push(`${file}: line 1: columns out of order; expected ${expected.join(",")}`);
  return new InputError(`${file}: header does not match the ${table} table`, problems);
}
