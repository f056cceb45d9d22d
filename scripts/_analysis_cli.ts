/**
 * Runs an analysis CLI (`analysis/cli/<name>.ts`) as a subprocess with the
 * permissions its deno.json task grants, and returns what it printed. The
 * scripts call the analysis this way so they print exactly what a user's
 * `deno task <name>` prints.
 *
 * @module
 */
import { join } from "node:path";

const READ_ONLY = ["--allow-read", "--allow-ffi", "--allow-env", "--allow-sys"];
const PERMISSIONS: Record<string, string[]> = {
  analyze: READ_ONLY,
  knee: READ_ONLY,
  ledger: READ_ONLY,
  compare: [...READ_ONLY, "--allow-write"],
  report: [...READ_ONLY, "--allow-write", "--allow-run"],
};

/** Runs `analysis/cli/<name>.ts args…` under `root`; throws with its stderr when it exits non-zero. */
export async function analysisCli(root: string, name: keyof typeof PERMISSIONS, args: string[]): Promise<string> {
  const perms = PERMISSIONS[name];
  if (!perms) throw new TypeError(`unknown analysis CLI "${name}"`);
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...perms, join(root, "analysis/cli", `${name}.ts`), ...args],
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  if (!out.success) {
    throw new Error(
      `npx deno task ${name} ${args.join(" ")} exited ${out.code}:\n${dec.decode(out.stderr).trim() || "(no stderr)"}`,
    );
  }
  return dec.decode(out.stdout);
}
