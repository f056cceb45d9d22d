import assert from "node:assert/strict";
import { stringify } from "csv-stringify/sync";
import { COLUMNS } from "../../../schema/events.ts";
import { encodeCsvRows, STRINGIFY_OPTIONS } from "../../../runner/sinks/_csv_encode.ts";
import { attemptRow, requestRow, toolRow } from "./_rows.ts";

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
        return COLUMNS.requests.map((c) => r[c]);
      }),
    ];
    assert.equal(encodeCsvRows(rows), stringify(rows, STRINGIFY_OPTIONS));
    const a = attemptRow();
    const tl = toolRow({ error_kind: "x,y" });
    const more = [COLUMNS.attempts.map((c) => a[c]), COLUMNS.tools.map((c) => tl[c])];
    assert.equal(encodeCsvRows(more), stringify(more, STRINGIFY_OPTIONS));
  });
});

Deno.test("encodeCsvRows refuses values a log column cannot hold", () => {
  assert.throws(() => encodeCsvRows([[{ a: 1 }]]), TypeError);
  assert.throws(() => encodeCsvRows([[[1, 2]]]), TypeError);
});
