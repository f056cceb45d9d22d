import assert from "node:assert/strict";
import { join } from "node:path";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { scanRun } from "../../../analysis/run/scan_run.ts";
import { csvToParquet } from "../../../runner/sinks/parquet_writer.ts";
import { att, makeManifest, req, sha256, writeManifest, writeRun } from "../_fixture.ts";

const quiet = { onWarning: () => {} };
const stages = [{ name: "s", kind: "steady" as const, start_ms: 0, end_ms: 1000, offered_rps: 1 }];
/** Values starting with each character contract 1.2 escapes (= + - @ tab CR '), and three it does not. */
const TRICKY = ['=HYPERLINK("http://x","y")', "+1", "-cmd", "@SUM(A1)", "\tx", "\rx", "'quoted", "''two", "plain", ""];

/** A run whose requests' finish_reason and quality_detail, and attempts' finish_reason, are the TRICKY values. */
function tricky(dir: string, minor?: number): string {
  const requests = TRICKY.map((s, i) =>
    req({ request_id: `r${i}`, class: "c", stage: "s", scheduled_ms: i, finish_reason: s, quality_detail: s })
  );
  const attempts = TRICKY.map((s, i) => att({ request_id: `r${i}`, sent_ms: i, finish_reason: s }));
  return writeRun(dir, makeManifest(stages), { requests, attempts }, minor);
}

Deno.test("a contract 1.2 CSV run loads with its escaped cells back to the values written", async (t) => {
  const dir = tricky(join(Deno.makeTempDirSync(), "run"));
  const text = Deno.readTextFileSync(join(dir, "requests.csv"));
  assert.ok(text.includes(`"'=HYPERLINK(""http://x"",""y"")"`), "on disk the formula is escaped");
  for (const open of [loadRun, scanRun]) {
    await t.step(open.name, async () => {
      const run = await open(dir, quiet);
      const requests = "collectSync" in run.requests ? run.requests.collectSync() : run.requests;
      const attempts = "collectSync" in run.attempts ? run.attempts.collectSync() : run.attempts;
      assert.deepEqual(requests.getColumn("finish_reason").toArray(), TRICKY);
      assert.deepEqual(requests.getColumn("quality_detail").toArray(), TRICKY);
      assert.deepEqual(attempts.getColumn("finish_reason").toArray(), TRICKY);
      // Null stays null: output_sha256 is an empty field in every row.
      assert.equal(requests.getColumn("output_sha256").nullCount(), TRICKY.length);
    });
  }
});

Deno.test("CSV and Parquet (as finalisation writes it) of a run with escaped cells load identical frames", async () => {
  const csvDir = tricky(join(Deno.makeTempDirSync(), "csv"));
  const pqDir = tricky(join(Deno.makeTempDirSync(), "pq"));
  const files: Record<string, string> = {};
  for (const t of ["requests", "attempts", "tools"] as const) {
    await csvToParquet(pqDir, t, { identity: { run_id: "fixture-run", epoch_iso: "2026-01-01T00:00:00.000Z" } });
    Deno.removeSync(join(pqDir, `${t}.csv`));
    files[`${t}.parquet`] = sha256(join(pqDir, `${t}.parquet`));
  }
  writeManifest(pqDir, { ...JSON.parse(Deno.readTextFileSync(join(pqDir, "run.json"))), files });
  const csv = await loadRun(csvDir, quiet);
  const pq = await loadRun(pqDir, quiet);
  assert.equal(pq.format, "parquet");
  for (const t of ["requests", "attempts", "tools"] as const) assert.ok(pq[t].frameEqual(csv[t], true), t);
  assert.deepEqual(pq.requests.getColumn("finish_reason").toArray(), TRICKY);
});

Deno.test("a contract 1.1 CSV (written before escaping) keeps a leading ' as data", async () => {
  const dir = tricky(join(Deno.makeTempDirSync(), "run"), 1);
  const text = Deno.readTextFileSync(join(dir, "requests.csv"));
  assert.ok(text.includes(`"=HYPERLINK(""http://x"",""y"")"`), "1.1 wrote the value as it was");
  const run = await loadRun(dir, quiet);
  assert.equal(run.manifest.schema_minor, 1);
  assert.deepEqual(run.requests.getColumn("finish_reason").toArray(), TRICKY);
});
