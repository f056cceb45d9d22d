/** What a CLI run as a subprocess printed and how it exited. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `deno run <permissions> <script> <args>` (no stdin) and collects its output; `timeoutMs` kills it then, so a
 * hang (a read of a FIFO with no writer) fails the test instead of stalling it.
 */
export async function runCli(
  script: string,
  args: string[],
  permissions: string[] = ["-A"],
  options: { cwd?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...permissions, script, ...args],
    ...(options.cwd ? { cwd: options.cwd } : {}),
    ...(options.timeoutMs ? { signal: AbortSignal.timeout(options.timeoutMs) } : {}),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}
