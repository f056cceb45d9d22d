import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import pl from "nodejs-polars";
import { RunManifest } from "../../schema/mod.ts";
import type { RequestRow, RunManifest as Manifest } from "../../schema/mod.ts";
import { type FinaliseOptions, finaliseRun } from "../../runner/finalise.ts";
import { CsvSink } from "../../runner/sinks/csv_sink.ts";
import { readLogCsv } from "../../runner/sinks/csv_read.ts";
import { writeCsvSchema } from "../../runner/sinks/csv_schema.ts";
import { csvSchema, parquetMetadata } from "../../schema/log_metadata.ts";
import { parquetMetadata as readParquetMetadata } from "hyparquet";
import { makeManifest } from "../analysis/_fixture.ts";
import { attemptRow, requestRow, toolRow } from "./sinks/_rows.ts";

/** makeManifest's epoch_iso (2026-01-01T00:00:00.000Z) in ms since the Unix epoch: the sinks' epoch column base. */
const FIXTURE_EPOCH_MS = Date.parse("2026-01-01T00:00:00.000Z");

const STAGES = [{ name: "steady", kind: "steady" as const, start_ms: 0, end_ms: 1000, offered_rps: 5 }];

/** Five requests: lags 1, 2, 3, 9, 0.5 ms; outcomes ok, ok, timeout, not_sent (the stop's), client_shed. */
const ROWS: RequestRow[] = [
  requestRow({ request_id: "r1", stage: "steady", send_lag_ms: 1 }),
  requestRow({ request_id: "r2", stage: "steady", send_lag_ms: 2 }),
  requestRow({ request_id: "r3", stage: "steady", send_lag_ms: 3, outcome: "timeout", error_kind: "timeout" }),
  requestRow({ request_id: "r4", stage: "steady", send_lag_ms: 9, outcome: "not_sent", error_kind: "run_stopped" }),
  requestRow({ request_id: "r5", stage: "steady", send_lag_ms: 0.5, outcome: "client_shed", error_kind: "shed" }),
];

const OPTIONS: FinaliseOptions = {
  clock: { now: () => 1234.5, epochUnixMs: 0 },
  targets: [],
  serverTimeline: false,
  interrupted: false,
  retries: 0,
  retryBudgetExhausted: 0,
  retryPastDeadline: 0,
};

/** A run folder as the runner leaves it before finalisation: the three logs as CSV, and `extra` files. */
function runFolder(
  formats: Manifest["runner"]["formats"],
  scheduled = ROWS.length,
  extra: Record<string, Uint8Array> = {},
) {
  const dir = Deno.makeTempDirSync({ prefix: "finalise_test_" });
  const requests = CsvSink.open(dir, "requests", { epochMs: FIXTURE_EPOCH_MS });
  ROWS.forEach((r) => requests.append(r));
  requests.close();
  const attempts = CsvSink.open(dir, "attempts", { epochMs: FIXTURE_EPOCH_MS });
  attempts.append(attemptRow({ request_id: "r1" }));
  attempts.close();
  const tools = CsvSink.open(dir, "tools", { epochMs: FIXTURE_EPOCH_MS });
  tools.append(toolRow({ request_id: "r1" }));
  tools.close();
  for (const [name, bytes] of Object.entries(extra)) Deno.writeFileSync(join(dir, name), bytes);
  const base = makeManifest(STAGES, { run_id: "run-1" });
  // The runner writes each CSV's schema sidecar at ms 0 (runner/execute.ts).
  const identity = { run_id: base.run_id, epoch_iso: base.epoch_iso };
  for (const table of ["requests", "attempts", "tools"] as const) writeCsvSchema(dir, table, { identity });
  const manifest = RunManifest.parse({
    ...base,
    plan: { ...base.plan, scheduled_requests: scheduled },
    runner: { ...base.runner, formats },
  });
  return { dir, manifest };
}

const sha256 = (file: string) => createHash("sha256").update(Deno.readFileSync(file)).digest("hex");

