import assert from "node:assert/strict";
import { escapeCell, unescapeCell } from "../../schema/log_csv.ts";

/** Every start the contract escapes: the spreadsheet formula starts and the escape itself. */
const ESCAPED = ["=", "+", "-", "@", "\t", "\r", "'"];

Deno.test("escapeCell prefixes one ' to a value starting with = + - @ tab CR or ', and nothing else", async (t) => {
  await t.step("each escaped start, alone and followed by text", () => {
    for (const c of ESCAPED) {
      assert.equal(escapeCell(c), `'${c}`, JSON.stringify(c));
      assert.equal(escapeCell(`${c}SUM(A1)`), `'${c}SUM(A1)`, JSON.stringify(c));
    }
  });
  await t.step("other values are kept as they are, a special character past the first included", () => {
    for (const s of ["", "stop", " =1", "a=b", "1-2", "\n=1", "%", "|", "\u00a0=1", "ʼ"]) {
      assert.equal(escapeCell(s), s);
    }
  });
});

Deno.test("unescapeCell undoes escapeCell for every string, including those that really start with '", () => {
  const values = [
    ...ESCAPED,
    ...ESCAPED.map((c) => `${c}HYPERLINK("http://x","y")`),
    "''",
    "'''x",
    "'=1",
    "",
    "stop",
    "日本語",
  ];
  for (const s of values) assert.equal(unescapeCell(escapeCell(s)), s, JSON.stringify(s));
  // Exactly one ' is removed: an escaped "'=1" is "''=1", read back as "'=1".
  assert.equal(escapeCell("'=1"), "''=1");
  assert.equal(unescapeCell("''=1"), "'=1");
  assert.equal(unescapeCell("plain"), "plain");
});
