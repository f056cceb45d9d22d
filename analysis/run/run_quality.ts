import { readQuality } from "../../schema/quality_file.ts";
import type { LoadedRun } from "./loaded_run.ts";

/**
 * The run with its quality table (RUN/quality/, contract 1.8) read and checked (schema/quality_file.ts
 * `readQuality`): every verdict of one of the run's requests, by a rubric listed in the table and, when the run froze
 * its rubrics, the one run.json `workload.rubric_hashes` names. `quality` is null when the run has none. A table that
 * fails its checks is an `InputError` naming every problem. The input run is not changed.
 *
 * @example A run without a quality table
 * ```ts ignore
 * const run = await withQuality(await loadRun("out/run-1"));
 * console.log(run.quality === null ? "no verdicts" : `${run.quality.rows.length} verdicts`);
 * ```
 */
export async function withQuality(run: LoadedRun): Promise<LoadedRun> {
  const m = run.manifest;
  const hashes = "prompt_hashes" in m.workload ? m.workload.rubric_hashes : undefined;
  const requestIds = new Set(run.requests.getColumn("request_id").toArray() as string[]);
  const quality = await readQuality(run.dir, {
    runId: m.run_id,
    requestIds,
    ...(hashes ? { rubricHashes: hashes } : {}),
  });
  return { ...run, quality };
}
