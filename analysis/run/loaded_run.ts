import type pl from "nodejs-polars";
import type { AnyManifest } from "../../schema/imported_manifest.ts";
import type { RunEnd } from "./run_end.ts";
import type { ShardSet } from "./_shard_set.ts";
import type { PartRead } from "./production_run.ts";
import type { QualityTable } from "../../schema/quality_file.ts";

/**
 * A run read back from its folder: the manifest and the log tables as
 * polars frames (columns as in schema/events.ts). Shards of one logical run
 * are concatenated; `manifest` is the first shard's, `manifests` all of them.
 */
export interface LoadedRun {
  /** The folder that was read. */
  dir: string;
  manifest: AnyManifest;
  manifests: AnyManifest[];
  /** Which files were read. */
  format: "csv" | "parquet";
  requests: pl.DataFrame;
  attempts: pl.DataFrame;
  tools: pl.DataFrame;
  /** The target's own timeline, when the run has one. */
  server: pl.DataFrame | null;
  /**
   * The measured phases of recorded tasks (contract 1.5 `phases`, schema/events.ts `PhaseRow`): page, network,
   * service, render and the app's own phases. Written only by the recorder: empty for a runner's or an imported run.
   */
  phases: pl.DataFrame;
  /** A production recording's parts as read (folder, format, tables found), in part order; absent for other runs. */
  parts?: PartRead[];
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
  /**
   * The run's quality verdicts (RUN/quality/, contract 1.8), read and checked by `withQuality`: null when the run has
   * no quality table; absent when it was not read (loadRun alone does not read it).
   */
  quality?: QualityTable | null;
  /** Loud warnings raised while loading (a hash mismatch downgraded by option, a killed run, ...). */
  warnings: string[];
}
