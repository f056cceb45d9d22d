import assert from "node:assert/strict";
import pl from "nodejs-polars";
import { CsvSink } from "../../../runner/sinks/csv_sink.ts";
import { readLogCsv } from "../../../runner/sinks/csv_read.ts";
import { csvToParquet } from "../../../runner/sinks/parquet_writer.ts";
import { AT_EPOCH, attemptRow, requestRow, toolRow } from "./_rows.ts";

/** Values starting with each character the contract escapes (= + - @ tab CR ') and two that it does not. */
const TRICKY = ['=HYPERLINK("http://x","y")', "+1", "-cmd", "@SUM(A1)", "\tx", "\rx", "'quoted", "''two", "plain", ""];

Deno.test("CsvSink escapes formula starts in string columns only; readLogCsv and csvToParquet give the values back", async (t) => {
  const dir = Deno.makeTempDirSync({ prefix: "csv_escape_test_" });
  const rows = TRICKY.map((s, i) =>
    requestRow({ request_id: `r${i}`, finish_reason: s, quality_detail: s, scheduled_ms: -1.5, http_status: null })
  );
  const sink = CsvSink.open(dir, "requests", AT_EPOCH);
  rows.forEach((r) => sink.append(r));
  sink.close();

  await t.step("on disk: one ' in front of = + - @ tab CR and ', numbers never prefixed", () => {
    const text = Deno.readTextFileSync(`${dir}/requests.csv`);
    assert.ok(text.includes(`,"'=HYPERLINK(""http://x"",""y"")",`), "the formula is a text cell");
    for (const s of ["'+1", "'-cmd", "'@SUM(A1)", "'\tx", "''quoted", "'''two"]) {
      assert.ok(text.includes(`,${s},`), JSON.stringify(s));
    }
    assert.ok(text.includes(`,"'\rx",`), "a CR start is escaped (and quoted)");
    assert.ok(text.includes(",plain,"));
    // scheduled_ms −1.5 is a number column: written as -1.5, never '-1.5.
    assert.ok(text.includes(",-1.5,"));
    assert.ok(!text.includes("'-1.5"));
  });

  await t.step("readLogCsv removes exactly the escape", async () => {
    assert.deepEqual(await readLogCsv(`${dir}/requests.csv`, "requests"), rows);
  });

  await t.step("Parquet (finalisation) holds the original values", async () => {
    const identity = { run_id: "run-1", epoch_iso: "2026-01-01T00:00:00.000Z" };
    assert.equal(await csvToParquet(dir, "requests", { identity }), rows.length);
    const df = pl.readParquet(`${dir}/requests.parquet`);
    assert.deepEqual(df.getColumn("finish_reason").toArray(), TRICKY);
    assert.deepEqual(df.getColumn("quality_detail").toArray(), TRICKY);
  });

  await t.step("attempts and tools too", async () => {
    const attempts = TRICKY.map((s, i) => attemptRow({ attempt: i + 1, finish_reason: s, error_kind: s || null }));
    const tools = TRICKY.map((s, i) => toolRow({ round: i, tool: s, error_kind: s || null }));
    const a = CsvSink.open(dir, "attempts", AT_EPOCH);
    const tl = CsvSink.open(dir, "tools", AT_EPOCH);
    attempts.forEach((r) => a.append(r));
    tools.forEach((r) => tl.append(r));
    a.close();
    tl.close();
    assert.deepEqual(await readLogCsv(`${dir}/attempts.csv`, "attempts"), attempts);
    assert.deepEqual(await readLogCsv(`${dir}/tools.csv`, "tools"), tools);
  });
  Deno.removeSync(dir, { recursive: true });
});
