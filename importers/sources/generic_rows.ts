/**
 * The rows of a per-request JSONL or CSV file, each with the line it sits on, as `column → cell` maps: a CSV's header
 * names the columns (every cell a string, empty = missing); a JSONL line is one JSON object (a dotted column name
 * reaches into nested objects when no key has that exact name).
 *
 * @module
 */
import { parse } from "csv-parse/sync";
import { InputError } from "../../schema/errors.ts";
import { baseName, parseJson, type SourceText } from "./_source_text.ts";

/** One data row: its 1-based line and its cells. */
export interface DataRow {
  line: number;
  cell: (column: string) => unknown;
}

/** A data file's rows and the columns it has (a CSV's header; the union of a JSONL's keys). */
export interface DataFile {
  rows: DataRow[];
  columns: Set<string>;
  format: "csv" | "jsonl";
}

/** Reads a `.csv` or `.jsonl` file; anything else, or a broken line, is an InputError naming file and line. */
export function readDataFile(file: SourceText): DataFile {
  const name = baseName(file.path).toLowerCase();
  if (name.endsWith(".csv")) return readCsv(file);
  if (name.endsWith(".jsonl") || name.endsWith(".ndjson")) return readJsonl(file);
  throw new InputError(`${file.path}: a generic per-request file is .csv or .jsonl`);
}

function readCsv(file: SourceText): DataFile {
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(file.text, { info: true, skip_empty_lines: true, bom: true }) as unknown as typeof records;
  } catch (e) {
    const line = (e as { lines?: number }).lines;
    throw new InputError(`${file.path}${line ? `:${line}` : ""}: not valid CSV (${(e as Error).message})`, [], {
      cause: e,
    });
  }
  const header = records.shift();
  if (!header) throw new InputError(`${file.path}: empty (no header line)`);
  const index = new Map(header.record.map((c, i) => [c.trim(), i]));
  return {
    format: "csv",
    columns: new Set(index.keys()),
    rows: records.map(({ record, info }) => ({
      line: info.lines,
      cell: (c) => {
        const i = index.get(c);
        const v = i === undefined ? undefined : record[i];
        return v === undefined || v === "" ? null : v;
      },
    })),
  };
}

function readJsonl(file: SourceText): DataFile {
  const rows: DataRow[] = [];
  const columns = new Set<string>();
  file.text.split("\n").forEach((raw, i) => {
    const text = raw.replace(/\r$/, "");
    if (text.trim() === "") return;
    const value = parseJson(text, file.path, { line: i + 1 });
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      throw new InputError(`${file.path}:${i + 1}: a JSONL line is one JSON object`);
    }
    const o = value as Record<string, unknown>;
    for (const k of Object.keys(o)) columns.add(k);
    rows.push({ line: i + 1, cell: (c) => lookup(o, c) });
  });
  return { format: "jsonl", columns, rows };
}

/** A key, or a dotted path into nested objects when no key has that exact name. */
function lookup(o: Record<string, unknown>, column: string): unknown {
  if (column in o) return o[column] ?? null;
  let v: unknown = o;
  for (const part of column.split(".")) {
    if (v === null || typeof v !== "object") return null;
    v = (v as Record<string, unknown>)[part];
  }
  return v ?? null;
}

/** Whether a JSONL file has a (possibly dotted) column in any row. */
export function hasColumn(file: DataFile, column: string): boolean {
  if (file.columns.has(column)) return true;
  return file.format === "jsonl" && column.includes(".") && file.rows.some((r) => r.cell(column) !== null);
}
