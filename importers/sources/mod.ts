/**
 * The readers of peer tools' result files, each into the neutral {@linkcode SourceRun} of `importers/source.ts`, and
 * `readSource(tool, files)`, which reads the files from disk and dispatches on the tool.
 *
 * This part holds inference-perf, LLMPerf, MLPerf LoadGen and the generic mapped JSONL/CSV; vLLM bench serve,
 * GuideLLM and AIPerf have their own readers.
 *
 * @example A generic CSV read through its mapping
 * ```ts
 * import assert from "node:assert/strict";
 * import { readSource } from "./mod.ts";
 * const run = await readSource("generic", [
 *   "data/import-examples/generic_requests.csv",
 *   "data/import-examples/generic_mapping.json",
 * ]);
 * assert.equal(run.requests.length, 6);
 * ```
 * @module
 */
import { InputError } from "../../schema/errors.ts";
import type { SourceRun, SourceTool } from "../source.ts";
import { loadSourceTexts, type SourceText } from "./_source_text.ts";
import { readGeneric } from "./generic.ts";
import { readInferencePerf } from "./inference_perf.ts";
import { readLlmperf } from "./llmperf.ts";
import { readMlperfLoadgen } from "./mlperf_loadgen.ts";

export { loadSourceTexts, type SourceText, sourceText } from "./_source_text.ts";
export { readGeneric, readImportMapping } from "./generic.ts";
export { readInferencePerf, UNSTAGED } from "./inference_perf.ts";
export { readLlmperf } from "./llmperf.ts";
export { readMlperfLoadgen } from "./mlperf_loadgen.ts";

const READERS: Partial<Record<SourceTool, (files: SourceText[]) => SourceRun>> = {
  "inference-perf": readInferencePerf,
  "llmperf": readLlmperf,
  "mlperf-loadgen": readMlperfLoadgen,
  "generic": readGeneric,
};

/** Reads a tool's files (paths) into a {@linkcode SourceRun}; a file that cannot be read or parsed is an InputError. */
export async function readSource(tool: SourceTool, files: string[]): Promise<SourceRun> {
  const reader = READERS[tool];
  if (!reader) throw new InputError(`${tool}: no reader in this part (vLLM, GuideLLM and AIPerf are read elsewhere)`);
  if (files.length === 0) throw new InputError(`${tool}: no file given`);
  return reader(await loadSourceTexts(files));
}
