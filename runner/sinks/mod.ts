/**
 * Log sinks of the runner: append-only CSV files flushed as whole lines
 * (crash-safe), a typed CSV reader, and the Parquet writer used at finalise.
 * Column types come from the zod row schemas (`schema/column_kinds.ts`).
 *
 * @example Append, flush, read back
 * ```ts
 * import { CsvSink, readLogCsv } from "./mod.ts";
 * import assert from "node:assert/strict";
 * const dir = Deno.makeTempDirSync();
 * // The epoch column (contract 1.6) of each row is run.json epoch_iso (here 2026-01-01T00:00:00Z) + started_ms.
 * const sink = CsvSink.open(dir, "tools", { epochMs: Date.parse("2026-01-01T00:00:00.000Z") });
 * sink.append({
 *   run_id: "run-1", request_id: "r1", round: 1, tool: "t", started_ms: 0.1, ended_ms: 0.30000000000000004, ok: true,
 *   error_kind: null,
 * });
 * sink.close();
 * const rows = await readLogCsv(`${dir}/tools.csv`, "tools");
 * assert.equal(rows[0]?.ended_ms, 0.1 + 0.2);
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
export * from "./csv_sink.ts";
export * from "./csv_read.ts";
export * from "./csv_read_batches.ts";
export * from "./parquet_writer.ts";
export * from "./csv_schema.ts";
