/**
 * Readers of peer tools' result files, each returning the neutral {@linkcode SourceRun} of `../source.ts`, and
 * {@linkcode readSource}, which picks the reader by tool name.
 *
 * @example A tool this build does not read is refused
 * ```ts
 * import assert from "node:assert/strict";
 * import { readSource } from "./mod.ts";
 * await assert.rejects(() => readSource("no-such-tool" as never, []), /no reader/);
 * ```
 * @module
 */
import { InputError } from "../../schema/errors.ts";
import type { SourceRun, SourceTool } from "../source.ts";
import { readAiperf } from "./aiperf.ts";
import { readGuidellm } from "./guidellm.ts";
import { readVllmBench } from "./vllm_bench.ts";

export { parseAiperf, readAiperf } from "./aiperf.ts";
export { parseGuidellm, readGuidellm } from "./guidellm.ts";
export { parseVllmBench, readVllmBench } from "./vllm_bench.ts";

/** Reads `files` (paths) as `tool`'s result files. Bad input is an InputError naming the file and the key or line. */
export function readSource(tool: SourceTool, files: string[]): Promise<SourceRun> {
  switch (tool) {
    case "vllm-bench-serve":
      return readVllmBench(files);
    case "guidellm":
      return readGuidellm(files);
    case "aiperf":
      return readAiperf(files);
    default:
      return Promise.reject(new InputError(`no reader for the tool "${tool}"`));
  }
}
