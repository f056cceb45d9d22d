import pl from "nodejs-polars";
import { InputError } from "../../schema/errors.ts";
import type { TableName } from "../../schema/events.ts";
import { assembleRun, openRun, type OpenRunOptions } from "./_open_run.ts";
import { checkFrame } from "./_row_checks.ts";
import { checkRowJoins, withoutStrays } from "./_row_joins.ts";
import type { LoadedRun } from "./loaded_run.ts";

/** Options for {@linkcode loadRun}. */
export type LoadRunOptions = OpenRunOptions;

/**
 * Reads a run folder (run.json + requests/attempts/tools[/server] as
 * Parquet or CSV; Parquet when every shard has it) or a folder of
 * `shard-i-of-N/` folders, concatenated in shard order, into polars frames.
 *
 * Checks, each an {@linkcode InputError} naming the file: run.json against
 * the zod `RunManifest` (unknown schema major versions are refused), the
 * columns of every log file, and the sha256 of every file read against
 * run.json `files` (`verify: "warn"` turns a mismatch into a warning). A
 * run whose `result.status` is `running` (killed before finalising) loads
 * with a warning, and its unlisted files are not verified.
 *
 * Each file is a `scanCSV`/`scanParquet` scan with the casts and the column
 * selection, collected once, while its bytes stream through sha256 (8 MB
 * reads) on the JS thread; shards are then concatenated. For logs larger
 * than memory use `scanRun`, which keeps the tables lazy.
 * Frames are checked: never-null columns hold no null, outcomes are known.
 * A CSV whose last row lacks its line end (killed mid-write) is refused,
 * unless the run is `running`, when that row is dropped with a warning.
 *
 * @example A missing folder is an input error
 * ```ts
 * import { loadRun } from "./load_run.ts";
 * import assert from "node:assert/strict";
 * await assert.rejects(() => loadRun("/nonexistent-run"), /not a run folder|cannot read/);
 * ```
 */
export async function loadRun(path: string, options: LoadRunOptions = {}): Promise<LoadedRun> {
  const opened = await openRun(path, options);
  const frames: Record<TableName, pl.DataFrame[]> = { requests: [], attempts: [], tools: [], server: [], phases: [] };
  for (const tables of opened.shards) {
    // Each table is hashed and read at the same time (polars collects on its own threads), and the tables of a
    // folder are read concurrently: on 1M requests this hides most of the hashing.
    const read = await Promise.all(tables.map(async (opened) => {
      const { table, file, scan, verify } = opened;
      const [, df] = await Promise.all([
        verify(),
        scan.collect().catch((e: Error) => {
          throw new InputError(`${file}: cannot read ${table} log: ${e.message}`, [], { cause: e });
        }),
      ]);
      checkFrame(df, opened);
      return [table, df] as const;
    }));
    for (const [table, df] of read) frames[table].push(df);
  }
  // On the frames read: the joins' check reads no file again.
  const lazies = Object.fromEntries(Object.entries(frames).map(([t, fs]) => [t, fs.map((f) => f.lazy())]));
  const stray = checkRowJoins(path, lazies as Record<TableName, pl.LazyDataFrame[]>, opened);
  for (const { table, k, requests } of stray) {
    const ids = pl.concat(requests.map((j) => frames.requests[j]!.select("request_id")), { how: "vertical" });
    frames[table][k] = withoutStrays(frames[table][k]!, ids);
  }
  return assembleRun(path, opened, frames);
}
