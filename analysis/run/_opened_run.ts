import type { AnyManifest } from "../../schema/imported_manifest.ts";
import type { RunEnd } from "./run_end.ts";
import type { ShardSet } from "./_shard_set.ts";
import type { OpenedTable } from "./_scan_table.ts";
import type { PartRead } from "./production_run.ts";

/** A run folder (or its shard folders, or a recording's parts) opened: manifests checked, every table scanned. */
export interface OpenedRun {
  /**
   * The folders whose tables were read: the run folder itself, its shard folders in shard order, or a production
   * recording's part folders in part order.
   */
  dirs: string[];
  /** Each shard's run.json (one for a folder that is not sharded, and for a production recording). */
  manifests: AnyManifest[];
  /** `parquet` when every folder read holds Parquet (a recording: every part), else `csv`. */
  format: "csv" | "parquet";
  /** A production recording's parts as read (folder, format, tables found); null for other runs. */
  parts: PartRead[] | null;
  /** Per folder of `dirs`, its tables (server only when present; phases always, empty when absent). */
  shards: OpenedTable[][];
  /** How the run ended and where its log ends; `manifests`' stages are clipped there. */
  end: RunEnd;
  /** The run's shard count and which shards were read (`missing` is empty unless `allowPartialShards`). */
  shard_set: ShardSet;
  warnings: string[];
  /** Raises a warning (kept in `warnings` and passed to the caller's `onWarning`). */
  warning: (message: string) => void;
  /**
   * Whether folder `k`'s attempts, tools and phases may hold rows whose request the log does not (a killed shard, a
   * production recording's part): a warning there, refused elsewhere (`_row_joins.ts`).
   */
  lenient: (k: number) => boolean;
}
