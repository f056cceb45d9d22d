/**
 * One log file opened: its lazy scan with the contract's columns and dtypes, and the check of its sha256. Shared by
 * the reader of a runner's or an imported run's folders (`_open_run.ts`) and of a production recording's parts
 * (`_open_production.ts`).
 *
 * @module
 */
import pl from "nodejs-polars";
import { InputError } from "../../schema/errors.ts";
import { COLUMNS, columnsAt, EPOCH_COLUMNS, epochMsOf, type TableName } from "../../schema/events.ts";
import { endOfWholeRows } from "../../lib/csv_rows.ts";
import { cellsEscaped, unescapedCells } from "./_csv_cells.ts";
import { tableDtypes } from "./_dtypes.ts";
import { exists, sha256File } from "./_run_folders.ts";

export { exists, sha256File };

/** One log file of one folder, scanned (nothing read yet but its schema). */
export interface OpenedTable {
  table: TableName;
  /** Path of the file (for a table the folder does not hold: the path it would have, read as empty). */
  file: string;
  /** run.json `run_id` of the file's folder: every row's run_id (a log older than 1.3 gets it from there). */
  run_id: string;
  /** Its lazy scan: the contract's columns, in order, cast to the contract's dtypes. */
  scan: pl.LazyDataFrame;
  /** Streams the file through sha256 and compares it with run.json; throws or warns as `verify` says. */
  verify: () => Promise<void>;
}

/** True when a non-empty file does not end with a line end (a row cut off mid-write). */
async function endsMidRow(file: string): Promise<boolean> {
  using f = await Deno.open(file, { read: true });
  const size = (await f.stat()).size;
  if (size === 0) return false;
  await f.seek(size - 1, Deno.SeekMode.Start);
  const last = new Uint8Array(1);
  await f.read(last);
  return last[0] !== 10;
}

/** How a log file is read: its format, its contract minor version, its run, and what a cut last row means. */
export interface ScanContext {
  format: "csv" | "parquet";
  minor: number;
  runId: string;
  /** run.json `epoch_iso`: a log older than 1.6 gets its epoch column from it (+ the column's anchor). */
  epochIso: string;
  /** The writer may have stopped mid-row (a killed run, a recording still open): a cut last row is dropped, not refused. */
  killed: boolean;
  warning: (m: string) => void;
}

/**
 * Lazily scans one log file with the contract's dtypes and checks its
 * columns against those of the log's contract minor version; a column added
 * in a later minor version is read as null (not recorded), but `run_id`
 * (in attempts, tools and server since 1.3) as run.json's and the epoch
 * column (1.6) as run.json `epoch_iso` + its anchor, as a writer of 1.6
 * computes it (schema/events.ts `EPOCH_COLUMNS`); the string cells
 * of a contract ≥ 1.2 CSV lose their escape (one leading `'`). A CSV whose last
 * row was cut off mid-write (polars would read it as a row of nulls) is
 * refused, or, for a killed run, read without that row.
 */
