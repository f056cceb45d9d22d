/**
 * MLPerf LoadGen's two logs as key → value maps: `mlperf_log_summary.txt` ("Label : value" lines under "=====" section
 * titles, units only in the labels) and `mlperf_log_detail.txt` (one `:::MLLOG {json}` entry per line). Written by
 * mlcommons/inference `loadgen/results.cc` (`LogSummary`, `LogDetail`) and `loadgen/logging.cc`.
 *
 * @module
 */
import { z } from "zod";
import { InputError } from "../../schema/errors.ts";
import { checked, parseJson, type SourceText } from "./_source_text.ts";

/** One value read, with the line it came from (1-based). */
export interface LogValue {
  value: unknown;
  line: number;
}

/** A log read: the values by key (the first occurrence), and what the reader noticed. */
export interface ReadLog {
  values: Map<string, LogValue>;
  notes: string[];
  /** Detail log only: entries LoadGen marked as errors / warnings. */
  errors: number;
  warnings: number;
}

const RULE = /^=+\s*$/;
const SUMMARY_TITLE = "MLPerf Results Summary";
/** Labels a complete summary has: a file missing one was cut short (or is not a LoadGen summary). */
const SUMMARY_REQUIRED = ["Scenario", "Mode", "Result is", "target_qps", "min_duration (ms)"];

/** Reads `mlperf_log_summary.txt`. A value that is a number is returned as a number, else as its text. */
export function readSummaryLog(file: SourceText): ReadLog {
  const lines = file.text.split(/\r?\n/);
  if (!lines.some((l) => l.trim() === SUMMARY_TITLE)) {
    throw new InputError(`${file.path}: not an MLPerf LoadGen summary (no "${SUMMARY_TITLE}" section)`);
  }
  const values = new Map<string, LogValue>();
  const notes: string[] = [];
  const put = (key: string, value: unknown, line: number) => {
    const had = values.get(key);
    if (had === undefined) values.set(key, { value, line });
    else if (had.value !== value) {
      notes.push(
        `${file.path}:${line}: "${key}" is ${value} here but ${had.value} on line ${had.line}; the first kept`,
      );
    }
  };
  let inWarning = false; // a WARNING/ERROR paragraph runs on until a blank line
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const text = raw.trim();
    if (text === "") inWarning = false;
    if (text === "" || RULE.test(text) || /^\* /.test(text)) continue;
    if (inWarning) {
      notes[notes.length - 1] += ` ${text}`;
      continue;
    }
    const colon = raw.indexOf(":");
    if (colon < 0) {
      if (/^No (warnings|errors) encountered/.test(text)) notes.push(`${file.path}:${i + 1}: ${text}`);
      continue;
    }
    const key = raw.slice(0, colon).trim();
    let value = raw.slice(colon + 1).trim();
    if (/^(WARNING|ERROR)/.test(key)) {
      notes.push(`${file.path}:${i + 1}: ${text}`);
      inWarning = true;
      continue;
    }
    if (value === "") {
      // "TTFT Early Stopping Result:" is followed by " * Run successful." lines.
      const follow: string[] = [];
      while (i + 1 < lines.length && /^\s*\* /.test(lines[i + 1]!)) follow.push(lines[++i]!.trim());
      value = follow.join(" ");
      if (value === "") continue; // a heading such as "Recommendations:"
    }
    put(key, /^[+-]?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(value) ? Number(value) : value, i + 1);
  }
  const missing = SUMMARY_REQUIRED.filter((k) => !values.has(k));
  if (missing.length) {
    throw new InputError(
      `${file.path}: the summary ends at line ${lines.length} without ${missing.map((k) => `"${k}"`).join(", ")} ` +
        "(a file cut short, or not a complete LoadGen summary)",
    );
  }
  return { values, notes, errors: 0, warnings: 0 };
}

const Entry = z.looseObject({
  key: z.string(),
  value: z.unknown(),
  time_ms: z.number(),
  metadata: z.looseObject({ is_error: z.boolean(), is_warning: z.boolean() }),
});

/** Reads `mlperf_log_detail.txt`: every non-empty line must be a `:::MLLOG {json}` entry. */
export function readDetailLog(file: SourceText): ReadLog {
  const values = new Map<string, LogValue>();
  const notes: string[] = [];
  let errors = 0;
  let warnings = 0;
  const lines = file.text.split("\n");
  lines.forEach((raw, i) => {
    const line = raw.replace(/\r$/, "");
    if (line.trim() === "") return;
    const where = `${file.path}:${i + 1}`;
    if (!line.startsWith(":::MLLOG ")) throw new InputError(`${where}: not a ":::MLLOG {json}" line`);
    const json = line.slice(":::MLLOG ".length);
    const entry = checked(Entry, parseJson(json, file.path, { line: i + 1, column: ":::MLLOG ".length + 1 }), where);
    if (entry.metadata.is_error) {
      errors++;
      notes.push(`${where}: LoadGen logged an error: ${entry.key} = ${JSON.stringify(entry.value)}`);
    }
    if (entry.metadata.is_warning) {
      warnings++;
      notes.push(`${where}: LoadGen logged a warning: ${entry.key} = ${JSON.stringify(entry.value)}`);
    }
    if (!values.has(entry.key)) values.set(entry.key, { value: entry.value, line: i + 1 });
  });
  if (!values.has("result_validity")) {
    throw new InputError(
      `${file.path}: no result_validity entry in ${lines.length} lines: the log ends before LoadGen's results ` +
        "(a file cut short, or a run that did not finish)",
    );
  }
  return { values, notes, errors, warnings };
}
