import assert from "node:assert/strict";
import { InputError } from "../../../schema/errors.ts";
import { COLUMNS } from "../../../schema/events.ts";
import { CsvSink } from "../../../runner/sinks/csv_sink.ts";
import { readLogCsv } from "../../../runner/sinks/csv_read.ts";
import { AT_EPOCH, requestRow, toolRow } from "./_rows.ts";

const TOOLS_HEADER = COLUMNS.tools.join(",") + "\n";

function writeTemp(text: string): string {
  const file = Deno.makeTempFileSync({ prefix: "csv_read_test_", suffix: ".csv" });
  Deno.writeTextFileSync(file, text);
  return file;
}

/** Writes `rows` through a CsvSink and returns the file's text. */
function sinkText(rows: ReturnType<typeof requestRow>[]): string {
  const dir = Deno.makeTempDirSync();
  const sink = CsvSink.open(dir, "requests", AT_EPOCH);
  rows.forEach((r) => sink.append(r));
  sink.close();
  const text = Deno.readTextFileSync(`${dir}/requests.csv`);
  Deno.removeSync(dir, { recursive: true });
  return text;
}

Deno.test("readLogCsv detects a last row truncated mid-line", async (t) => {
  const whole = sinkText([requestRow({ request_id: "a" }), requestRow({ request_id: "b" })]);
  // requestRow's quality_detail holds two newlines, so each row spans 3 lines: row "b" starts on line 5.
  await t.step("cut inside a plain field", async () => {
    const file = writeTemp(whole.slice(0, whole.length - 5));
    await assert.rejects(readLogCsv(file, "requests"), (e: unknown) => {
      assert.ok(e instanceof InputError);
      assert.match(e.message, new RegExp(`^${file}: line 5: truncated last row`));
      return true;
    });
    const warnings: string[] = [];
    const rows = await readLogCsv(file, "requests", { dropTruncatedLast: true, onWarning: (m) => warnings.push(m) });
    assert.deepEqual(rows.map((r) => r.request_id), ["a"]);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /line 5: truncated last row.*dropped/);
    Deno.removeSync(file);
  });
  await t.step("cut inside a quoted field right after one of its newlines", async () => {
    const cut = whole.indexOf("line one\n", whole.indexOf("\nrun-1,b,")) + "line one\n".length;
    const file = writeTemp(whole.slice(0, cut));
    await assert.rejects(readLogCsv(file, "requests"), /line 5: truncated last row/);
    const rows = await readLogCsv(file, "requests", { dropTruncatedLast: true, onWarning: () => {} });
    assert.deepEqual(rows.map((r) => r.request_id), ["a"]);
    Deno.removeSync(file);
  });
  await t.step("a file cut inside its header is an error even when dropping", async () => {
    const file = writeTemp("run_id,request_id,ca");
    await assert.rejects(readLogCsv(file, "requests", { dropTruncatedLast: true }), /line 1: header is truncated/);
    Deno.removeSync(file);
  });
  await t.step("a complete file is read in full", async () => {
    const file = writeTemp(whole);
    assert.equal((await readLogCsv(file, "requests")).length, 2);
    Deno.removeSync(file);
  });
});

Deno.test("readLogCsv reports every bad field with file, line and field", async () => {
  const file = writeTemp(
    TOOLS_HEADER + "x,r1,1,t,1,2,true,,1767225600001\n" + "x,r2,1.5,t,1,2,yes,,1767225600001\n" +
      "x,r3,1,t,abc,2,true,,1767225600001\n",
  );
  await assert.rejects(readLogCsv(file, "tools"), (e: unknown) => {
    assert.ok(e instanceof InputError);
    assert.equal(e.problems.length, 3);
    assert.match(e.problems[0]!, new RegExp(`^${file}: line 3: round: .*\\(got 1.5\\)`));
    assert.match(e.problems[1]!, new RegExp(`^${file}: line 3: ok: .*\\(got "yes"\\)`));
    assert.match(e.problems[2]!, new RegExp(`^${file}: line 4: started_ms: .*\\(got "abc"\\)`));
    return true;
  });
  Deno.removeSync(file);
});

Deno.test("readLogCsv caps the problem list and counts the rest", async () => {
  const file = writeTemp(TOOLS_HEADER + "x,r,x,t,1,2,true,,1767225600001\n".repeat(8));
  await assert.rejects(readLogCsv(file, "tools", { maxProblems: 3 }), (e: unknown) => {
    assert.ok(e instanceof InputError);
    assert.deepEqual(e.problems.length, 4);
    assert.equal(e.problems[3], "... and 5 more problems");
    return true;
  });
  Deno.removeSync(file);
});

Deno.test("readLogCsv tells null from the empty string and rejects null where the schema forbids it", async () => {
  const file = writeTemp(TOOLS_HEADER + 'x,r1,1,"",1,2,true,"",1767225600001\n' + "x,r2,1,,1,2,true,,1767225600001\n");
  await assert.rejects(readLogCsv(file, "tools"), (e: unknown) => {
    assert.ok(e instanceof InputError);
    assert.equal(e.problems.length, 1);
    assert.match(e.problems[0]!, /line 3: tool: .*\(got null\)/);
    return true;
  });
  Deno.writeTextFileSync(
    file,
    TOOLS_HEADER + 'run-1,r1,1,"",1,2,true,"",1767225600001\n' + "run-1,r2,1,t,1,2,true,,1767225600001\n",
  );
  const rows = await readLogCsv(file, "tools");
  assert.deepEqual(rows, [toolRow({ request_id: "r1", tool: "", started_ms: 1, ended_ms: 2, error_kind: "" }), {
    ...toolRow({ request_id: "r2", tool: "t", started_ms: 1, ended_ms: 2 }),
  }]);
  Deno.removeSync(file);
});

Deno.test("readLogCsv rejects a header that is not the table's", async (t) => {
  await t.step("missing and unknown columns are named", async () => {
    const file = writeTemp("run_id,request_id,round,tool,started_ms,ended_ms,okay,error_kind,started_epoch_ms\n");
    await assert.rejects(readLogCsv(file, "tools"), (e: unknown) => {
      assert.ok(e instanceof InputError);
      assert.deepEqual(e.problems, [`${file}: line 1: missing columns: ok`, `${file}: line 1: unknown columns: okay`]);
      return true;
    });
    Deno.removeSync(file);
  });
  await t.step("columns out of order", async () => {
    const file = writeTemp("run_id,round,request_id,tool,started_ms,ended_ms,ok,error_kind,started_epoch_ms\n");
    await assert.rejects(readLogCsv(file, "tools"), /columns out of order/);
    Deno.removeSync(file);
  });
  await t.step("a row with the wrong number of fields", async () => {
    const file = writeTemp(TOOLS_HEADER + "x,r1,1,t,1,2,true\n");
    await assert.rejects(
      readLogCsv(file, "tools"),
      (e: unknown) => e instanceof InputError && /line 2/.test(e.message),
    );
    Deno.removeSync(file);
  });
  await t.step("an empty or missing file", async () => {
    const file = writeTemp("");
    await assert.rejects(readLogCsv(file, "tools"), /empty file/);
    Deno.removeSync(file);
    await assert.rejects(
      readLogCsv(file, "tools"),
      (e: unknown) => e instanceof InputError && /cannot read/.test(e.message),
    );
  });
});
