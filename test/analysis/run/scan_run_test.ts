import assert from "node:assert/strict";
import { join } from "node:path";
import { goodput } from "../../../analysis/goodput/goodput.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { scanRun } from "../../../analysis/run/scan_run.ts";
import { InputError } from "../../../schema/errors.ts";
import type { RunManifest } from "../../../schema/run_manifest.ts";
import { fixtureManifest, fixtureTables, POLICY } from "../hand_fixture.ts";
import { asShard, sha256, writeManifest, writeRun } from "../_fixture.ts";

const quiet = { onWarning: () => {} };
const fixture = () => writeRun(join(Deno.makeTempDirSync(), "run"), fixtureManifest(), fixtureTables());
const manifestOf = (dir: string): RunManifest => JSON.parse(Deno.readTextFileSync(join(dir, "run.json")));
const rewrite = (dir: string, table: string, edit: (text: string) => string, over: Partial<RunManifest> = {}) => {
  const file = join(dir, `${table}.csv`);
  Deno.writeTextFileSync(file, edit(Deno.readTextFileSync(file)));
  const m = manifestOf(dir);
  writeManifest(dir, { ...m, ...over, files: { ...m.files, [`${table}.csv`]: sha256(file) } });
};

/** The same run as Parquet files, written from the CSV run's frames. */
async function asParquet(csvDir: string): Promise<string> {
  const csv = await loadRun(csvDir, quiet);
  const dir = join(Deno.makeTempDirSync(), "pq");
  Deno.mkdirSync(dir);
  const files: Record<string, string> = {};
  for (const t of ["requests", "attempts", "tools"] as const) {
    csv[t].writeParquet(join(dir, `${t}.parquet`));
    files[`${t}.parquet`] = sha256(join(dir, `${t}.parquet`));
  }
  writeManifest(dir, { ...manifestOf(csvDir), files });
  return dir;
}

Deno.test("scanRun() keeps tables lazy and gives the same goodput as loadRun()", async (t) => {
  for (const format of ["csv", "parquet"] as const) {
    await t.step(format, async () => {
      const dir = format === "csv" ? fixture() : await asParquet(fixture());
      const scanned = await scanRun(dir, quiet);
      const loaded = await loadRun(dir, quiet);
      assert.equal(scanned.format, format);
      assert.equal(typeof scanned.requests.collectSync, "function"); // a LazyDataFrame, nothing read yet
      assert.deepEqual(scanned.requests.collectSync().frameEqual(loaded.requests, true), true);
      assert.equal(scanned.shards.length, 1);
      const { disclosure: ds, ...fromScan } = goodput(scanned, POLICY);
      const { disclosure: dl, ...fromLoad } = goodput(loaded, POLICY);
      assert.deepEqual(fromScan, fromLoad);
      assert.deepEqual(ds, dl);
      // The hand fixture's worked-out total (goodput_fixture_test.ts): 23 offered in the window, 5 accepted.
      assert.equal(fromScan.overall.offered, 23);
      assert.equal(fromScan.overall.accepted, 5);
    });
  }
});

Deno.test("scanRun() counts shard by shard and agrees with the whole run", async () => {
  const root = Deno.makeTempDirSync();
  const { requests, attempts } = fixtureTables();
  for (const i of [0, 1]) {
    const rs = requests.filter((_, k) => k % 2 === i).map((r) => ({ ...r, shard: i }));
    const ids = new Set(rs.map((r) => r.request_id));
    writeRun(join(root, `shard-${i}-of-2`), asShard(fixtureManifest(), i, 2), {
      requests: rs,
      attempts: attempts.filter((a) => ids.has(a.request_id)),
    });
  }
  const run = await scanRun(root, quiet);
  assert.equal(run.shards.length, 2);
  assert.deepEqual(run.shards.map((s) => s.dir), [join(root, "shard-0-of-2"), join(root, "shard-1-of-2")]);
  assert.equal(run.requests.collectSync().height, 25);
  const whole = goodput(await loadRun(fixture(), quiet), POLICY);
  const sharded = goodput(run, POLICY);
  assert.deepEqual(sharded.overall, whole.overall);
  assert.deepEqual(sharded.by_class_stage, whole.by_class_stage);
});

Deno.test("scanRun() refuses what loadRun() refuses, naming the file", async (t) => {
  await t.step("a tampered file (sha256 streamed), or a loud warning under verify warn", async () => {
    const dir = fixture();
    const file = join(dir, "requests.csv");
    Deno.writeTextFileSync(file, Deno.readTextFileSync(file).replace(",rejected,", ",ok,"));
    await assert.rejects(
      () => scanRun(dir, quiet),
      (e) => e instanceof InputError && /requests\.csv.*sha256.*does not match/.test(e.message),
    );
    const run = await scanRun(dir, { verify: "warn", onWarning: () => {} });
    assert.equal(run.warnings.length, 1);
    assert.match(run.warnings[0]!, /UNVERIFIED LOG: .*requests\.csv/);
  });
  await t.step("an unknown outcome, found by the streaming row check", async () => {
    const dir = fixture();
    rewrite(dir, "requests", (s) => s.replace(",rejected,", ",refused,"));
    await assert.rejects(() => scanRun(dir, quiet), /requests\.csv: outcome: unknown values "refused"/);
  });
  await t.step("a null in a never-null column", async () => {
    const dir = fixture();
    rewrite(dir, "requests", (s) => s.replace(",low,0,default,10000,", ",low,0,default,,"));
    await assert.rejects(() => scanRun(dir, quiet), /requests\.csv: scheduled_ms: 1 null values/);
  });
  await t.step("rows of another run, found by the streaming row check", async () => {
    const dir = fixture();
    rewrite(dir, "attempts", (s) => s.replace(/\nfixture-run,/, "\nother-run,"));
    await assert.rejects(
      () => scanRun(dir, quiet),
      /attempts\.csv: run_id: 1 rows whose run_id is not run\.json run_id/,
    );
  });
  await t.step("a null in a never-null attempts column", async () => {
    const dir = fixture();
    // The first attempt row's `round` (its third field, after run_id and request_id) emptied.
    rewrite(dir, "attempts", (s) => s.replace(/\n([^,\n]*,[^,\n]*),0,/, "\n$1,,"));
    await assert.rejects(() => scanRun(dir, quiet), /attempts\.csv: round: 1 null values/);
  });
  await t.step("a missing column", async () => {
    const dir = fixture();
    rewrite(dir, "tools", () => "run_id,request_id,round,tool,started_ms,ended_ms,ok\n");
    await assert.rejects(() => scanRun(dir, quiet), /tools\.csv: missing columns: error_kind/);
  });
  await t.step("a killed run drops its truncated last row with a warning", async () => {
    const dir = fixture();
    const m = manifestOf(dir);
    rewrite(dir, "requests", (s) => s.slice(0, -40), { result: { ...m.result, status: "running" } });
    const run = await scanRun(dir, quiet);
    assert.equal(run.requests.collectSync().height, 24); // 25 rows written, the last one cut
    assert.match(run.warnings.join("\n"), /truncated last row .*dropped/);
  });
});
