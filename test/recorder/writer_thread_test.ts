import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { startPartSync } from "../../recorder/part_store.ts";
import { ThreadWriter, writerWorkerFile } from "../../recorder/thread_writer.ts";
import { emptyRows, type TableRows } from "../../recorder/buffer.ts";
import type { Recorder } from "../../recorder/types.ts";
import type { WriterSetup } from "../../recorder/writer.ts";
import { exampleRequestRow } from "../../testing/task_rows.ts";
import type { RequestRow } from "../../schema/events.ts";
import { type FakeClock, readManifest, readTable, tempOut, testRecorder } from "./_fixture.ts";

/** `n` streamed chat tasks from `first`, each 1 request + 1 attempt + 1 service phase row, on the fake clock. */
function record(rec: Recorder, clock: FakeClock, first: number, n: number): void {
  for (let i = first; i < first + n; i++) {
    clock.at(i * 10);
    const task = rec.begin({ class: i % 3 ? "chat" : "search", request_id: `t-${i}`, prompt: `question ${i}` });
    task.received();
    const call = task.attempt({ model: "m", streamed: true });
    clock.at(i * 10 + 2);
    call.headers(200);
    call.token();
    clock.at(i * 10 + 5);
    call.token();
    call.end({ ok: i % 7 !== 0, http_status: i % 7 ? 200 : 503, usage: { input_tokens: i, output_tokens: 2 } });
    task.complete({ output: `answer, "quoted", ${i}\nline two`, valid: true, quality_ok: i % 2 === 0 });
    task.responded();
  }
}

const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** Every file under the run folder but run.json → its sha256. */
function files(out: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const part of [...Deno.readDirSync(out)].filter((e) => e.isDirectory).map((e) => e.name).sort()) {
    for (const f of [...Deno.readDirSync(`${out}/${part}`)].map((e) => e.name).sort()) {
      found[`${part}/${f}`] = sha(Deno.readFileSync(`${out}/${part}/${f}`));
    }
  }
  return found;
}

Deno.test("the writer thread and the app's thread write byte-identical tables for the same tasks", async () => {
  const t = tempOut();
  const runs = (["thread", "app"] as const).map((writer) => ({
    writer,
    ...testRecorder(`${t.dir}/${writer}`, { writer }),
  }));
  try {
    for (const r of runs) {
      record(r.rec, r.clock, 0, 1100); // past one Parquet row group (1,024 rows) of each table
      await r.rec.flush();
    }
    const [thread, app] = runs.map((r) => `${t.dir}/${r.writer}`) as [string, string];
    assert.deepEqual(files(thread), files(app), "the CSVs while part-00000 is recorded");
    // Four CSVs, four sidecars, and the staged Parquet of the three tables past one row group (tools has no rows).
    assert.deepEqual(Object.keys(files(thread)).filter((f) => f.endsWith(".partial")), [
      "part-00000/attempts.parquet.partial",
      "part-00000/phases.parquet.partial",
      "part-00000/requests.parquet.partial",
    ]);
    assert.equal(Object.keys(files(thread)).length, 11);
    for (const r of runs) {
      await r.rec.rotate();
      record(r.rec, r.clock, 1100, 40);
      await r.rec.flush();
    }
    assert.deepEqual(files(thread), files(app), "part-00000 as Parquet, part-00001 as CSV");
    for (const r of runs) await r.rec.close();
    assert.deepEqual(files(thread), files(app), "both parts as Parquet");
    const [mt, ma] = [readManifest(thread), readManifest(app)];
    assert.equal(mt.recorder.writer, "thread");
    assert.equal(ma.recorder.writer, "app");
    assert.deepEqual(mt.parts, ma.parts, "the same parts, rows and sha256");
    assert.deepEqual([mt.requests, mt.dropped], [ma.requests, ma.dropped]);
    // 1,100 + 40 tasks; every 7th call failed with a 503 (i = 0, 7, …, 1134: 163 tasks).
    assert.equal(mt.requests, 1140);
    const outcomes = (await readTable(thread, "requests")).filter((q) => q.outcome === "http_error").length;
    assert.equal(outcomes, 163);
    for (const r of runs) assert.deepEqual(r.errors, []);
  } finally {
    t.remove();
  }
});

/** A part-00000 made as the recorder makes it at its start, and a writer setup for it. */
function setupIn(out: string): WriterSetup {
  Deno.mkdirSync(out);
  const identity = { run_id: "w-1", epoch_iso: "2026-01-01T00:00:00.000Z" };
  startPartSync(out, 0, identity);
  return { out, identity, createdBy: "goodput-recorder test", part: { index: 0, started_ms: 0 } };
}

