import assert from "node:assert/strict";
import { join } from "node:path";
import pl from "nodejs-polars";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { scanRun } from "../../../analysis/run/scan_run.ts";
import { columnSpecs } from "../../../schema/column_kinds.ts";
import { COLUMNS, EPOCH_COLUMNS } from "../../../schema/events.ts";
import { writeAllNullRun } from "./_all_null_run.ts";

const QUIET = { onWarning: () => {} };
/** The polars dtype (its variant) of each column kind of the contract. */
const VARIANT = { string: "String", int: "Int64", float: "Float64", boolean: "Bool" } as const;
const TABLES = ["requests", "attempts", "tools", "server"] as const;
/** The committed run of the current contract, 1.7 (written by `writeAllNullRun`, Parquet and CSV). */
const V1_7 = new URL("../../testdata/contract-1.7", import.meta.url).pathname;
const V1_8 = new URL("../../testdata/contract-1.8", import.meta.url).pathname;

/** The fixture's CSV alone: a copy of its folder without the Parquet files (so the CSV is what is read). */
function csvOnly(src: string): string {
  const dir = join(Deno.makeTempDirSync(), "csv");
  Deno.mkdirSync(dir);
  for (const e of Deno.readDirSync(src)) {
    if (!e.name.endsWith(".parquet")) Deno.copyFileSync(join(src, e.name), join(dir, e.name));
  }
  return dir;
}

Deno.test("the epoch columns are epoch_iso + their anchor, exactly, in CSV and in Parquet", async (t) => {
  const pq = await loadRun(V1_7, QUIET);
  const csv = await loadRun(csvOnly(V1_7), QUIET);
  assert.deepEqual([pq.format, csv.format], ["parquet", "csv"]);
  await t.step("by hand: epoch 2026-01-01T00:00:00.000Z = 1767225600000 ms", () => {
    for (const run of [pq, csv]) {
      // requests: 1767225600000 + scheduled_ms 1234.5 and 2234.5.
      assert.deepEqual(run.requests.getColumn("scheduled_epoch_ms").toArray(), [1767225601234.5, 1767225602234.5]);
      // attempts: + sent_ms 1240.25, 2240.25; tools: + started_ms 1235; server: + t_ms 1000, 2000.
      assert.deepEqual(run.attempts.getColumn("sent_epoch_ms").toArray(), [1767225601240.25, 1767225602240.25]);
      assert.deepEqual(run.tools.getColumn("started_epoch_ms").toArray(), [1767225601235]);
      assert.deepEqual(run.server!.getColumn("t_epoch_ms").toArray(), [1767225601000, 1767225602000]);
    }
  });
  await t.step("every table, every row: the column is Date.parse(epoch_iso) + its anchor in float64", () => {
    const epochMs = Date.parse(pq.manifest.epoch_iso);
    for (const run of [pq, csv]) {
      for (const table of TABLES) {
        const frame = run[table]!;
        const { name, of } = EPOCH_COLUMNS[table];
        assert.equal(frame.columns.at(-1), name, `${table}: the last column`);
        const anchors = frame.getColumn(of).toArray() as number[];
        assert.deepEqual(frame.getColumn(name).toArray(), anchors.map((a) => epochMs + a), `${run.format} ${name}`);
      }
    }
  });
  await t.step("the files hold it as written: the raw CSV cell and the raw Parquet value", () => {
    const text = Deno.readTextFileSync(join(V1_7, "requests.csv"));
    assert.ok(text.startsWith(`${COLUMNS.requests.join(",")}\n`));
    assert.match(text.split("\n")[1]!, /,1767225601234\.5$/);
    const raw = pl.readParquet(join(V1_7, "attempts.parquet"));
    assert.deepEqual(raw.getColumn("sent_epoch_ms").toArray(), [1767225601240.25, 1767225602240.25]);
  });
});

Deno.test("a run whose optional columns are all null reads with the same dtypes from CSV and from Parquet", async (t) => {
  const pq = await loadRun(V1_7, QUIET);
  const csv = await loadRun(csvOnly(V1_7), QUIET);
  const lazyPq = await scanRun(V1_7, QUIET);
  const lazyCsv = await scanRun(csvOnly(V1_7), QUIET);
  for (const table of TABLES) {
    await t.step(table, () => {
      const frames = {
        "loadRun parquet": pq[table]!,
        "loadRun csv": csv[table]!,
        "scanRun parquet": lazyPq[table]!.collectSync(),
        "scanRun csv": lazyCsv[table]!.collectSync(),
      };
      const nullable = columnSpecs(table).filter((c) => c.nullable).map((c) => c.name);
      const want = Object.fromEntries(columnSpecs(table).map((c) => [c.name, VARIANT[c.kind]]));
      const first = frames["loadRun parquet"];
      for (const [how, frame] of Object.entries(frames)) {
        // The fixture is what it claims: every nullable column null in every row.
        for (const c of nullable) assert.equal(frame.getColumn(c).nullCount(), frame.height, `${how} ${table}.${c}`);
        // Column by column: each read's dtype is the contract's kind, and the same as the Parquet read's.
        for (const c of COLUMNS[table]) {
          const dtype = frame.getColumn(c).dtype;
          assert.equal(dtype.variant, want[c], `${how} ${table}.${c}: the contract's kind`);
          assert.equal(String(dtype), String(first.getColumn(c).dtype), `${how} ${table}.${c}: as the Parquet read`);
        }
      }
    });
  }
});

Deno.test("writeAllNullRun writes what test/testdata/contract-1.8 holds (the fixture is the writers' output)", async () => {
  const dir = await writeAllNullRun(join(Deno.makeTempDirSync(), "run"), true);
  for (const e of Deno.readDirSync(V1_8)) {
    if (e.name === "README.md") continue;
    const name = e.name;
    const same = name.endsWith(".parquet")
      ? pl.readParquet(join(dir, name)).frameEqual(pl.readParquet(join(V1_8, name)), true)
      : Deno.readTextFileSync(join(dir, name)) === Deno.readTextFileSync(join(V1_8, name)) || name === "run.json";
    assert.ok(same, name);
  }
});
