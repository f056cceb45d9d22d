import assert from "node:assert/strict";
import { textTable } from "../../lib/text_table.ts";

Deno.test("textTable() aligns each column to its widest cell", async (t) => {
  const head = ["name", "kind", "n", "note"];
  const body = [["a", "steady", "5", "first"], ["longer", "x", "12345", ""]];
  await t.step("every column left by default; trailing spaces trimmed", () => {
    // widths: name 6 (longer), kind 6 (steady), n 5 (12345), note 5 (first); two spaces between columns.
    assert.deepEqual(textTable(head, body), [
      "name    kind    n      note",
      "a       steady  5      first",
      "longer  x       12345",
    ]);
  });
  await t.step("`left` leading columns left, the others right", () => {
    assert.deepEqual(textTable(head, body, { left: 2 }), [
      "name    kind        n   note",
      "a       steady      5  first",
      "longer  x       12345",
    ]);
  });
  await t.step("`lastLeft` keeps a trailing text column left", () => {
    assert.deepEqual(textTable(head, body, { left: 1, lastLeft: true }), [
      "name      kind      n  note",
      "a       steady      5  first",
      "longer       x  12345",
    ]);
  });
  await t.step("a missing cell counts as empty; a table without rows is its head", () => {
    assert.deepEqual(textTable(["a", "bb"], [["xyz"]], { left: 1 }), ["a    bb", "xyz"]);
    assert.deepEqual(textTable(["a", "b"], []), ["a  b"]);
  });
});
