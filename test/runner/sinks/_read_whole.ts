import { CsvError, parse } from "csv-parse/sync";
import { endOfWholeRows } from "../../../lib/csv_rows.ts";
import { unescapeCell } from "../../../schema/log_csv.ts";
import type { InfoField } from "csv-parse";
import { InputError } from "../../../schema/errors.ts";
import { COLUMNS, EPOCH_COLUMNS, type TableName } from "../../../schema/events.ts";
import { columnSpecs, ROW_SCHEMAS, type RowOf } from "../../../schema/column_kinds.ts";

import type { ReadLogCsvOptions } from "../../../runner/sinks/csv_read_batches.ts";

function countLines(text: string, end: number): number {
  let n = 1;
  for (let i = 0; i < end; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}

/**
 * The log reader as it was before it streamed (the whole file read into one
 * string, parsed by csv-parse/sync): the reference that the streaming reader
 * must match, rows, errors and warnings alike.
 */
export async function readLogCsvWhole<T extends TableName>(
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
        return unescapeCell(value); // contract 1.2, as runner/sinks/csv_read_batches.ts
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
    // The epoch column (contract 1.6) is not part of a row, as in runner/sinks/csv_read_batches.ts.
    for (let i = 0; i < expected.length; i++) {
      if (expected[i] !== EPOCH_COLUMNS[table].name) obj[expected[i]!] = cells[i];
    }
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
