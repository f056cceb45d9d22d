import type pl from "nodejs-polars";
import type { RunManifest } from "../schema/mod.ts";

/**
 * A run read back from its folder: the manifest and the log tables as
 * polars frames (columns as in schema/events.ts). Shards of one logical run
 * are concatenated; `manifest` is the first shard's, `manifests` all of them.
 */
export interface LoadedRun {
  /** The folder that was read. */
  dir: string;
  manifest: RunManifest;
  manifests: RunManifest[];
  /** Which files were read. */
  format: "csv" | "parquet";
  requests: pl.DataFrame;
  attempts: pl.DataFrame;
  tools: pl.DataFrame;
  /** The target's own timeline, when the run has one. */
  server: pl.DataFrame | null;
  /** Loud warnings raised while loading (a hash mismatch downgraded by option, a killed run, ...). */
  warnings: string[];
}