Deno.test("finaliseRun records the client verdict, the counts and every file's sha256 in one pass", async () => {
  // 8 MiB + 3 bytes: the file hash crosses its 8 MiB read size.
  const big = new Uint8Array((8 << 20) + 3).map((_, i) => i % 251);
  const { dir, manifest } = runFolder(["csv", "parquet"], ROWS.length, { "outputs.jsonl": big });
  try {
    const { manifest: done, summary } = await finaliseRun(dir, manifest, OPTIONS);
    // Lags sorted 0.5, 1, 2, 3, 9: nearest-rank p99 is the ceil(0.99 × 5) = 5th, 9 ms; max 9 (figures). Not behind:
    // r4's not_sent is the stop's (run_stopped). Shed: r5, the only reason (5 requests support no lag percentile, and
    // none lagged past the 200 ms gap of 5 req/s).
    assert.deepEqual(
      {
        offered: done.result.offered,
        not_sent: done.result.not_sent,
        client_shed: done.result.client_shed,
        p99: done.result.send_lag_p99_ms,
        max: done.result.send_lag_max_ms,
        limited: done.result.client_limited,
        reason: done.result.client_limit_reason,
        ended_ms: done.result.ended_ms,
      },
      {
        offered: 5,
        not_sent: 1,
        client_shed: 1,
        p99: 9,
        max: 9,
        limited: true,
        reason: "1 requests shed by the runner's in-flight cap",
        ended_ms: 1234.5,
      },
    );
    assert.equal(summary.offered, 5);
    assert.equal(summary.lagged, 5);
    assert.deepEqual([...summary.byOutcome], [["ok", 2], ["timeout", 1], ["not_sent", 1], ["client_shed", 1]]);
    assert.deepEqual([...summary.byStage.keys()], ["steady"]);
    // Every file but run.json, each with its sha256; run.json on disk is the manifest returned.
    const names = [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n !== "run.json").sort();
    assert.deepEqual(Object.keys(done.files).sort(), names);
    assert.deepEqual(names, [
      "attempts.csv",
      "attempts.parquet",
      "attempts.schema.json",
      "outputs.jsonl",
      "requests.csv",
      "requests.parquet",
      "requests.schema.json",
      "tools.csv",
      "tools.parquet",
      "tools.schema.json",
    ]);
    for (const n of names) assert.equal(done.files[n], sha256(join(dir, n)), n);
    assert.deepEqual(JSON.parse(Deno.readTextFileSync(join(dir, "run.json"))), done);
    // The Parquet tables hold the CSV's rows.
    const csv = await readLogCsv(join(dir, "requests.csv"), "requests");
    const pq = pl.readParquet(join(dir, "requests.parquet")).toRecords();
    assert.deepEqual(
      pq.map((r) => [r.request_id, r.outcome, r.send_lag_ms]),
      csv.map((r) => [r.request_id, r.outcome, r.send_lag_ms]),
    );
    // Each file describes itself with run.json's run_id and epoch: Parquet in its metadata, CSV in its sidecar.
    const identity = { run_id: "run-1", epoch_iso: done.epoch_iso };
    for (const table of ["requests", "attempts", "tools"] as const) {
      const meta = readParquetMetadata(Deno.readFileSync(join(dir, `${table}.parquet`)).buffer);
      assert.deepEqual(meta.key_value_metadata, parquetMetadata(table, identity), table);
      assert.match(meta.created_by ?? "", /^goodput-runner /);
      const sidecar = JSON.parse(Deno.readTextFileSync(join(dir, `${table}.schema.json`)));
      assert.deepEqual(sidecar, csvSchema(table, identity), table);
    }
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("finaliseRun with Parquet only removes the CSV logs and hashes what is left", async () => {
  const { dir, manifest } = runFolder(["parquet"]);
  try {
    const { manifest: done } = await finaliseRun(dir, manifest, OPTIONS);
    // The CSVs and their schema sidecars are gone.
    assert.deepEqual(Object.keys(done.files).sort(), ["attempts.parquet", "requests.parquet", "tools.parquet"]);
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name).sort(), [
      "attempts.parquet",
      "requests.parquet",
      "run.json",
      "tools.parquet",
    ]);
    assert.equal(pl.readParquet(join(dir, "requests.parquet")).height, 5);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("finaliseRun refuses an open-loop log with fewer rows than scheduled and leaves no Parquet behind", async () => {
  const { dir, manifest } = runFolder(["csv", "parquet"], 6);
  try {
    await assert.rejects(finaliseRun(dir, manifest, OPTIONS), /5 request rows for 6 scheduled requests/);
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name).sort(), [
      "attempts.csv",
      "attempts.schema.json",
      "requests.csv",
      "requests.schema.json",
      "tools.csv",
      "tools.schema.json",
    ]);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
