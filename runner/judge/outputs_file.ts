/**
 * A run's saved outputs (`outputs.jsonl`, written by `run --save-outputs`, runner/outputs_sink.ts): one JSON line per
 * answered request, `{request_id, text, tool_calls}`.
 *
 * @module
 */
import { join } from "node:path";
import { z } from "zod";
import { InputError } from "../../schema/errors.ts";
import { MAX_ROWS_INPUT_BYTES, readInputFile } from "../../schema/read_input.ts";

/** The file name of a run's saved outputs. */
export const OUTPUTS_FILE = "outputs.jsonl";

const OutputLine = z.object({ request_id: z.string().min(1), text: z.string(), tool_calls: z.string() }).strict();

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
  const text = new TextDecoder().decode(bytes);
  const lines = text.split("\n");
  const last = lines.pop()!;
  const problems: string[] = [];
  const texts = new Map<string, string>();
  const seen = new Map<string, number>();
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
    const first = seen.get(parsed.data.request_id);
    if (first !== undefined) {
      problems.push(`${at}: request_id "${parsed.data.request_id}" was saved before, on line ${first}`);
      return;
    }
    seen.set(parsed.data.request_id, i + 1);
    texts.set(parsed.data.request_id, parsed.data.text);
  });
  if (problems.length) throw new InputError(`${file}: the saved outputs failed their checks`, problems.slice(0, 20));
  return { texts, bytes, truncatedLine: last === "" ? null : lines.length + 1 };
}
