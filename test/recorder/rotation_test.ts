import assert from "node:assert/strict";
import { SCHEMA_MINOR, SCHEMA_VERSION } from "../../schema/version.ts";
import { createHash } from "node:crypto";
import { parquetMetadata } from "hyparquet";
import pl from "nodejs-polars";
import { columnSpecs } from "../../schema/column_kinds.ts";
import { COLUMNS } from "../../schema/events.ts";
import { PARQUET_GROUP_ROWS } from "../../recorder/part_store.ts";
import { RECORDED_TABLES } from "../../recorder/buffer.ts";
import { readManifest, readTable, T0, withRecorder } from "./_fixture.ts";

/** The polars dtype each column kind must arrive as. */
const POLARS_DTYPE = { string: "String", int: "Int64", float: "Float64", boolean: "Bool" } as const;

const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const names = (dir: string) => [...Deno.readDirSync(dir)].map((e) => e.name).sort();

Deno.test("rotation by time: the part becomes typed Parquet with the contract's metadata and its sha256", async () => {
  await withRecorder({ rotate: { every_s: 10 } }, async ({ rec, clock, out }) => {
    clock.at(1000);
    const task = rec.begin({ class: "chat", request_id: "q1" });
    task.received();
    clock.at(1010);
    await task.span("retrieval", () => void clock.at(1020));
    const a = task.attempt({ streamed: true, model: "m" });
    a.headers(200);
    a.token();
    clock.at(1100);
    a.token();
    a.end({ ok: true, usage: { input_tokens: 7, output_tokens: 2 } });
    task.complete({ valid: true, quality_ok: true, safety_ok: null });
    task.responded();
    clock.at(5000);
    await rec.flush(); // 5 s into part 0: no rotation yet
    assert.equal(readManifest(out).parts.length, 1);
    clock.at(10_000);
    await rec.flush(); // 10 s: part 0 is rotated
    const m = readManifest(out);
    assert.deepEqual(m.parts.map((p) => [p.dir, p.started_ms, p.ended_ms, p.format, p.requests]), [
      ["part-00000", 0, 10_000, "parquet", 1],
      ["part-00001", 10_000, null, "csv", 0],
    ]);
    const dir0 = `${out}/part-00000`;
    assert.deepEqual(names(dir0), RECORDED_TABLES.map((t) => `${t}.parquet`).sort(), "the CSVs and sidecars removed");
    for (const t of RECORDED_TABLES) {
      const file = `${dir0}/${t}.parquet`;
      const bytes = Deno.readFileSync(file);
      assert.equal(m.parts[0]!.files[`${t}.parquet`], sha(bytes));
      const df = pl.readParquet(file);
      assert.deepEqual(df.columns, COLUMNS[t]);
      const dtypes = Object.fromEntries(df.columns.map((c, i) => [c, String(df.dtypes[i]?.variant)]));
      assert.deepEqual(dtypes, Object.fromEntries(columnSpecs(t).map((c) => [c.name, POLARS_DTYPE[c.kind]])));
      const kv = new Map(parquetMetadata(bytes.buffer).key_value_metadata?.map((e) => [e.key, e.value]));
      assert.equal(kv.get("accepted_goodput.table"), t);
      assert.equal(kv.get("accepted_goodput.run_id"), "prod-1");
      assert.equal(kv.get("accepted_goodput.epoch_iso"), new Date(T0).toISOString());
      assert.equal(kv.get("accepted_goodput.contract"), `${SCHEMA_VERSION}.${SCHEMA_MINOR}`);
    }
    assert.deepEqual(names(`${out}/part-00001`), [
      "attempts.csv",
      "attempts.schema.json",
      "phases.csv",
      "phases.schema.json",
      "requests.csv",
      "requests.schema.json",
      "tools.csv",
      "tools.schema.json",
    ]);
    const [req] = await readTable(out, "requests");
    assert.deepEqual([req!.request_id, req!.scheduled_ms, req!.completed_ms, req!.input_tokens], ["q1", 1000, 1100, 7]);
    const [att] = await readTable(out, "attempts");
    // Sent and first token at 1020 (after the retrieval), last token at 1100: one gap of 80 ms.
    assert.deepEqual([att!.first_token_ms, att!.last_token_ms, att!.itl_p50_ms, att!.streamed], [1020, 1100, 80, true]);

    clock.at(12_000);
    rec.begin({ class: "chat", request_id: "q2" }).complete({});
    clock.at(15_000);
    await rec.close(); // the last part is rotated at close
    const closed = readManifest(out);
    assert.deepEqual(closed.parts.map((p) => [p.dir, p.ended_ms, p.format, p.requests]), [
      ["part-00000", 10_000, "parquet", 1],
      ["part-00001", 15_000, "parquet", 1],
    ]);
    assert.equal(closed.observation.status, "closed");
    assert.equal(closed.observation.ended_iso, new Date(T0 + 15_000).toISOString());
    assert.equal(closed.requests, 2);
    assert.deepEqual((await readTable(out, "requests")).map((r) => r.request_id), ["q1", "q2"]);
  });
});

Deno.test("rotation by size: a part past rotate.max_bytes is rotated at the flush, in row groups", async () => {
  // One more request than a row group holds, so the part's requests.parquet has two groups.
  const n = PARQUET_GROUP_ROWS + 1;
  await withRecorder({ rotate: { max_bytes: 100_000 } }, async ({ rec, clock, out }) => {
    rec.begin({ class: "c", request_id: "first" }).complete({});
    await rec.flush();
    assert.equal(readManifest(out).parts.length, 1, "one request row is far below 100,000 bytes");
    for (let i = 1; i < n; i++) rec.begin({ class: "c", request_id: `r${i}` }).complete({});
    clock.at(2000);
    await rec.flush();
    const m = readManifest(out);
    assert.deepEqual(m.parts.map((p) => [p.format, p.requests]), [["parquet", n], ["csv", 0]]);
    const bytes = Deno.readFileSync(`${out}/part-00000/requests.parquet`);
    // PARQUET_GROUP_ROWS + 1 rows (1,025): a full group written while recording, the last row at rotation.
    assert.deepEqual(parquetMetadata(bytes.buffer).row_groups.map((g) => Number(g.num_rows)), [PARQUET_GROUP_ROWS, 1]);
    const ids = pl.readParquet(`${out}/part-00000/requests.parquet`).getColumn("request_id").toArray();
    assert.equal(ids.length, n);
    assert.equal(ids[0], "first");
    assert.equal(ids[n - 1], `r${n - 1}`);
  });
});

Deno.test("rotate() closes the current part on demand", async () => {
  await withRecorder({}, async ({ rec, out }) => {
    rec.begin({ class: "c" }).complete({});
    await rec.rotate();
    const m = readManifest(out);
    assert.deepEqual(m.parts.map((p) => [p.format, p.requests]), [["parquet", 1], ["csv", 0]]);
  });
});
