import assert from "node:assert/strict";
import { parquetMetadata as readParquetMetadata } from "hyparquet";
import pl from "nodejs-polars";
import { COLUMNS, TABLES } from "../../../schema/events.ts";
import { columnSpecs } from "../../../schema/column_kinds.ts";
import { parquetMetadata } from "../../../schema/log_metadata.ts";
import { CsvSink } from "../../../runner/sinks/csv_sink.ts";
import { readLogCsv } from "../../../runner/sinks/csv_read.ts";
import { csvToParquet, writeParquetFromRows } from "../../../runner/sinks/parquet_writer.ts";
import { AT_EPOCH, attemptRow, phaseRow, requestRow, serverRow, toolRow, withEpoch } from "./_rows.ts";

/** The run the files of these tests belong to. */
const identity = { run_id: "run-1", epoch_iso: "2026-01-01T00:00:00.000Z" };

/** The polars dtype each column kind must arrive as. */
const POLARS_DTYPE = { string: "String", int: "Int64", float: "Float64", boolean: "Bool" } as const;

function dtypeNames(df: pl.DataFrame): Record<string, string> {
  return Object.fromEntries(df.columns.map((name, i) => [name, String(df.dtypes[i]?.variant)]));
}

/** Polars may hand Int64 back as bigint; compare as plain numbers. */
function plain(records: Record<string, unknown>[]): Record<string, unknown>[] {
  return records.map((r) =>
    Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === "bigint" ? Number(v) : v]))
  );
}

Deno.test("Parquet from writeParquetFromRows reads back in polars with the same values, dtypes and nulls", async (t) => {
  const dir = Deno.makeTempDirSync({ prefix: "parquet_writer_test_" });
  const tables = {
    requests: [
      requestRow(),
      requestRow({
        request_id: "r-2",
        outcome: "not_sent",
        first_sent_ms: null,
        http_status: null,
        output_valid: null,
      }),
    ],
    attempts: [attemptRow(), attemptRow({ attempt: 2, http_status: 503, token_source: "usage", itl_max_ms: 1e-7 })],
    tools: [toolRow(), toolRow({ ok: false, error_kind: "timeout", tool: "" })],
    server: [serverRow(), serverRow({ t_ms: 2000.5 })],
    phases: [phaseRow(), phaseRow({ phase: "=queue", side: "service", clock_offset_ms: null, clock_error_ms: null })],
  };
  for (const table of TABLES) {
    await t.step(table, () => {
      const file = `${dir}/${table}.parquet`;
      const rows = tables[table];
      writeParquetFromRows(file, table, rows, { identity });
      const df = pl.readParquet(file);
      assert.deepEqual(df.columns, COLUMNS[table]);
      assert.deepEqual(
        dtypeNames(df),
        Object.fromEntries(columnSpecs(table).map((c) => [c.name, POLARS_DTYPE[c.kind]])),
      );
      // The epoch column is the identity's epoch (2026-01-01T00:00:00Z = 1767225600000 ms) + the anchor, exactly.
      assert.deepEqual(plain(df.toRecords() as Record<string, unknown>[]), withEpoch(table, rows));
    });
  }
  await t.step("nulls are counted as nulls, not as zero or empty", () => {
    const df = pl.readParquet(`${dir}/requests.parquet`);
    assert.equal(df.getColumn("first_token_ms").nullCount(), 2);
    assert.equal(df.getColumn("first_sent_ms").nullCount(), 1);
    assert.equal(df.getColumn("schema_ok").nullCount(), 2);
    assert.equal(df.getColumn("output_valid").nullCount(), 1);
    assert.equal(df.getColumn("output_sha256").nullCount(), 0);
  });
  Deno.removeSync(dir, { recursive: true });
});

Deno.test("writeParquetFromRows writes a typed file with zero rows", () => {
  const file = Deno.makeTempFileSync({ suffix: ".parquet" });
  writeParquetFromRows(file, "attempts", [], { identity });
  const df = pl.readParquet(file);
  assert.equal(df.height, 0);
  assert.equal(dtypeNames(df).sent_ms, "Float64");
  assert.equal(dtypeNames(df).attempt, "Int64");
  Deno.removeSync(file);
});

