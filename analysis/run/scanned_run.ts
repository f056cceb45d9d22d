import type pl from "nodejs-polars";
import type { AnyManifest } from "../../schema/imported_manifest.ts";
import type { RunEnd } from "./run_end.ts";
import type { ShardSet } from "./_shard_set.ts";
import type { PartRead } from "./production_run.ts";

/** The lazy tables of one shard folder (a run that is not sharded has one; a production recording, one per part). */
export interface ScannedShard {
  /** The shard's folder. */
  dir: string;
  requests: pl.LazyDataFrame;
  attempts: pl.LazyDataFrame;
  tools: pl.LazyDataFrame;
  server: pl.LazyDataFrame | null;
  phases: pl.LazyDataFrame;
}

/**
 * A run opened lazily by `scanRun`: the manifest and the log tables as
 * polars lazy scans (columns and dtypes as in schema/events.ts, shards
 * concatenated). Nothing of a table is held in memory until a query over it
 * is collected, so a log larger than memory can be analysed with queries
 * that aggregate (`goodput` accepts a `ScannedRun`). `shards` keeps each
 * shard folder's tables apart: a request's attempts are in its own shard, so
 * per-request work can run one shard at a time.
 */
export interface ScannedRun {
  /** The folder that was read. */
  dir: string;
  manifest: AnyManifest;
  manifests: AnyManifest[];
  /** Which files are scanned. */
  format: "csv" | "parquet";
  requests: pl.LazyDataFrame;
  attempts: pl.LazyDataFrame;
  tools: pl.LazyDataFrame;
  /** The target's own timeline, when the run has one. */
  server: pl.LazyDataFrame | null;
  /**
   * The measured phases of recorded tasks (contract 1.5 `phases`, schema/events.ts `PhaseRow`): page, network,
   * service, render and the app's own phases. Written only by the recorder: empty for a runner's or an imported run.
   */
  phases: pl.LazyDataFrame;
  /** A production recording's parts as read (folder, format, tables found), in part order; absent for other runs. */
  parts?: PartRead[];
  /** Each shard folder's tables, in shard order. */
  shards: ScannedShard[];
  /**
   * How the run ended and where its log ends. For an incomplete run,
   * `manifest.stages` are clipped at `end.cut_ms` (`end.planned_stages` keeps
   * run.json's) and a killed run's requests include the rows restored from its
   * schedule (error_kind `restored_from_schedule`).
   */
  end: RunEnd;
  /**
   * The run's shard count N and the shards read; `missing` is non-empty only
   * when a partial set was allowed (`allowPartialShards`). Absent: one whole
   * run folder.
   */
  shard_set?: ShardSet;
  /** Loud warnings raised while opening (a hash mismatch downgraded by option, a killed run, ...). */
  warnings: string[];
}
