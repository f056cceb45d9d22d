import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { RUNNER_FLAGS_DOC, runnerFlagsDoc } from "../../scripts/flags.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

Deno.test("docs/runner_flags.md is the page generated from the settings schema (else run `deno task flags`)", async () => {
  const inTree = await Deno.readTextFile(`${ROOT}${RUNNER_FLAGS_DOC}`);
  assert.equal(inTree, await runnerFlagsDoc());
  assert.match(inTree, /\| `--max-send-lag-ms N` +\| 1000 +\|/);
});
