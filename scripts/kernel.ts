/**
 * `npx deno task kernel`: registers this clone's Deno as the Jupyter kernel **goodput-deno** ("Deno (goodput
 * toolkit)"), the kernel the notebooks name. It never touches another kernelspec: a `deno` kernel you registered
 * yourself stays as it was. Registering again (or from another clone) points goodput-deno at that clone's Deno.
 *
 * The tests do not register anything: they write the same kernelspec into a temporary folder on JUPYTER_PATH
 * ({@linkcode kernelspecDir}), so running the suite leaves the user's Jupyter set-up alone.
 *
 * @module
 */
import { type CommandSpec, runCommand } from "../lib/command.ts";

/** The notebooks' kernel name (their `metadata.kernelspec.name`). */
export const KERNEL_NAME = "goodput-deno";
/** The name Jupyter shows in its kernel menu. */
export const KERNEL_DISPLAY = "Deno (goodput toolkit)";

/** The kernelspec of `deno` (a path to the Deno binary) as Jupyter reads it from `kernels/<name>/kernel.json`. */
export function kernelspec(deno: string): { argv: string[]; display_name: string; language: string } {
  return {
    argv: [deno, "jupyter", "--kernel", "--conn", "{connection_file}"],
    display_name: KERNEL_DISPLAY,
    language: "typescript",
  };
}

/**
 * Writes the kernelspec for `deno` under `root/kernels/goodput-deno/` and returns `root`: with `JUPYTER_PATH=root`,
 * Jupyter finds the kernel there before any registered one.
 */
export function kernelspecDir(root: string, deno: string): string {
  const dir = `${root}/kernels/${KERNEL_NAME}`;
  Deno.mkdirSync(dir, { recursive: true });
  Deno.writeTextFileSync(`${dir}/kernel.json`, JSON.stringify(kernelspec(deno), null, 2) + "\n");
  return root;
}

/** `npx deno task kernel`: its help (lib/command.ts). */
export const KERNEL_COMMAND = {
  name: "kernel",
  invocation: "npx deno task kernel",
  summary: `registers this clone's Deno as the Jupyter kernel "${KERNEL_NAME}" ("${KERNEL_DISPLAY}"), the kernel the ` +
    "notebooks name; other kernelspecs (a `deno` kernel of your own) are left alone",
  flags: {},
  examples: ["npx deno task kernel"],
  exits: { 1: "`deno jupyter --install` failed (its own message says why)" },
} as const satisfies CommandSpec;

if (import.meta.main) {
  await runCommand(KERNEL_COMMAND, async ({ check }) => {
    check.throwIfAny();
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["jupyter", "--install", "--force", "--name", KERNEL_NAME, "--display", KERNEL_DISPLAY],
      stdout: "inherit",
      stderr: "inherit",
    }).output();
    if (!out.success) Deno.exit(1);
  });
}
