/** The recorder's version, written to run.json `recorder.version` and each Parquet file's `created_by`. */
export const RECORDER_VERSION = "0.1.0";
