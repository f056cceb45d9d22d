import assert from "node:assert/strict";
import { stringify } from "csv-stringify/sync";
import { COLUMNS } from "../../schema/events.ts";
import { encodeCsvRows, logCsvHeader, logCsvLine, STRINGIFY_OPTIONS } from "../../schema/log_encode.ts";
import { attemptRow, requestRow, toolRow } from "../runner/sinks/_rows.ts";

Deno.test("encodeCsvRows writes byte for byte what csv-stringify writes", async (t) => {
  const awkward = [
    "",
    " ",
    "plain",
    'a "quoted" word',
    "comma, inside",
    "new\nline",
    "carriage\rreturn",
    "crlf\r\n",
    '"',
    "=1+2",
    "日本語 ✓ 😀",
    "trailing space ",
  ];
  const numbers = [0, -0, 1, -1, 0.1 + 0.2, 1e-7, 5e-324, 1.7976931348623157e308, 9007199254740991, 123.456, NaN];
  await t.step("single values", () => {
    const rows = [...awkward, ...numbers, true, false, null].map((v) => [v, "x"]);
    assert.equal(encodeCsvRows(rows), stringify(rows, STRINGIFY_OPTIONS));
  });
  await t.step("whole log rows", () => {
    const rows = [
      COLUMNS.requests,
      ...awkward.map((s, i) => {
        const r = requestRow({ case_id: s, quality_detail: s || null, scheduled_ms: numbers[i % numbers.length]! });
        return COLUMNS.requests.map((c) => (r as Record<string, unknown>)[c] ?? null);
      }),
    ];
    assert.equal(encodeCsvRows(rows), stringify(rows, STRINGIFY_OPTIONS));
    const a = attemptRow();
    const tl = toolRow({ error_kind: "x,y" });
    const cells = (r: object, cols: readonly string[]) => cols.map((c) => (r as Record<string, unknown>)[c] ?? null);
    const more = [cells(a, COLUMNS.attempts), cells(tl, COLUMNS.tools)];
    assert.equal(encodeCsvRows(more), stringify(more, STRINGIFY_OPTIONS));
  });
});

Deno.test("encodeCsvRows refuses values a log column cannot hold", () => {
  assert.throws(() => encodeCsvRows([[{ a: 1 }]]), TypeError);
  assert.throws(() => encodeCsvRows([[[1, 2]]]), TypeError);
});

Deno.test("logCsvLine escapes string cells only and refuses a row missing a column", () => {
  // tool "=sum" is a string (escaped to '=sum); round 0 and started_ms -1 are numbers (never escaped).
  const row = toolRow({ tool: "=sum", round: 0, started_ms: -1, ended_ms: 2.5, error_kind: null });
  // started_epoch_ms = epoch 1767225600000 + started_ms −1 = 1767225599999.
  const line = { epochMs: 1767225600000 };
  assert.equal(
    logCsvLine("tools", row, line),
    `${row.run_id},${row.request_id},0,'=sum,-1,2.5,${row.ok},,1767225599999\n`,
  );
  const partial = { ...row } as Partial<typeof row>;
  delete partial.ok;
  assert.throws(() => logCsvLine("tools", partial as typeof row, line), /tools row has no value for column ok/);
  assert.equal(logCsvHeader("tools"), COLUMNS.tools.join(",") + "\n");
});
