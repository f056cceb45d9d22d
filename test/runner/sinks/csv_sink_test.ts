import assert from "node:assert/strict";
import { COLUMNS, TABLES } from "../../../schema/events.ts";
import { CsvSink } from "../../../runner/sinks/csv_sink.ts";
import { readLogCsv } from "../../../runner/sinks/csv_read.ts";
import { AT_EPOCH, attemptRow, requestRow, serverRow, toolRow } from "./_rows.ts";

function tempDir(): string {
  return Deno.makeTempDirSync({ prefix: "csv_sink_test_" });
}

Deno.test("CsvSink.open writes the header of COLUMNS in order for every table", () => {
  const dir = tempDir();
  for (const table of TABLES) {
    CsvSink.open(dir, table, AT_EPOCH).close();
    assert.equal(Deno.readTextFileSync(`${dir}/${table}.csv`), COLUMNS[table].join(",") + "\n");
  }
  Deno.removeSync(dir, { recursive: true });
});

Deno.test("CsvSink rows reach the disk at flush, not at append", () => {
  const dir = tempDir();
  const sink = CsvSink.open(dir, "tools", AT_EPOCH);
  const file = `${dir}/tools.csv`;
  const header = Deno.readTextFileSync(file);
  sink.append(toolRow());
  sink.append(toolRow({ request_id: "r-2", ok: false, error_kind: "timeout" }));
  assert.equal(sink.pending, 2);
  assert.equal(Deno.readTextFileSync(file), header);
  assert.equal(sink.flush(), 2);
  assert.equal(sink.pending, 0);
  assert.equal(sink.written, 2);
  assert.equal(
    Deno.readTextFileSync(file),
    // started_epoch_ms = 1767225600000 (2026-01-01T00:00:00Z) + started_ms 10.25.
    header + "run-1,r-1,1,lookup_order,10.25,31.75,true,,1767225600010.25\n" +
      "run-1,r-2,1,lookup_order,10.25,31.75,false,timeout,1767225600010.25\n",
  );
  assert.equal(sink.flush(), 0);
  sink.close();
  sink.close();
  assert.throws(() => sink.append(toolRow()), /append after close/);
  Deno.removeSync(dir, { recursive: true });
});

Deno.test("CsvSink round trip keeps nulls, empty strings, quotes, newlines, unicode and exact floats", async (t) => {
  const dir = tempDir();
  await t.step("requests", async () => {
    const rows = [
      requestRow(),
      requestRow({ request_id: "r-2", quality_detail: "", output_sha256: null, scheduled_ms: 1e-7, tool_ms: 5e-324 }),
      requestRow({ request_id: "r-3", completed_ms: 1.7976931348623157e308, case_id: " padded ", error_kind: "NaN" }),
    ];
    const sink = CsvSink.open(dir, "requests", AT_EPOCH);
    for (const r of rows) sink.append(r);
    sink.close();
    const back = await readLogCsv(`${dir}/requests.csv`, "requests");
    assert.deepEqual(back, rows);
    assert.equal(back[0]?.scheduled_ms, 0.1 + 0.2);
    assert.equal(back[1]?.quality_detail, "");
    assert.equal(back[1]?.output_sha256, null);
  });
  await t.step("attempts, tools and server", async () => {
    const attempts = [attemptRow(), attemptRow({ attempt: 2, token_source: "usage", itl_p50_ms: 0.1 + 0.7 })];
    const tools = [toolRow(), toolRow({ tool: "", ok: false, error_kind: 'bad, "args"' })];
    const server = [serverRow(), serverRow({ t_ms: 2000, oldest_queued_ms: 0 })];
    const a = CsvSink.open(dir, "attempts", AT_EPOCH);
    const tl = CsvSink.open(dir, "tools", AT_EPOCH);
    const s = CsvSink.open(dir, "server", AT_EPOCH);
    attempts.forEach((r) => a.append(r));
    tools.forEach((r) => tl.append(r));
    server.forEach((r) => s.append(r));
    [a, tl, s].forEach((x) => x.close());
    assert.deepEqual(await readLogCsv(`${dir}/attempts.csv`, "attempts"), attempts);
    assert.deepEqual(await readLogCsv(`${dir}/tools.csv`, "tools"), tools);
    assert.deepEqual(await readLogCsv(`${dir}/server.csv`, "server"), server);
  });
  Deno.removeSync(dir, { recursive: true });
});

