import assert from "node:assert/strict";
import { InputError } from "../../../schema/errors.ts";
import { COLUMNS, type TableName } from "../../../schema/events.ts";
import { CsvSink } from "../../../runner/sinks/csv_sink.ts";
import { readLogCsvBatches, type ReadLogCsvOptions } from "../../../runner/sinks/csv_read_batches.ts";
import { readLogCsvWhole } from "./_read_whole.ts";
import { AT_EPOCH, requestRow, toolRow } from "./_rows.ts";

const TOOLS_HEADER = COLUMNS.tools.join(",") + "\n";

/** What one read gives: the rows, or the error's message and problems; and the warnings either way. */
interface Outcome {
  rows: unknown[] | null;
  error: { message: string; problems: readonly string[] } | null;
  warnings: string[];
}

async function outcome(read: (o: ReadLogCsvOptions) => Promise<unknown[]>, o: ReadLogCsvOptions): Promise<Outcome> {
  const warnings: string[] = [];
  try {
    return { rows: await read({ ...o, onWarning: (m) => warnings.push(m) }), error: null, warnings };
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    return { rows: null, error: { message: e.message, problems: e.problems }, warnings };
  }
}

/** Reads `file` through the streaming reader, collecting its batches (each at most `batchRows`). */
async function streamed(
  file: string,
  table: TableName,
  o: ReadLogCsvOptions & { batchRows: number; chunkBytes: number },
): Promise<unknown[]> {
  const rows: unknown[] = [];
  for await (const batch of readLogCsvBatches(file, table, o)) {
    assert.ok(batch.length >= 1 && batch.length <= o.batchRows, `batch of ${batch.length}`);
    rows.push(...batch);
  }
  return rows;
}

/** Asserts that the streaming reader gives what the whole-file reader gives, for several chunk and batch sizes. */
async function assertSameAsWhole(
  label: string,
  bytes: Uint8Array,
  table: TableName,
  o: ReadLogCsvOptions = {},
  chunkSizes = [1, 3, 64, 1 << 20],
): Promise<Outcome> {
  const file = Deno.makeTempFileSync({ prefix: "csv_batches_test_", suffix: ".csv" });
  try {
    Deno.writeFileSync(file, bytes);
    const whole = await outcome((x) => readLogCsvWhole(file, table, x), o);
    for (const chunkBytes of chunkSizes) {
      for (const batchRows of [1, 2, 65536]) {
        const got = await outcome((x) => streamed(file, table, { ...x, chunkBytes, batchRows }), o);
        assert.deepEqual(got, whole, `${label}: chunks of ${chunkBytes} bytes, batches of ${batchRows}`);
      }
    }
    return whole;
  } finally {
    Deno.removeSync(file);
  }
}

const enc = (s: string) => new TextEncoder().encode(s);

function sinkBytes<T extends TableName>(table: T, rows: Parameters<CsvSink<T>["append"]>[0][]): Uint8Array {
  const dir = Deno.makeTempDirSync();
  const sink = CsvSink.open(dir, table, AT_EPOCH);
  rows.forEach((r) => sink.append(r));
  sink.close();
  const bytes = Deno.readFileSync(`${dir}/${table}.csv`);
  Deno.removeSync(dir, { recursive: true });
  return bytes;
}

