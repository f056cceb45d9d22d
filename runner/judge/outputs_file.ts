/**
 * A run's saved outputs (`outputs.jsonl`, written by `run --save-outputs`, runner/outputs_sink.ts): one JSON line per
 * answered request, `{request_id, text, tool_calls}`.
 *
 * @module
 */
import { join } from "node:path";
import { InputError } from "../../schema/errors.ts";
import { MAX_ROWS_INPUT_BYTES, readInputFile } from "../../schema/read_input.ts";
import { OUTPUTS_FILE, parseOutputLines } from "../../schema/outputs_file.ts";

export { OUTPUTS_FILE };

/** The saved outputs, read. */
export interface SavedOutputs {
  /** request_id → the answer's text. */
  texts: Map<string, string>;
  /** The file's bytes (for its sha256). */
  bytes: Uint8Array;
  /** A last line cut short (the run was killed mid-write), skipped; null when the file ends whole. */
  truncatedLine: number | null;
}

/**
 * Reads `RUN/outputs.jsonl`. A run without one (it ran without `--save-outputs`) is an {@linkcode InputError} saying
 * so; so is a bad line or a request saved twice, naming the line. A last line without its line end (the runner was
 * killed while writing it) is skipped and reported in `truncatedLine`.
 *
 * @example A run without saved outputs is refused with the flag that writes them
 * ```ts
 * import { readSavedOutputs } from "./outputs_file.ts";
 * import assert from "node:assert/strict";
 * await assert.rejects(readSavedOutputs(Deno.makeTempDirSync()), /--save-outputs/);
 * ```
 */
export async function readSavedOutputs(runDir: string): Promise<SavedOutputs> {
  const file = join(runDir, OUTPUTS_FILE);
  try {
    await Deno.stat(file);
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
    throw new InputError(
      `${runDir}: the run has no saved outputs (${OUTPUTS_FILE}): the judge scores the answers a run saved; run it ` +
        "again with --save-outputs",
    );
  }
  const bytes = await readInputFile(file, "saved outputs", MAX_ROWS_INPUT_BYTES);
  const problems: string[] = [];
  const texts = new Map<string, string>();
  const seen = new Map<string, number>();
  const parsed = parseOutputLines(file, bytes, problems);
  for (const { line, record } of parsed.records) {
    const first = seen.get(record.request_id);
    if (first !== undefined) {
      problems.push(`${file}: line ${line}: request_id "${record.request_id}" was saved before, on line ${first}`);
      continue;
    }
    seen.set(record.request_id, line);
    texts.set(record.request_id, record.text);
  }
  if (problems.length) throw new InputError(`${file}: the saved outputs failed their checks`, problems.slice(0, 20));
  return { texts, bytes, truncatedLine: parsed.partialLine };
}