Deno.test("CsvSink writes multi-byte text exactly, in lines longer than its first 64 KiB buffer, flush after flush", async () => {
  const dir = tempDir();
  const sink = CsvSink.open(dir, "tools", AT_EPOCH);
  // 4-byte (emoji), 3-byte (CJK) and 2-byte (é) characters; one field of 120,000 UTF-8 bytes; a lone surrogate,
  // which UTF-8 writes as U+FFFD.
  const rows = [
    toolRow({ tool: "café 漢字 🚀" }),
    toolRow({ request_id: "r-2", tool: "🚀".repeat(30_000) }),
    toolRow({ request_id: "r-3", error_kind: "x\uD800y" }),
  ];
  sink.append(rows[0]!);
  assert.equal(sink.flush(), 1);
  sink.append(rows[1]!);
  sink.append(rows[2]!);
  assert.equal(sink.pending, 2);
  sink.close();
  assert.equal(sink.written, 3);
  const back = await readLogCsv(`${dir}/tools.csv`, "tools");
  assert.deepEqual(back.slice(0, 2), rows.slice(0, 2));
  assert.equal(back[2]!.error_kind, "x\uFFFDy");
  Deno.removeSync(dir, { recursive: true });
});

Deno.test("CsvSink refuses to overwrite an existing log unless asked", () => {
  const dir = tempDir();
  const first = CsvSink.open(dir, "tools", AT_EPOCH);
  first.append(toolRow());
  first.close();
  assert.throws(() => CsvSink.open(dir, "tools", AT_EPOCH), Deno.errors.AlreadyExists);
  CsvSink.open(dir, "tools", { ...AT_EPOCH, overwrite: true }).close();
  assert.equal(Deno.readTextFileSync(`${dir}/tools.csv`), COLUMNS.tools.join(",") + "\n");
  Deno.removeSync(dir, { recursive: true });
});

Deno.test("CsvSink.append refuses a row that lacks a column", () => {
  const dir = tempDir();
  const sink = CsvSink.open(dir, "tools", AT_EPOCH);
  const { ok: _ok, ...partial } = toolRow();
  assert.throws(() => sink.append(partial as ReturnType<typeof toolRow>), /no value for column ok/);
  assert.equal(sink.pending, 0);
  sink.close();
  Deno.removeSync(dir, { recursive: true });
});

Deno.test("CsvSink killed with SIGKILL leaves every flushed row readable", async () => {
  const dir = tempDir();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-write",
      new URL("./testdata/kill_writer.ts", import.meta.url).pathname,
      dir,
      "25",
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  while (!out.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    out += value;
  }
  assert.equal(out.trim(), "ready");
  child.kill("SIGKILL");
  const status = await child.status;
  await reader.cancel();
  assert.equal(status.signal, "SIGKILL");
  const rows = await readLogCsv(`${dir}/requests.csv`, "requests");
  assert.deepEqual(rows.map((r) => r.request_id), Array.from({ length: 25 }, (_, i) => `r-${i}`));
  assert.deepEqual(rows[24], requestRow({ request_id: "r-24" }));
  Deno.removeSync(dir, { recursive: true });
});

Deno.test("CsvSink writes 5,000 request rows with embedded newlines in one flush (the runner's cost per request is measured by bench/runner_bench.ts)", () => {
  const dir = tempDir();
  const sink = CsvSink.open(dir, "requests", AT_EPOCH);
  const rows = Array.from({ length: 5000 }, (_, i) => requestRow({ request_id: `r-${i}`, scheduled_ms: i * 0.2 }));
  for (const r of rows) sink.append(r);
  sink.flush();
  sink.close();
  const lines = Deno.readTextFileSync(`${dir}/requests.csv`).split("\n").length;
  // Header + 5000 rows, each holding two embedded newlines in quality_detail, + final empty split.
  assert.equal(lines, 1 + 5000 * 3 + 1);
  Deno.removeSync(dir, { recursive: true });
});
