/**
 * `npx deno task flags`: writes docs/runner_flags.md (the `run` flag table,
 * generated from the settings schema, runner/settings.ts, and the run
 * command's declaration, runner/cli/run_flags.ts) and docs/commands.md (every
 * command's help, scripts/commands.ts), each formatted by `deno fmt`.
 * test/scripts/flags_test.ts fails when a page in the tree differs.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { runCommand } from "../lib/command.ts";
import { runFlagsPage } from "../runner/cli/run_flags.ts";
import { COMMANDS_DOC, commandsPage, FLAGS_COMMAND } from "./commands.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
/** Where the run flags page is written, relative to the repository root. */
export const RUNNER_FLAGS_DOC = "docs/runner_flags.md";

/** Markdown as it belongs in the tree: formatted by `deno fmt` with the repository's settings. */
async function formatted(markdown: string): Promise<string> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["fmt", "--ext=md", "-"],
    cwd: ROOT,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(markdown));
  await writer.close();
  const out = await child.output();
  if (!out.success) throw new Error(`deno fmt failed: ${new TextDecoder().decode(out.stderr)}`);
  return new TextDecoder().decode(out.stdout);
}

/** docs/runner_flags.md as it belongs in the tree. */
export function runnerFlagsDoc(): Promise<string> {
  return formatted(runFlagsPage());
}

/** docs/commands.md as it belongs in the tree. */
export function commandsDoc(): Promise<string> {
  return formatted(commandsPage());
}

if (import.meta.main) {
  await runCommand(FLAGS_COMMAND, async ({ check }) => {
    check.throwIfAny();
    for (const [file, page] of [[RUNNER_FLAGS_DOC, runnerFlagsDoc], [COMMANDS_DOC, commandsDoc]] as const) {
      await Deno.writeTextFile(`${ROOT}${file}`, await page());
      console.log(`wrote ${file}`);
    }
  });
}