/** `n` request rows from `first` (the other tables empty). */
function requests(first: number, n: number): TableRows {
  const rows = emptyRows();
  for (let i = first; i < first + n; i++) {
    rows.requests.push(exampleRequestRow({
      run_id: "w-1",
      request_id: `r-${i}`,
      case_id: "c",
      stage: "w0000",
      scheduled_ms: i,
      first_sent_ms: null,
      first_token_ms: null,
      completed_ms: i + 1,
      http_status: null,
      attempts: 0,
      rounds: 0,
      input_tokens: 0,
      output_tokens: 0,
      finish_reason: null,
      quality_ok: null,
      prompt_sha256: "0".repeat(64),
      streamed: null,
    }));
  }
  return rows;
}

const here = (name: string) => new URL(`./${name}`, import.meta.url);

Deno.test("a writer thread that fails to start hands every call to the app's thread, counted once", async () => {
  const t = tempOut();
  try {
    const errors: unknown[] = [];
    const w = new ThreadWriter(here("_failing_worker.ts"), setupIn(t.out), (e) => errors.push(e));
    const a = await w.append(requests(0, 3), 1);
    assert.equal(w.kind, "app");
    assert.equal(a.requests, 3);
    const closed = await w.closePart(30, true);
    assert.deepEqual([closed.closed.format, closed.closed.requests, closed.next], ["parquet", 3, null]);
    await w.stop();
    assert.equal(errors.length, 1, errors.map(String).join("\n"));
    assert.match(String(errors[0]), /the writer thread of this test fails to load/);
    assert.deepEqual((await readTableIn(t.out, closed.closed.files)).map((r) => r.request_id), ["r-0", "r-1", "r-2"]);
  } finally {
    t.remove();
  }
});

/** The requests of a closed Parquet part-00000, with its files checked against their sha256. */
async function readTableIn(out: string, listed: Record<string, string>): Promise<RequestRow[]> {
  const file = `${out}/part-00000/requests.parquet`;
  assert.equal(listed["requests.parquet"], sha(Deno.readFileSync(file)));
  const pl = (await import("nodejs-polars")).default;
  return pl.readParquet(file).toRecords() as unknown as RequestRow[];
}

Deno.test("a writer thread that stops mid-run: its held rows are counted lost, the app's thread goes on as CSV", async () => {
  const t = tempOut();
  try {
    const errors: unknown[] = [];
    const w = new ThreadWriter(here("_dying_worker.ts"), setupIn(t.out), (e) => errors.push(e));
    const first = await w.append(requests(0, 2), 1);
    assert.deepEqual([w.kind, first.requests], ["thread", 2]);
    // The test's thread throws on the second append it receives: it stops holding those 5 rows.
    const second = await w.append(requests(2, 5), 1);
    assert.equal(w.kind, "app");
    assert.deepEqual([second.requests, second.lost.requests], [0, 5]);
    const third = await w.append(requests(7, 1), 2);
    assert.equal(third.requests, 1);
    const closed = await w.closePart(100, true);
    await w.stop();
    // The thread's staged Parquet is lost with it: the part stays CSV, its files with their sha256.
    assert.equal(closed.closed.format, "csv");
    assert.equal(closed.closed.requests, 3, "2 written by the thread (as it last reported) + 1 by the app's thread");
    const csv = `${t.out}/part-00000/requests.csv`;
    assert.equal(closed.closed.files["requests.csv"], sha(Deno.readFileSync(csv)));
    const ids = Deno.readTextFileSync(csv).split("\n").slice(1, -1).map((l) => l.split(",")[1]);
    assert.deepEqual([ids.slice(0, 2), ids.at(-1)], [["r-0", "r-1"], "r-7"], "r-2 … r-6 may or may not be there");
    assert.equal(errors.length, 1, errors.map(String).join("\n"));
    assert.ok(!existsSync(`${t.out}/part-00000/requests.parquet.partial`), "the thread's partial Parquet removed");
  } finally {
    t.remove();
  }
});

Deno.test("the writer thread's file is found beside the module in both layouts, and not elsewhere", () => {
  const source = writerWorkerFile(new URL("../../recorder/thread_writer.ts", import.meta.url).href);
  assert.equal(source?.pathname.endsWith("/recorder/writer_worker.ts"), true);
  assert.equal(writerWorkerFile("https://example.com/recorder/thread_writer.ts"), null, "not a file");
  const t = tempOut();
  try {
    const bundle = `${t.dir}/recorder.mjs`;
    const url = new URL(`file://${bundle}`).href;
    assert.equal(writerWorkerFile(url), null, "no worker beside the bundle");
    Deno.writeTextFileSync(`${t.dir}/writer_worker.mjs`, "");
    assert.equal(fileURLToPath(writerWorkerFile(url)!), `${t.dir}/writer_worker.mjs`);
  } finally {
    t.remove();
  }
});
