import pl from "nodejs-polars";
import type { TableName } from "../../schema/events.ts";
import { assembleRun, openRun, type OpenRunOptions } from "./_open_run.ts";
import { checkScan } from "./_row_checks.ts";
import { checkRowJoins, withoutStrays } from "./_row_joins.ts";
import type { ScannedRun, ScannedShard } from "./scanned_run.ts";

/** Options for {@linkcode scanRun}. */
export type ScanRunOptions = OpenRunOptions;

/**
 * Opens a run folder like `loadRun`, with the same checks, but keeps every
 * table a polars lazy scan ({@linkcode ScannedRun}), for logs larger than
 * memory. Shards are concatenated lazily.
 *
 * Checks, each an `InputError` naming the file: run.json against the zod
 * `RunManifest`, the columns of every log file, the sha256 of every file
 * (streamed in 8 MB reads, never read whole), and the rows: never-null
 * columns hold no null and outcomes are known, with one aggregate query per
 * file that reads only those columns. Memory follows the largest shard file,
 * not the whole log; the tables returned hold nothing until collected.
 *
 * @example A missing folder is an input error
 * ```ts
 * import { scanRun } from "./scan_run.ts";
 * import assert from "node:assert/strict";
 * await assert.rejects(() => scanRun("/nonexistent-run"), /not a run folder|cannot read/);
 * ```
 */
export async function scanRun(path: string, options: ScanRunOptions = {}): Promise<ScannedRun> {
  const opened = await openRun(path, options);
  const scans: Record<TableName, pl.LazyDataFrame[]> = {
    requests: [],
    attempts: [],
    tools: [],
    server: [],
    phases: [],
  };
  const shards: ScannedShard[] = [];
  for (const [k, tables] of opened.shards.entries()) {
    const own: Partial<Record<TableName, pl.LazyDataFrame>> = {};
    // Each file's hash streams on the JS thread while polars counts its rows on its own threads.
    await Promise.all(
      tables.map((t) => Promise.all([t.verify(), checkScan(t.scan, t)])),
    );
    for (const { table, scan } of tables) {
      scans[table].push(scan);
      own[table] = scan;
    }
    shards.push({
      dir: opened.dirs[k]!,
      requests: own.requests!,
      attempts: own.attempts!,
      tools: own.tools!,
      server: own.server ?? null,
      phases: own.phases!,
    });
  }
  const stray = checkRowJoins(path, scans, opened);
  for (const { table, k, requests } of stray) {
    const ids = pl.concat(requests.map((j) => scans.requests[j]!.select("request_id")), { how: "vertical" });
    scans[table][k] = shards[k]![table] = withoutStrays(scans[table][k]!, ids);
  }
  return { ...assembleRun(path, opened, scans), shards };
}
