/**
 * The summary CSV that GenAI-Perf wrote and AIPerf kept: blocks separated by one empty line, each starting with a
 * `Metric,…` header (`Metric,avg,min,…` for the distributions, `Metric,Value` for the scalars), the unit only in the
 * label (`Time To First Token (ms)`).
 *
 * @module
 */
import { parse } from "csv-parse/sync";
import { InputError } from "../../schema/errors.ts";
import type { SourceText } from "./_source_text.ts";

/** One number of the CSV, where it stands. */
export interface MetricCell {
  /** 1-based line in the file. */
  line: number;
  /** The row's label as written, unit included. */
  label: string;
  /** The unit in the label's closing parentheses; "" when none. */
  unit: string;
  /** The column's header: a statistic (`avg`, `p99`, …) or `Value`. */
  stat: string;
  value: number;
}

/** How a tool writes its CSV. */
export interface MetricCsvOptions {
  /** Cells that mean "no value" besides the empty one (GenAI-Perf writes `N/A`). @default none */
  missing?: readonly string[];
  /** Numbers may carry thousands separators (`1,234.56`, quoted). @default false */
  thousands?: boolean;
  /**
   * What a block after the first without a `Metric,…` header is: `stop` (GenAI-Perf's optional GPU telemetry block
   * follows its two) or `error`. @default "error"
   */
  other?: "stop" | "error";
}

/**
 * Every number of a `Metric,…` CSV, block by block, row by row; a cell that is not a number, a row whose field count
 * differs from its header, or a block without a `Metric,…` header is an `InputError` naming the file and line.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { metricCsvCells } from "./_metric_csv.ts";
 * const text = "Metric,avg,p99\nTime To First Token (ms),12.5,N/A\n\nMetric,Value\nRequest Count,7\n";
 * const cells = metricCsvCells({ path: "x.csv", text }, { missing: ["N/A"] });
 * assert.deepEqual(cells.map((c) => [c.line, c.unit, c.stat, c.value]), [[2, "ms", "avg", 12.5], [5, "", "Value", 7]]);
 * ```
 */
export function metricCsvCells(src: Pick<SourceText, "path" | "text">, options: MetricCsvOptions = {}): MetricCell[] {
  const missing = new Set(["", ...(options.missing ?? [])]);
  const lines = src.text.split(/\r?\n/);
  const blank = lines.findIndex((l, i) => i > 0 && l.trim() === "");
  const blocks: [number, number][] = blank === -1 ? [[0, lines.length]] : [[0, blank], [blank + 1, lines.length]];
  const cells: MetricCell[] = [];
  for (const [from, to] of blocks) {
    let rows: string[][];
    try {
      rows = parse(lines.slice(from, to).join("\n"), { skip_empty_lines: true, relax_column_count: true });
    } catch (e) {
      throw new InputError(`${src.path}: not valid CSV after line ${from + 1}: ${(e as Error).message}`, [], {
        cause: e,
      });
    }
    const header = rows[0] ?? [];
    if (header[0] !== "Metric" || header.length < 2) {
      if (from > 0 && options.other === "stop") break;
      throw new InputError(
        `${src.path}:${from + 1}: a block must start with a "Metric,…" header, got "${header.join(",")}"`,
      );
    }
    for (const [j, row] of rows.slice(1).entries()) {
      const line = from + j + 2;
      if (row.length !== header.length) {
        throw new InputError(`${src.path}:${line}: ${row.length} fields, the header has ${header.length}`);
      }
      const label = row[0]!;
      const unit = /\(([^)]*)\)\s*$/.exec(label)?.[1] ?? "";
      for (const [k, cell] of row.slice(1).entries()) {
        if (missing.has(cell)) continue;
        const value = Number(options.thousands ? cell.replace(/,/g, "") : cell);
        if (!Number.isFinite(value)) {
          throw new InputError(`${src.path}:${line}: ${header[k + 1]}: "${cell}" is not a number`);
        }
        cells.push({ line, label, unit, stat: header[k + 1]!, value });
      }
    }
  }
  return cells;
}
