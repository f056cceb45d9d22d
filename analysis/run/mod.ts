/**
 * Reading a run folder: the raw event log (CSV or Parquet, shards
 * concatenated, sha256 verified against run.json) checked against the
 * contract in `schema/`, and how the run ended (complete, killed, cut).
 *
 * Entry points: {@linkcode loadRun} (every table in memory, a
 * {@linkcode LoadedRun}) and {@linkcode scanRun} (lazy frames for logs too big
 * for memory, a {@linkcode ScannedRun}); `run_end.ts` says where an
 * incomplete log ends and clips the stages there (`run_end_decide.ts`: under
 * an SLO policy's e2e limits); `imported_run.ts` says
 * what a run imported from another tool's file lacks (its caveats);
 * `production_run.ts` what a production recording's numbers mean (offered,
 * measurement seconds, sampling, drops) and where a recording still open
 * ends; `run_quality.ts` reads a run's quality verdicts beside it
 * ({@linkcode withQuality}). The `_` files (column dtypes, file scans, row checks, shard sets, a
 * recording's parts, restored rows, CSV cells) are private to this folder.
 *
 * @module
 */
export * from "./imported_run.ts";
export * from "./production_run.ts";
export * from "./loaded_run.ts";
export * from "./load_run.ts";
export * from "./run_end.ts";
export * from "./run_end_decide.ts";
export * from "./run_quality.ts";
export * from "./scan_run.ts";
export * from "./scanned_run.ts";
