import assert from "node:assert/strict";
import {
  fixedSettingTable,
  markdownTable,
  RUN_FLAG_DOCS,
  RUN_FLAG_OPTIONS,
  runFlagTable,
} from "../../../runner/cli/run_flags.ts";

/** The cells of the table row whose first cell starts with `start`. */
function row(table: string, start: string): string[] {
  const line = table.split("\n").find((l) => l.startsWith(`| ${start}`));
  assert.ok(line, `no row ${start}`);
  return line.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim());
}

Deno.test("the run flag table has one row per flag the parser knows", () => {
  const table = runFlagTable();
  const names = Object.keys(RUN_FLAG_OPTIONS);
  assert.deepEqual(Object.keys(RUN_FLAG_DOCS), names);
  // header + rule + one row per flag
  assert.equal(table.split("\n").length, 2 + names.length);
  for (const name of names) row(table, `\`--${name}`);
});

Deno.test("the run flag table takes defaults and ranges from the settings schema", () => {
  const table = runFlagTable();
  assert.deepEqual(row(table, "`--max-send-lag-ms N`").slice(1, 3), ["1000", "a number > 0"]);
  assert.deepEqual(row(table, "`--max-in-flight N`").slice(1, 3), ["20000", "an integer ≥ 1"]);
  assert.deepEqual(row(table, "`--lag-limit-ms N`").slice(1, 3), ["5", "a number ≥ 0"]);
  // 8388608 / (1024 × 1024) = 8 MiB
  assert.deepEqual(row(table, "`--max-response-bytes N`").slice(1, 3), ["8388608 (8 MiB)", "an integer ≥ 1"]);
  assert.deepEqual(row(table, "`--format FMT`").slice(1, 3), ["`both`", "`csv`, `parquet`, `both`"]);
  assert.deepEqual(row(table, "`--save-outputs`").slice(1, 3), ["off", ""]);
  assert.deepEqual(row(table, "`--no-progress`").slice(1, 3), ["on", ""]);
  assert.equal(RUN_FLAG_OPTIONS.format.default, "both");
});

Deno.test("the settings no flag sets are listed with their defaults", () => {
  const table = fixedSettingTable();
  assert.deepEqual(table.split("\n").slice(2).map((l) => row(l, "`")[0]), [
    "`flush_ms`",
    "`preconnect`",
    "`max_rounds`",
  ]);
  assert.deepEqual(row(table, "`max_rounds`").slice(1, 3), ["8", "an integer ≥ 1"]);
  assert.deepEqual(row(table, "`flush_ms`").slice(1, 3), ["100", "a number > 0"]);
});

Deno.test("markdownTable pads every column and escapes a pipe inside a cell", () => {
  assert.equal(
    markdownTable(["a", "bb"], [["x|y", "z"]]),
    ["| a    | bb  |", "| ---- | --- |", "| x\\|y | z   |"].join("\n"),
  );
});