Deno.test("writeParquetFromRows refuses a non-integer in an integer column", () => {
  const file = Deno.makeTempFileSync({ suffix: ".parquet" });
  assert.throws(
    () => writeParquetFromRows(file, "tools", [toolRow({ round: 1.5 })], { identity }),
    /round is not an integer/,
  );
  Deno.removeSync(file);
});

Deno.test("csvToParquet converts a CsvSink log to the same rows", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "parquet_writer_test_" });
  const rows = Array.from({ length: 30 }, (_, i) =>
    requestRow({
      request_id: `r-${i}`,
      scheduled_ms: i / 3,
      completed_ms: i % 2 ? null : i * 1.1,
      quality_ok: i % 3 === 0 ? null : i % 3 === 1,
    }));
  const sink = CsvSink.open(dir, "requests", AT_EPOCH);
  rows.forEach((r) => sink.append(r));
  sink.close();
  assert.equal(await csvToParquet(dir, "requests", { identity }), 30);
  const df = pl.readParquet(`${dir}/requests.parquet`);
  assert.deepEqual(plain(df.toRecords() as Record<string, unknown>[]), withEpoch("requests", rows));
  assert.equal(df.getColumn("quality_ok").nullCount(), 10);
  assert.deepEqual(
    [...Deno.readDirSync(dir)].map((e) => e.name).sort(),
    ["requests.csv", "requests.parquet"],
  );
  Deno.removeSync(dir, { recursive: true });
});

Deno.test("csvToParquet writes row groups of rowGroupRows that polars reads back equal to the CSV", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "parquet_writer_test_" });
  const rows = Array.from({ length: 10 }, (_, i) =>
    requestRow({
      request_id: `r-${i}`,
      scheduled_ms: i * 0.1,
      send_lag_ms: i % 4 === 0 ? null : i / 7,
      outcome: i % 5 === 0 ? "timeout" : "ok",
      output_tokens: 2 ** 40 + i,
      quality_ok: i % 3 === 0 ? null : i % 3 === 1,
      service_mode: i % 2 ? null : `mode ${i}`,
    }));
  const sink = CsvSink.open(dir, "requests", AT_EPOCH);
  rows.forEach((r) => sink.append(r));
  sink.close();
  const seen: number[] = [];
  const n = await csvToParquet(dir, "requests", {
    identity,
    rowGroupRows: 4,
    onRows: (batch) => seen.push(batch.length),
  });
  assert.equal(n, 10);
  assert.deepEqual(seen, [4, 4, 2]);
  const file = `${dir}/requests.parquet`;
  // 10 rows in groups of at most 4: 4 + 4 + 2.
  const meta = readParquetMetadata(Deno.readFileSync(file).buffer);
  assert.deepEqual(meta.row_groups.map((g) => Number(g.num_rows)), [4, 4, 2]);
  assert.deepEqual(meta.key_value_metadata, parquetMetadata("requests", identity));
  // The analysis scans Parquet lazily (analysis/run/_open_run.ts); both ways give the CSV's rows, dtypes and nulls.
  const csv = await readLogCsv(`${dir}/requests.csv`, "requests");
  assert.deepEqual(csv, rows);
  for (const df of [pl.readParquet(file), pl.scanParquet(file).collectSync()]) {
    assert.deepEqual(
      dtypeNames(df),
      Object.fromEntries(columnSpecs("requests").map((c) => [c.name, POLARS_DTYPE[c.kind]])),
    );
    assert.deepEqual(plain(df.toRecords() as Record<string, unknown>[]), withEpoch("requests", csv));
    assert.equal(df.getColumn("send_lag_ms").nullCount(), 3);
  }
  Deno.removeSync(dir, { recursive: true });
});

Deno.test("csvToParquet leaves no Parquet file, final or partial, when the CSV has a bad row", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "parquet_writer_test_" });
  const good = "run-1,r1,1,t,1,2,true,,1767225600001\n";
  Deno.writeTextFileSync(
    `${dir}/tools.csv`,
    COLUMNS.tools.join(",") + "\n" + good.repeat(5) + "run-1,r6,x,t,1,2,true,,1767225600001\n",
  );
  await assert.rejects(csvToParquet(dir, "tools", { identity, rowGroupRows: 2 }), /line 7: round/);
  assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), ["tools.csv"]);
  Deno.removeSync(dir, { recursive: true });
});