Deno.test("readLogCsvBatches gives the rows, errors and warnings of the whole-file reader", async (t) => {
  const requests = sinkBytes("requests", [
    requestRow({ request_id: "a" }),
    requestRow({ request_id: "b", case_id: "ünïcödé ✓ 日本語 😀", first_token_ms: 3.25 }),
    requestRow({ request_id: "c", outcome: "not_sent", send_lag_ms: null, quality_detail: "" }),
  ]);
  const cases: [string, Uint8Array, TableName, ReadLogCsvOptions?][] = [
    ["requests with quoted newlines, quotes and multi-byte text", requests, "requests"],
    ["a header and no row", enc(TOOLS_HEADER), "tools"],
    ["an empty file", enc(""), "tools"],
    ["a file holding only a byte-order mark", enc("\ufeff"), "tools"],
    ["a byte-order mark before the header", enc("\ufeff" + TOOLS_HEADER + "x,r1,1,t,1,2,true,\n"), "tools"],
    [
      "CRLF line ends",
      enc(TOOLS_HEADER.replace("\n", "\r\n") + "x,r1,1,t,1,2,true,\r\nx,r2,1,t,1,2,false,x\r\n"),
      "tools",
    ],
    ["a file of one line end", enc("\n"), "tools"],
    ["bad fields", enc(TOOLS_HEADER + "x,r1,1,t,1,2,true,\nx,r2,1.5,t,1,2,yes,\nx,r3,1,t,abc,2,true,\n"), "tools"],
    ["more problems than listed", enc(TOOLS_HEADER + "x,r,x,t,1,2,true,\n".repeat(8)), "tools", { maxProblems: 3 }],
    ["null where the schema forbids it", enc(TOOLS_HEADER + 'x,r1,1,"",1,2,true,""\nx,r2,1,,1,2,true,\n'), "tools"],
    ["missing and unknown columns", enc("request_id,round,tool,started_ms,ended_ms,okay,error_kind\n"), "tools"],
    [
      "columns out of order",
      enc("run_id,round,request_id,tool,started_ms,ended_ms,ok,error_kind\nx,r1,1,t,1,2,true,\n"),
      "tools",
    ],
    ["a short row", enc(TOOLS_HEADER + "x,r1,1,t,1,2,true,\nx,r2,1,t,1,2,true\n"), "tools"],
    ["a short header and rows of the table's width", enc("request_id,round\nx,r1,1,t,1,2,true,\n"), "tools"],
    ["a bad quote", enc(TOOLS_HEADER + 'x,r1,1,t"x,1,2,true,\n'), "tools"],
    ["a short row and a cut last row", enc(TOOLS_HEADER + "x,r1,1,t,1,2,true\nx,r2,1,t,1,2"), "tools"],
    ["a bad field and a cut last row", enc(TOOLS_HEADER + "x,r1,x,t,1,2,true,,1767225600001\nx,r2,1,t,1,2"), "tools"],
    ["a bad field and a cut last row, dropped", enc(TOOLS_HEADER + "x,r1,x,t,1,2,true,\nx,r2,1,t"), "tools", {
      dropTruncatedLast: true,
    }],
    ["a header cut off", enc("request_id,round,to"), "tools", { dropTruncatedLast: true }],
  ];
  for (const [label, bytes, table, o] of cases) {
    await t.step(label, async () => {
      await assertSameAsWhole(label, bytes, table, o);
    });
  }

  await t.step("every cut point of a log, with and without dropping the cut row", async () => {
    const bytes = sinkBytes("tools", [
      toolRow({ request_id: "r1", tool: 'multi\nline, "quoted"' }),
      toolRow({ request_id: "r2", tool: "", error_kind: "x\n\ny" }),
      toolRow({ request_id: "r3", tool: "ü✓" }),
    ]);
    for (let cut = 0; cut <= bytes.length; cut++) {
      for (const dropTruncatedLast of [false, true]) {
        await assertSameAsWhole(`cut at ${cut}`, bytes.subarray(0, cut), "tools", { dropTruncatedLast }, [
          1,
          7,
          1 << 20,
        ]);
      }
    }
  });

  await t.step("the whole-file reader's results are what the log holds (the reference is not vacuous)", async () => {
    const ok = await assertSameAsWhole("ok", requests, "requests", {}, [1 << 20]);
    assert.deepEqual(ok.rows?.map((r) => (r as { request_id: string }).request_id), ["a", "b", "c"]);
    const bad = await assertSameAsWhole(
      "bad",
      enc(TOOLS_HEADER + "x,r1,x,t,1,2,true,,1767225600001\nx,r2,1,t,1,2"),
      "tools",
      {},
      [
        1 << 20,
      ],
    );
    assert.match(bad.error!.message, /line 3: truncated last row/);
  });
});

Deno.test("readLogCsvBatches yields nothing after the first bad row, and still lists every problem", async () => {
  const good = "x,r1,1,t,1,2,true,,1767225600001\n";
  const file = Deno.makeTempFileSync({ suffix: ".csv" });
  Deno.writeTextFileSync(
    file,
    TOOLS_HEADER + good.repeat(5) + "x,r6,x,t,1,2,true,,1767225600001\n" + good.repeat(5) +
      "x,r12,y,t,1,2,true,,1767225600001\n",
  );
  const sizes: number[] = [];
  await assert.rejects(
    (async () => {
      for await (const batch of readLogCsvBatches(file, "tools", { batchRows: 2 })) sizes.push(batch.length);
    })(),
    (e: unknown) => {
      assert.ok(e instanceof InputError);
      // The bad rows are data rows 6 and 12: lines 7 and 13 (the header is line 1).
      assert.deepEqual(e.problems.map((p) => p.replace(`${file}: `, "").replace(/: round:.*/, "")), [
        "line 7",
        "line 13",
      ]);
      return true;
    },
  );
  // Rows 1–4 went out in two batches; row 5 was waiting for its batch when row 6 failed.
  assert.deepEqual(sizes, [2, 2]);
  Deno.removeSync(file);
});

Deno.test("readLogCsvBatches stops reading and closes the file when its consumer stops early", async () => {
  const file = Deno.makeTempFileSync({ suffix: ".csv" });
  Deno.writeTextFileSync(file, TOOLS_HEADER + "x,r1,1,t,1,2,true,,1767225600001\n".repeat(5000));
  let seen = 0;
  for await (const batch of readLogCsvBatches(file, "tools", { batchRows: 100, chunkBytes: 4096 })) {
    seen += batch.length;
    if (seen >= 300) break;
  }
  assert.equal(seen, 300);
  // Deno's resource sanitizer fails this test if the file were left open.
  Deno.removeSync(file);
});

Deno.test("readLogCsvBatches names a file it cannot read", async () => {
  const missing = `${Deno.makeTempDirSync()}/absent.csv`;
  await assert.rejects(
    readLogCsvBatches(missing, "tools").next(),
    (e: unknown) => e instanceof InputError && e.message.startsWith(`${missing}: cannot read tools log: `),
  );
});
