import { CsvError, parse } from "csv-parse/sync";
import { endOfWholeRows, unescapeCell } from "../../schema/log_csv.ts";
import type { InfoField } from "csv-parse";
import { InputError } from "../../schema/errors.ts";
import { COLUMNS, type TableName } from "../../schema/events.ts";
import { columnSpecs, ROW_SCHEMAS, type RowOf } from "./column_kinds.ts";

/** Options for {@linkcode readLogCsv}. */
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

function countLines(text: string, end: number): number {
  let n = 1;
  for (let i = 0; i < end; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}

/**
 * Reads a log CSV written by `CsvSink` (or another tool) back into typed
 * rows: an unquoted empty field is null, `""` is the empty string, a string
 * cell loses one leading `'` (the writer's escape, contract 1.2), numeric
 * and boolean columns are converted by the kinds in the zod row schema, and
 * every row is validated with it. Errors are {@linkcode InputError}s naming
 * the file, line and field, all problems at once.
 *
 * A last row without its line end (the runner was killed mid-write) is an
 * error unless `dropTruncatedLast` is set, which skips it with a warning.
 *
 * @example Null, empty string and numbers come back as written
 * ```ts
 * import { readLogCsv } from "./csv_read.ts";
 * import assert from "node:assert/strict";
 * const file = Deno.makeTempFileSync({ suffix: ".csv" });
 * Deno.writeTextFileSync(file, "request_id,round,tool,started_ms,ended_ms,ok,error_kind\nr1,0,\"\",0.1,2,false,\n");
 * const rows = await readLogCsv(file, "tools");
 * assert.deepEqual(rows, [{ request_id: "r1", round: 0, tool: "", started_ms: 0.1, ended_ms: 2, ok: false, error_kind: null }]);
 * Deno.removeSync(file);
 * ```
 */
export async function readLogCsv<T extends TableName>(
  file: string,
  table: T,
  options: ReadLogCsvOptions = {},
): Promise<RowOf<T>[]> {
  const specs = columnSpecs(table);
  const warn = options.onWarning ?? console.warn;
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (e) {
    throw new InputError(`${file}: cannot read ${table} log: ${(e as Error).message}`, [], { cause: e });
  }
  if (text.length === 0) throw new InputError(`${file}: empty file: no header line for ${table}`);

  const whole = endOfWholeRows(text);
  if (whole < text.length) {
    const line = countLines(text, whole);
    if (whole === 0) throw new InputError(`${file}: line 1: header is truncated (no line end)`);
    const what = `${file}: line ${line}: truncated last row (no line end: the run was probably killed mid-write)`;
    if (!options.dropTruncatedLast) {
      throw new InputError(`${what}; read with dropTruncatedLast to skip it`);
    }
    warn(`${what}; dropped`);
    text = text.slice(0, whole);
  }

  // Line of each data row's first field: where errors point.
  const rowLines: number[] = [];
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

  let records: unknown[][];
  try {
    records = parse(text, { cast, bom: true });
  } catch (e) {
    if (e instanceof CsvError) throw new InputError(`${file}: ${e.message}`, [], { cause: e });
    throw e;
  }

  const header = records[0] as string[] | undefined;
  const expected = COLUMNS[table] as readonly string[];
  if (!header || header.join(",") !== expected.join(",")) {
    const got = header ?? [];
    const missing = expected.filter((c) => !got.includes(c));
    const unknown = got.filter((c) => !expected.includes(c));
    const problems = [
      ...(missing.length ? [`${file}: line 1: missing columns: ${missing.join(", ")}`] : []),
      ...(unknown.length ? [`${file}: line 1: unknown columns: ${unknown.join(", ")}`] : []),
    ];
    if (!problems.length) problems.push(`${file}: line 1: columns out of order; expected ${expected.join(",")}`);
    throw new InputError(`${file}: header does not match the ${table} table`, problems);
  }

  const schema = ROW_SCHEMAS[table];
  const max = options.maxProblems ?? 50;
  const problems: string[] = [];
  let more = 0;
  const rows: RowOf<T>[] = [];
  for (let r = 1; r < records.length; r++) {
    const cells = records[r]!;
    const obj: Record<string, unknown> = {};
    for (let i = 0; i < expected.length; i++) obj[expected[i]!] = cells[i];
    const res = schema.safeParse(obj);
    if (res.success) {
      rows.push(res.data as RowOf<T>);
      continue;
    }
    const line = rowLines[r - 1] ?? r + 1;
    for (const issue of res.error.issues) {
      if (problems.length >= max) {
        more++;
        continue;
      }
      const field = issue.path.map(String).join(".") || "(row)";
      problems.push(`${file}: line ${line}: ${field}: ${issue.message} (got ${JSON.stringify(obj[field])})`);
    }
  }
  if (problems.length) {
    if (more) problems.push(`... and ${more} more problems`);
    throw new InputError(`${file}: invalid ${table} rows`, problems);
  }
  return rows;
}
