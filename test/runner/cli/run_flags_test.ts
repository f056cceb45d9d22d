import assert from "node:assert/strict";
import { flagTable } from "../../../lib/command_help.ts";
import { parseCommand } from "../../../lib/command.ts";
import { fixedSettingTable, RUN_COMMAND, RUN_FLAG_SETTINGS } from "../../../runner/cli/run_flags.ts";
import { RUNNER_DEFAULTS } from "../../../runner/settings.ts";

const runFlagTable = () => flagTable(RUN_COMMAND);

/** The cells of the table row whose first cell starts with `start`. */
function row(table: string, start: string): string[] {
  const line = table.split("\n").find((l) => l.startsWith(`| ${start}`));
  assert.ok(line, `no row ${start}`);
  return line.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim());
}

Deno.test("the run flag table has one row per declared flag, and --help", () => {
  const table = runFlagTable();
  const names = Object.keys(RUN_COMMAND.flags);
  // header + rule + one row per flag + --help
  assert.equal(table.split("\n").length, 2 + names.length + 1);
  for (const name of names) row(table, `\`--${name}`);
  row(table, "`-h, --help`");
  for (const flag of Object.keys(RUN_FLAG_SETTINGS)) assert.ok(flag in RUN_COMMAND.flags, flag);
});

Deno.test("the run flag table takes defaults and ranges from the settings schema", () => {
  const table = runFlagTable();
  assert.deepEqual(row(table, "`--max-send-lag-ms N`").slice(1, 3), ["1000", "a number > 0"]);
  assert.deepEqual(row(table, "`--max-in-flight N`").slice(1, 3), ["20000", "an integer ≥ 1"]);
  assert.deepEqual(row(table, "`--lag-limit-ms N`").slice(1, 3), ["none", "a number ≥ 0"]);
  // 8388608 / (1024 × 1024) = 8 MiB
  assert.deepEqual(row(table, "`--max-response-bytes N`").slice(1, 3), ["8388608 (8 MiB)", "an integer ≥ 1"]);
  assert.deepEqual(row(table, "`--format FMT`").slice(1, 3), ["`both`", "`csv`, `parquet`, `both`"]);
  assert.deepEqual(row(table, "`--save-outputs`").slice(1, 3), ["off", ""]);
  assert.deepEqual(row(table, "`--no-progress`").slice(1, 3), ["off", ""]);
  assert.equal(RUN_COMMAND.flags.format.default, "both");
});

Deno.test("the run command parses a flag left out to the settings schema's default, and the ranges it states", () => {
  const none = parseCommand(RUN_COMMAND, []);
  assert.equal(none.values.format, RUNNER_DEFAULTS.format);
  // A numeric setting left out stays undefined: runLoadTest fills it from the same schema.
  assert.equal(none.values["max-send-lag-ms"], undefined);
  const bad = parseCommand(RUN_COMMAND, ["--max-send-lag-ms", "0", "--max-in-flight", "1.5", "--format", "xml"]);
  assert.ok(
    bad.check.problems.includes('--max-send-lag-ms: expected a number > 0, got "0"'),
    bad.check.problems.join("\n"),
  );
  assert.ok(bad.check.problems.includes('--max-in-flight: expected an integer ≥ 1, got "1.5"'));
  assert.ok(bad.check.problems.includes('--format: expected csv, parquet or both, got "xml"'));
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
