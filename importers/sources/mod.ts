/**
 * The readers of peer tools' result files, each into the neutral {@linkcode SourceRun} of `importers/source.ts`, and
 * {@linkcode readSource}, which reads the files from disk and picks the reader by tool name: vLLM bench serve,
 * GuideLLM, AIPerf, GenAI-Perf, inference-perf, LLMPerf, MLPerf LoadGen, the generic mapped JSONL/CSV and OpenTelemetry traces
 * (OTLP/JSON).
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
 * @example A tool no reader knows is refused
 * ```ts
 * import assert from "node:assert/strict";
 * import { readSource } from "./mod.ts";
 * await assert.rejects(() => readSource("no-such-tool" as never, ["x.json"]), /no reader/);
 * ```
 * @module
 */
import { InputError } from "../../schema/errors.ts";
import type { SourceRun, SourceTool } from "../source.ts";
import { loadSourceTexts } from "./_source_text.ts";
import { readAiperf } from "./aiperf.ts";
import { readGeneric } from "./generic.ts";
import { readGenaiPerf } from "./genai_perf.ts";
import { readGuidellm } from "./guidellm.ts";
import { readInferencePerf } from "./inference_perf.ts";
import { readLlmperf } from "./llmperf.ts";
import { readMlperfLoadgen } from "./mlperf_loadgen.ts";
import { readOtlp } from "./otlp.ts";
import { readVllmBench } from "./vllm_bench.ts";

export { loadSourceTexts, type SourceText, sourceText } from "./_source_text.ts";
export { parseAiperf, readAiperf } from "./aiperf.ts";
export { parseGenaiPerf, readGenaiPerf } from "./genai_perf.ts";
export { readGeneric, readImportMapping } from "./generic.ts";
export { parseGuidellm, readGuidellm } from "./guidellm.ts";
export { readInferencePerf, UNSTAGED } from "./inference_perf.ts";
export { readLlmperf } from "./llmperf.ts";
export { readMlperfLoadgen } from "./mlperf_loadgen.ts";
export { readOtlp } from "./otlp.ts";
export { parseVllmBench, readVllmBench } from "./vllm_bench.ts";

/** Each tool's reader, from the paths of its files. */
const READERS: Record<SourceTool, (files: string[]) => Promise<SourceRun>> = {
  "vllm-bench-serve": readVllmBench,
  "guidellm": readGuidellm,
  "aiperf": readAiperf,
  "inference-perf": async (files) => readInferencePerf(await loadSourceTexts(files)),
  "llmperf": async (files) => readLlmperf(await loadSourceTexts(files)),
  "mlperf-loadgen": async (files) => readMlperfLoadgen(await loadSourceTexts(files)),
  "generic": async (files) => readGeneric(await loadSourceTexts(files)),
  "otlp": async (files) => readOtlp(await loadSourceTexts(files)),
  "genai-perf": readGenaiPerf,
};

/** Reads `files` (paths) as `tool`'s result files. Bad input is an InputError naming the file and the key or line. */
export async function readSource(tool: SourceTool, files: string[]): Promise<SourceRun> {
  const reader = Object.hasOwn(READERS, tool) ? READERS[tool] : undefined;
  if (!reader) throw new InputError(`no reader for the tool "${tool}"`);
  if (files.length === 0) throw new InputError(`${tool}: no file given`);
  return await reader(files);
}
