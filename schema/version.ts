import { InputError } from "./errors.ts";

/** The event-log schema major version this code reads and writes. */
export const SCHEMA_VERSION = 1;

/**
 * The contract's minor version this code writes (run.json `schema_minor`).
 * A minor version adds nullable columns or a CSV cell rule that readers
 * apply by version: this reader reads every older minor (absent columns as
 * null, cells by the rule of their version) and refuses a newer one.
 *
 * - 1.0: the first contract.
 * - 1.1: requests `streamed`, `applicable_gates`, `service_mode`, `reasoning_tokens`, `cache_write_tokens`;
 *   attempts `streamed`, `service_mode`, `reasoning_tokens`, `cache_write_tokens`, `retry_after_ms`; run.json
 *   `workload.classes` and `drills`.
 * - 1.2: no new column; a string cell of a log CSV that starts with `=`, `+`, `-`, `@`, tab, CR or `'` is written with
 *   one `'` in front, which readers remove (schema/log_csv.ts `escapeCell`); Parquet holds the values as they are.
 * - 1.3: attempts, tools and server carry `run_id` (first column), so every table stands alone (a reader of an older
 *   log fills it from run.json); each Parquet file carries the contract, table, run_id, `epoch_iso` and the unit of
 *   every time column in its key-value metadata, and each CSV has a schema sidecar `<table>.schema.json` with the same
 *   and every column's type (schema/log_metadata.ts).
 * - 1.4: no new column; run.json may be an imported run's (`kind: "imported"`, schema/imported_manifest.ts): the
 *   tables written by `deno task import` from another tool's per-request file, with the tool, its files' sha256, the
 *   timeline the times were placed on and what the source lacks. A runner's run.json is unchanged.
 * - 1.5: a new table, `phases` (schema/events.ts `PhaseRow`), written by the recorder: the page, network,
 *   service and render phases of a recorded task; run.json may be a production recording's (`kind: "production"`,
 *   schema/production_manifest.ts): an observation window of a live app, not a planned load. A runner's and an
 *   importer's run.json are unchanged; the runner does not write the new table, and an importer writes it only for
 *   OpenTelemetry traces (`--from otlp`), whose tasks carry phases. The runner's `send_lag_ms`, `first_sent_ms` and
 *   attempts' `sent_ms` are taken when the request's first byte is written to the socket (before: when the runner
 *   began the request or handed the call to its HTTP client; schema/events.ts).
 * - 1.6: every table ends in an absolute time column, its anchor instant as ms since the Unix epoch
 *   (`Date.parse(epoch_iso)` + the anchor, float64): requests `scheduled_epoch_ms`, attempts `sent_epoch_ms`, tools
 *   and phases `started_epoch_ms`, server `t_epoch_ms` (schema/events.ts `EPOCH_COLUMNS`); a reader of an older log
 *   derives them from run.json `epoch_iso`.
 * - 1.7: attempts `service_tier_requested`, `service_tier` (the tier asked for and the tier the provider says served)
 *   and the provider's stated rate limits read off the response head: `rl_limit_requests`, `rl_remaining_requests`,
 *   `rl_limit_tokens`, `rl_remaining_tokens` (counts), `rl_reset_requests_ms`, `rl_reset_tokens_ms` (ms); an older
 *   log reads them as null.
 * - 1.8: no new column in the run's tables; a run may carry a quality table of its own beside them, `RUN/quality/`
 *   (schema/quality.ts): verdicts on its answers by rubric, from a model judge, blinded human raters or an
 *   adjudication, each part listed with its sha256 in `quality/quality.json`; a workload may carry rubrics
 *   (`rubrics.json`, schema/rubric.ts), whose hashes run.json records in `workload.rubric_hashes`. An older log has
 *   neither.
 */
export const SCHEMA_MINOR = 8;

/**
 * Rejects a log whose schema major version this code does not know.
 *
 * @example Version 1 passes, version 2 is refused
 * ```ts
 * import { assertSchemaVersion } from "./version.ts";
 * import assert from "node:assert/strict";
 * assertSchemaVersion(1, "run.json");
 * assert.throws(() => assertSchemaVersion(2, "run.json"), /schema_version 2/);
 * ```
 */
export function assertSchemaVersion(found: unknown, file: string): void {
  const major = typeof found === "string" ? Number(found.split(".")[0]) : found;
  if (major !== SCHEMA_VERSION) {
    throw new InputError(
      `${file}: schema_version ${String(found)} is not supported; this reader knows major version ${SCHEMA_VERSION}`,
    );
  }
}

/**
 * Rejects a log written under a newer minor version of the contract than this reader knows.
 *
 * @example 1.0 to 1.8 pass, 1.9 is refused
 * ```ts
 * import { assertSchemaMinor } from "./version.ts";
 * import assert from "node:assert/strict";
 * assertSchemaMinor(0, "run.json");
 * assertSchemaMinor(8, "run.json");
 * assert.throws(() => assertSchemaMinor(9, "run.json"), /schema_minor 9/);
 * ```
 */
export function assertSchemaMinor(minor: number, file: string): void {
  if (minor > SCHEMA_MINOR) {
    throw new InputError(
      `${file}: schema_minor ${minor} is newer than this reader (contract ${SCHEMA_VERSION}.${SCHEMA_MINOR}); update the toolkit`,
    );
  }
}
