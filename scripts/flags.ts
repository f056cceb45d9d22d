/**
 * `deno task flags`: writes docs/runner_flags.md, the `deno task run` flag
 * table generated from the settings schema (runner/settings.ts) and the flag
 * documentation (runner/cli/run_flags.ts), formatted by `deno fmt`.
 * test/scripts/flags_test.ts fails when the page in the tree differs.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { type CommandSpec, runCommand } from "../lib/command.ts";
import { runFlagsPage } from "../runner/cli/run_flags.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
/** Where the page is written, relative to the repository root. */
export const RUNNER_FLAGS_DOC = "docs/runner_flags.md";

/** The page as it belongs in the tree: rendered, then formatted by `deno fmt` with the repository's settings. */
export async function runnerFlagsDoc(): Promise<string> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["fmt", "--ext=md", "-"],
    cwd: ROOT,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(runFlagsPage()));
  await writer.close();
  const out = await child.output();
  if (!out.success) throw new Error(`deno fmt failed: ${new TextDecoder().decode(out.stderr)}`);
  return new TextDecoder().decode(out.stdout);
}

/** `npx deno task flags`: its help (lib/command.ts). */
export const FLAGS_COMMAND = {
  name: "flags",
  invocation: "npx deno task flags",
  summary: "rewrites docs/runner_flags.md from the run command's declaration and the settings schema",
  flags: {},
  examples: ["npx deno task flags"],
} as const satisfies CommandSpec;

if (import.meta.main) {
  await runCommand(FLAGS_COMMAND, async ({ check }) => {
    check.throwIfAny();
    await Deno.writeTextFile(`${ROOT}${RUNNER_FLAGS_DOC}`, await runnerFlagsDoc());
    console.log(`wrote ${RUNNER_FLAGS_DOC}`);
  });
}
