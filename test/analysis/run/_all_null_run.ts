/**
 * A runner's run whose optional columns are null in every row, written by the runner's own writers (`CsvSink`, the
 * schema sidecars and `csvToParquet`, as runner/finalise.ts does): the fixture of the epoch column and all-null dtype
 * tests, and the writer of `test/testdata/contract-1.8/` (and, before contract 1.8, of `contract-1.7/`; before 1.7, of
 * `contract-1.6/`).
 *
 * @module
 */
import { join } from "node:path";
import { CsvSink } from "../../../runner/sinks/csv_sink.ts";
import { writeCsvSchema } from "../../../runner/sinks/csv_schema.ts";
import { csvToParquet } from "../../../runner/sinks/parquet_writer.ts";
import { epochMsOf } from "../../../schema/events.ts";
import type { RunManifest } from "../../../schema/run_manifest.ts";
import { att, makeManifest, req, sha256, writeManifest } from "../_fixture.ts";

/** ms 0 of the run: 2026-01-01T00:00:00.000Z = 1,767,225,600,000 ms since the Unix epoch. */
export const EPOCH_ISO = "2026-01-01T00:00:00.000Z";

const STAGES = [{ name: "s", kind: "steady" as const, start_ms: 0, end_ms: 10_000, offered_rps: 0.2 }];

/**
 * Two requests that failed before any answer (a transport error, so no status, token, gate or mode is known), one
 * attempt each, a tool step with no error kind and two server seconds: every nullable column is null in every row.
 */
export const ALL_NULL_TABLES = {
  requests: ["q1", "q2"].map((id, i) =>
    req({
      request_id: id,
      class: "c",
      stage: "s",
      scheduled_ms: 1234.5 + 1000 * i,
      send_lag_ms: null,
      first_sent_ms: null,
      outcome: "transport_error",
      http_status: null,
      output_tokens: 0,
      finish_reason: null,
      output_valid: null,
      quality_ok: null,
      safety_ok: null,
      auth_ok: null,
      quality_detail: null,
      streamed: null,
    })
  ),
  attempts: ["q1", "q2"].map((id, i) =>
    att({ request_id: id, sent_ms: 1240.25 + 1000 * i, http_status: null, token_source: null, streamed: null })
  ),
  tools: [{
    run_id: "fixture-run",
    request_id: "q1",
    round: 0,
    tool: "retrieval",
    started_ms: 1235,
    ended_ms: 1239.75,
    ok: true,
    error_kind: null,
  }],
  server: [1000, 2000].map((t) => ({
    run_id: "fixture-run",
    t_ms: t,
    route: "default",
    queue_len: 0,
    oldest_queued_ms: 0,
    running: 1,
    replicas: 1,
    replicas_warming: 0,
    shed: 0,
    rate_limited: 0,
    errors: 1,
    admitted: 1,
    finished: 0,
    kv_tokens: 0,
  })),
} as const;

/** Writes the run into `dir` as CSV (with sidecars) and, with `parquet`, as Parquet too; returns `dir`. */
export async function writeAllNullRun(dir: string, parquet: boolean): Promise<string> {
  Deno.mkdirSync(dir, { recursive: true });
  const manifest: RunManifest = makeManifest(STAGES, { epoch_iso: EPOCH_ISO });
  const identity = { run_id: manifest.run_id, epoch_iso: EPOCH_ISO };
  const files: Record<string, string> = {};
  for (const table of ["requests", "attempts", "tools", "server"] as const) {
    const sink = CsvSink.open(dir, table, { epochMs: epochMsOf(EPOCH_ISO) });
    for (const row of ALL_NULL_TABLES[table]) sink.append(row as never);
    sink.close();
    writeCsvSchema(dir, table, { identity });
    files[`${table}.csv`] = sha256(join(dir, `${table}.csv`));
    if (parquet) {
      await csvToParquet(dir, table, { identity });
      files[`${table}.parquet`] = sha256(join(dir, `${table}.parquet`));
    }
  }
  const formats: RunManifest["runner"]["formats"] = parquet ? ["csv", "parquet"] : ["csv"];
  writeManifest(dir, { ...manifest, runner: { ...manifest.runner, formats }, files });
  return dir;
}