export async function scanTable(file: string, table: TableName, m: ScanContext): Promise<pl.LazyDataFrame> {
  const { format, minor, killed, warning } = m;
  const dtypes = tableDtypes(table);
  const expected = columnsAt(table, minor);
  let lf: pl.LazyDataFrame;
  try {
    // The contract's dtypes as the CSV's whole schema, in the file's own column order: inference from the first rows
    // would type a time column Int64 when those rows hold whole milliseconds, and fail on a later 72562.5.
    const header = format === "csv" ? await csvHeader(file) : [];
    checkColumns(file, table, header.length ? header : expected, expected);
    const schema = Object.fromEntries(header.map((c) => [c, dtypes[c]!]));
    const csvOptions = { schema, hasHeader: true } as Parameters<typeof pl.scanCSV>[1];
    if (format === "parquet") lf = pl.scanParquet(file);
    else if (!(await endsMidRow(file))) lf = pl.scanCSV(file, csvOptions);
    else {
      const what = `${file}: truncated last row (no line end: the writer stopped mid-write)`;
      if (!killed) throw new InputError(`${what}, but run.json says the log is finished`);
      warning(`${what}; dropped`);
      const text = await Deno.readTextFile(file);
      lf = pl.readCSV(text.slice(0, endOfWholeRows(text)), csvOptions as Parameters<typeof pl.readCSV>[1]).lazy();
    }
    checkColumns(file, table, lf.columns, expected);
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw new InputError(`${file}: cannot read ${table} log: ${(e as Error).message}`, [], { cause: e });
  }
  const unescape = format === "csv" && cellsEscaped(minor);
  const read = (c: string) => {
    const e = pl.col(c).cast(dtypes[c]!, true);
    return unescape && dtypes[c] === pl.Utf8 ? unescapedCells(e).alias(c) : e;
  };
  const epoch = EPOCH_COLUMNS[table];
  const absent = (c: string) =>
    c === epoch.name
      ? pl.lit(epochMsOf(m.epochIso)).plus(read(epoch.of)).cast(dtypes[c]!).alias(c)
      : pl.lit(c === "run_id" ? m.runId : null).cast(dtypes[c]!).alias(c);
  return lf.select((COLUMNS[table] as readonly string[]).map((c) => expected.includes(c) ? read(c) : absent(c)));
}

/** A table a folder does not hold, read as empty: the contract's columns and dtypes, no row. */
export function emptyScan(table: TableName): pl.LazyDataFrame {
  return pl.DataFrame({}, { schema: tableDtypes(table) }).lazy()
    .select(...(COLUMNS[table] as readonly string[]).map((c) => pl.col(c)));
}

/** An {@linkcode OpenedTable} for a table the folder does not hold: empty, nothing to verify. */
export function absentTable(file: string, table: TableName, runId: string): OpenedTable {
  return { table, file, run_id: runId, scan: emptyScan(table), verify: () => Promise.resolve() };
}

function checkColumns(file: string, table: TableName, got: readonly string[], expected: readonly string[]): void {
  const missing = expected.filter((c) => !got.includes(c));
  const unknown = got.filter((c) => !expected.includes(c));
  if (missing.length || unknown.length) {
    throw new InputError(`${file}: columns do not match the ${table} table`, [
      ...(missing.length ? [`${file}: missing columns: ${missing.join(", ")}`] : []),
      ...(unknown.length ? [`${file}: unknown columns: ${unknown.join(", ")}`] : []),
    ]);
  }
}

/** The column names of a CSV file's header line (the runner's writer never quotes a column name). */
async function csvHeader(file: string): Promise<string[]> {
  const f = await Deno.open(file);
  try {
    const buf = new Uint8Array(64 * 1024);
    const n = (await f.read(buf)) ?? 0;
    const text = new TextDecoder().decode(buf.subarray(0, n));
    const end = text.indexOf("\n");
    const line = (end === -1 ? text : text.slice(0, end)).replace(/\r$/, "");
    return line ? line.split(",").map((c) => c.replace(/^"(.*)"$/, "$1")) : [];
  } finally {
    f.close();
  }
}

/** How a file's sha256 is checked against the one run.json lists for it. */
export interface VerifyContext {
  /** The sha256 run.json lists (undefined: not listed). */
  want: string | undefined;
  /** Where run.json lists it, for messages (`files["requests.csv"]`). */
  listed: string;
  mode: "strict" | "warn";
  warning: (m: string) => void;
}

/**
 * The `verify` of an opened file: streams it through sha256 and compares with run.json's; a mismatch is refused
 * (`strict`) or kept as a loud warning (`warn`). Nothing to check when run.json lists no sha256 for the file.
 */
export function verifier(file: string, v: VerifyContext): () => Promise<void> {
  return async () => {
    if (v.want === undefined) return;
    const got = await sha256File(file);
    if (got === v.want) return;
    const msg = `${file}: sha256 ${got} does not match run.json ${v.listed} ${v.want}: the log was changed`;
    if (v.mode === "warn") v.warning(`UNVERIFIED LOG: ${msg}`);
    else throw new InputError(msg);
  };
}
