/**
 * The bytes of a log CSV: how a row of a log table becomes one CSV line. Runtime-neutral (no file access), so the
 * runner's sinks (Deno) and the recorder (Deno, Node, bundled) write the same bytes with one implementation.
 *
 * @module
 */
import { COLUMNS, EPOCH_COLUMNS, type TableName } from "./events.ts";
import { escapeCell } from "./log_csv.ts";
import { columnSpecs, type RowOf } from "./column_kinds.ts";

/** Characters that force a field into quotes. */
const NEEDS_QUOTES = /[",\n\r]/;

/**
 * Encodes rows as CSV lines in the dialect of `csv-stringify` with
 * `STRINGIFY_OPTIONS` (a test holds the two byte-identical): numbers as
 * `String(n)`, booleans as `true`/`false`, null as an empty field, the empty
 * string as `""`, and quotes only where a value needs them. Hand-written
 * because csv-stringify costs about 4× more per row, and the runner encodes
 * thousands of rows per second on its only thread.
 *
 * @example Null, the empty string, a quote and a number
 * ```ts
 * import { encodeCsvRows } from "./log_encode.ts";
 * import assert from "node:assert/strict";
 * assert.equal(encodeCsvRows([[null, "", 'say "hi"', 0.5, true]]), ',"","say ""hi""",0.5,true\n');
 * ```
 */
export function encodeCsvRows(rows: readonly (readonly unknown[])[]): string {
  let out = "";
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) {
      if (i > 0) out += ",";
      const v = row[i];
      if (v === null || v === undefined) continue;
      if (typeof v === "string") {
        if (v === "") out += '""';
        else if (NEEDS_QUOTES.test(v)) out += `"${v.replaceAll('"', '""')}"`;
        else out += v;
      } else if (typeof v === "number") out += String(v);
      else if (typeof v === "boolean") out += v ? "true" : "false";
      else throw new TypeError(`cannot write a ${typeof v} to a CSV log`);
    }
    out += "\n";
  }
  return out;
}

/** The `csv-stringify` options whose output {@linkcode encodeCsvRows} reproduces. */
export const STRINGIFY_OPTIONS = {
  cast: {
    boolean: (v: boolean) => (v ? "true" : "false"),
    number: (v: number) => String(v),
    string: (v: string) => (v === "" ? { value: "", quoted_empty: true } : v),
  },
  quoted_match: /\r/,
  record_delimiter: "\n",
};

/**
 * The header line of a log table's CSV: its column names in file order (`COLUMNS`), ending in a line end.
 *
 * @example
 * ```ts
 * import { logCsvHeader } from "./log_encode.ts";
 * import assert from "node:assert/strict";
 * assert.equal(logCsvHeader("tools"), "run_id,request_id,round,tool,started_ms,ended_ms,ok,error_kind,started_epoch_ms\n");
 * ```
 */
export function logCsvHeader(table: TableName): string {
  return encodeCsvRows([COLUMNS[table]]);
}

/** Per table, read once: which columns are strings (escaped, contract 1.2), and where its epoch column is (1.6). */
const LINE_LAYOUT = new Map<TableName, { strings: readonly boolean[]; epochAt: number; anchor: string }>();

/** What a log line needs beyond its row. */
export interface LogLineOptions {
  /**
   * run.json `epoch_iso` as ms since the Unix epoch (schema/events.ts `epochMsOf`), read once per file: the table's
   * epoch column (contract 1.6) is this + its anchor instant.
   */
  epochMs: number;
}

/**
 * One row of a log table as its CSV line (with the line end): the cells in `COLUMNS` order, a string cell escaped by
 * the contract's rule (schema/log_csv.ts `escapeCell`), the last cell the table's epoch column (`epochMs` + its anchor,
 * schema/events.ts `EPOCH_COLUMNS`), encoded by {@linkcode encodeCsvRows}. A row without a value for a column
 * (`undefined`) is refused with a `TypeError` naming the column: it would silently become null on disk.
 *
 * @example A tool row whose error starts like a formula
 * ```ts
 * import { logCsvLine } from "./log_encode.ts";
 * import assert from "node:assert/strict";
 * const line = logCsvLine("tools", {
 *   run_id: "r", request_id: "q1", round: 0, tool: "retrieval", started_ms: 1.5, ended_ms: 9.25, ok: false,
 *   error_kind: "-1",
 * }, { epochMs: 1767225600000 });
 * // started_epoch_ms = 1767225600000 + 1.5
 * assert.equal(line, "r,q1,0,retrieval,1.5,9.25,false,'-1,1767225600001.5\n");
 * ```
 */
export function logCsvLine<T extends TableName>(table: T, row: RowOf<T>, options: LogLineOptions): string {
  const columns = COLUMNS[table] as readonly string[];
  let layout = LINE_LAYOUT.get(table);
  if (!layout) {
    const strings = columnSpecs(table).map((c) => c.kind === "string");
    const epochAt = columns.indexOf(EPOCH_COLUMNS[table].name);
    LINE_LAYOUT.set(table, layout = { strings, epochAt, anchor: EPOCH_COLUMNS[table].of });
  }
  const { strings, epochAt } = layout;
  const r = row as Record<string, unknown>;
  const cells = new Array<unknown>(columns.length);
  for (let i = 0; i < columns.length; i++) {
    const name = columns[i]!;
    const v = i === epochAt ? epochCell(table, r[layout.anchor], options.epochMs) : r[name];
    if (v === undefined) throw new TypeError(`${table} row has no value for column ${name}`);
    cells[i] = strings[i] && typeof v === "string" ? escapeCell(v) : v;
  }
  return encodeCsvRows([cells]);
}

/**
 * The epoch column's value of a row of `table` whose anchor instant is `anchor`: `epochMs + anchor` (float64, the
 * anchor's fraction kept). An anchor that is not a number is a `TypeError` naming the column.
 */
export function epochCell(table: TableName, anchor: unknown, epochMs: number): number {
  if (typeof anchor !== "number") {
    throw new TypeError(`${table} row has no number in ${EPOCH_COLUMNS[table].of} for ${EPOCH_COLUMNS[table].name}`);
  }
  return epochMs + anchor;
}
