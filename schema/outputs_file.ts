/**
 * A run's saved outputs (`outputs.jsonl`, written by `run --save-outputs`, runner/outputs_sink.ts): one JSON line per
 * answered request, `{request_id, text, tool_calls}`. The lines' contract and their parser, shared by the judge
 * (runner/judge/) and the blinded review (analysis/quality/review/), which each check the records against their run.
 *
 * @module
 */
import { z } from "zod";

/** The file name of a run's saved outputs. */
export const OUTPUTS_FILE = "outputs.jsonl";

/** One saved answer. */
export const OutputLine = z.object({ request_id: z.string().min(1), text: z.string(), tool_calls: z.string() })
  .strict();
export type OutputLine = z.infer<typeof OutputLine>;

/** The parsed lines of an outputs file. */
export interface OutputLines {
  /** Every whole line that parsed, with its 1-based line number. */
  records: { line: number; record: OutputLine }[];
  /** The number of a last line without its line end (the runner was killed while writing it), skipped; else null. */
  partialLine: number | null;
}

/**
 * Parses the bytes of an outputs file: each whole line as JSON, checked against {@linkcode OutputLine}; a line that is
 * not is a problem naming `file` and the line. A last line without its line end is skipped and reported.
 *
 * @example A good line, a bad one, and a line cut short
 * ```ts
 * import { parseOutputLines } from "./outputs_file.ts";
 * import assert from "node:assert/strict";
 * const problems: string[] = [];
 * const text = '{"request_id":"r1","text":"hi","tool_calls":"[]"}\n{"request_id":"r2"}\n{"request_id":"r3","te';
 * const out = parseOutputLines("outputs.jsonl", new TextEncoder().encode(text), problems);
 * assert.deepEqual(out.records.map((r) => [r.line, r.record.request_id]), [[1, "r1"]]);
 * assert.equal(out.partialLine, 3);
 * assert.match(problems[0]!, /^outputs\.jsonl: line 2: text: /);
 * ```
 */
export function parseOutputLines(file: string, bytes: Uint8Array, problems: string[]): OutputLines {
  const lines = new TextDecoder().decode(bytes).split("\n");
  const last = lines.pop()!;
  const records: OutputLines["records"] = [];
  lines.forEach((line, i) => {
    const at = `${file}: line ${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      problems.push(`${at}: not JSON: ${(e as Error).message}`);
      return;
    }
    const parsed = OutputLine.safeParse(value);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) problems.push(`${at}: ${issue.path.join(".")}: ${issue.message}`);
      return;
    }
    records.push({ line: i + 1, record: parsed.data });
  });
  return { records, partialLine: last === "" ? null : lines.length + 1 };
}
