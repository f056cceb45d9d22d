import type { parse as CsvParse } from "csv-parse/sync";
import { createRequire } from "node:module";
import { InputError } from "../../schema/errors.ts";

/** One arrival read from a trace: ms on the trace's own clock, and where it came from. */
export interface TraceRow {
  ms: number;
  line: number;
}

/** How to read the time of each row. */
export interface TraceReadOptions {
  format: "azure_csv" | "mooncake_jsonl" | "csv" | "jsonl";
  /** Column or key holding the time (csv/jsonl). */
  timeField?: string;
  /** Unit of numeric times (csv/jsonl). */
  timeUnit: "s" | "ms" | "us";
}

const UNIT_MS = { s: 1000, ms: 1, us: 0.001 } as const;
const AZURE_TIME = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?$/;

/**
 * Parses an Azure trace timestamp (`2023-11-16 18:17:03.9799600`, no time
 * zone) into whole seconds since 1970 and the fraction in ms, kept apart so
 * 100-ns digits survive (seconds × 1e7 would pass 2^53).
 */
function azureTime(text: string): { sec: number; fracMs: number } | undefined {
  const m = AZURE_TIME.exec(text.trim());
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return undefined;
  const frac = (m[7] ?? "").padEnd(9, "0");
  return { sec: Date.UTC(y, mo - 1, d, h, mi, s) / 1000, fracMs: Number(frac) / 1e6 };
}

function bad(file: string, line: number, what: string): InputError {
  return new InputError(`${file}: line ${line}: ${what}`);
}

/** Where a trace value was read, for the error that names it. */
interface TracePlace {
  file: string;
  line: number;
  field: string;
}

/** A trace's time value in ms, from `unit`; a value that is not a finite number is an error naming its place. */
function numericTime(value: unknown, unit: keyof typeof UNIT_MS, at: TracePlace): number {
  const { file, line, field } = at;
  const n = typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : NaN;
  if (!Number.isFinite(n)) {
    throw bad(file, line, `${field}: expected a number of ${unit}, got ${JSON.stringify(value)}`);
  }
  return n * UNIT_MS[unit];
}

// csv-parse is loaded by the first CSV trace read, not by every run (it costs start-up CPU).
const require = createRequire(import.meta.url);
let parse: typeof CsvParse | null = null;

function csvRecords(text: string, file: string): { record: Record<string, string>; info: { lines: number } }[] {
  try {
    parse ??= (require("csv-parse/sync") as { parse: typeof CsvParse }).parse;
    return parse(text, { columns: true, info: true, skip_empty_lines: true, bom: true, trim: true }) as unknown as {
      record: Record<string, string>;
      info: { lines: number };
    }[];
  } catch (e) {
    const line = (e as { lines?: unknown }).lines;
    const where = typeof line === "number" ? `line ${line}: ` : "";
    throw new InputError(`${file}: ${where}not a valid CSV trace: ${(e as Error).message}`, [], { cause: e });
  }
}

function jsonlObjects(text: string, file: string): { value: Record<string, unknown>; line: number }[] {
  const out: { value: Record<string, unknown>; line: number }[] = [];
  text.split("\n").forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (e) {
      throw new InputError(`${file}: line ${line}: not valid JSON: ${(e as Error).message}`, [], { cause: e });
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw bad(file, line, "expected a JSON object");
    }
    out.push({ value: value as Record<string, unknown>, line });
  });
  return out;
}

/**
 * Reads every arrival time of a trace text, in file order. Times are ms on
 * the trace's clock (Azure: since the first row's whole second). A row
 * without a readable, finite time is an {@linkcode InputError} naming
 * the file and line.
 */
export function readTraceRows(text: string, file: string, options: TraceReadOptions): TraceRow[] {
  const { format, timeUnit } = options;
  if (format === "azure_csv") {
    let base: number | undefined;
    return csvRecords(text, file).map(({ record, info }) => {
      const raw = record["TIMESTAMP"];
      if (raw === undefined) throw bad(file, info.lines, "missing column TIMESTAMP");
      const t = azureTime(raw);
      if (!t) {
        throw bad(file, info.lines, `TIMESTAMP: expected YYYY-MM-DD HH:MM:SS.fffffff, got ${JSON.stringify(raw)}`);
      }
      base ??= t.sec;
      return { ms: (t.sec - base) * 1000 + t.fracMs, line: info.lines };
    });
  }
  if (format === "mooncake_jsonl") {
    return jsonlObjects(text, file).map(({ value, line }) => {
      const ms = value["timestamp"];
      if (typeof ms !== "number" || !Number.isFinite(ms)) {
        throw bad(file, line, `timestamp: expected a number of ms, got ${JSON.stringify(ms)}`);
      }
      return { ms, line };
    });
  }
  const field = options.timeField;
  if (field === undefined) throw new InputError(`${file}: a ${format} trace needs arrivals.time_field`);
  if (format === "csv") {
    return csvRecords(text, file).map(({ record, info }) => {
      if (!(field in record)) throw bad(file, info.lines, `missing column ${field}`);
      return { ms: numericTime(record[field], timeUnit, { file, line: info.lines, field }), line: info.lines };
    });
  }
  return jsonlObjects(text, file).map(({ value, line }) => {
    if (!(field in value)) throw bad(file, line, `missing field ${field}`);
    return { ms: numericTime(value[field], timeUnit, { file, line, field }), line };
  });
}
