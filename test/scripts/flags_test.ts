import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { commandsDoc, RUNNER_FLAGS_DOC, runnerFlagsDoc } from "../../scripts/flags.ts";
import { COMMANDS, COMMANDS_DOC } from "../../scripts/commands.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

Deno.test("docs/runner_flags.md is the page generated from the settings schema (else run `npx deno task flags`)", async () => {
  const inTree = await Deno.readTextFile(`${ROOT}${RUNNER_FLAGS_DOC}`);
  assert.equal(inTree, await runnerFlagsDoc());
  assert.match(inTree, /\| `--max-send-lag-ms N` +\| 1000 +\|/);
});

Deno.test("docs/commands.md is the page generated from every command's declaration (else run `npx deno task flags`)", async () => {
  const inTree = await Deno.readTextFile(`${ROOT}${COMMANDS_DOC}`);
  assert.equal(inTree, await commandsDoc());
  // One section per command, each with its flag table (and --help) and its usage line.
  for (const { spec } of COMMANDS) {
    assert.ok(inTree.includes(`\n## ${spec.name}\n`), spec.name);
    assert.ok(inTree.includes(`\n${spec.invocation}`), spec.invocation);
  }
  assert.equal(inTree.split("| `-h, --help`").length - 1, COMMANDS.length);
  assert.match(inTree, /\| `--confidence C` +\| 0\.99 +\| a number in \[0\.5, 1\) +\|/);
});
