/**
 * Running the engine's helper programs: a program's output line by line (for progress) while all of it goes to a
 * log file, a program's whole output, and whether a program is on the PATH.
 *
 * @module
 */

/** Splits a byte stream into lines (a last line without its newline included). */
export async function* lines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let rest = "";
  for await (const chunk of stream) {
    rest += decoder.decode(chunk, { stream: true });
    const parts = rest.split(/\r?\n|\r/);
    rest = parts.pop()!;
    yield* parts;
  }
  rest += decoder.decode();
  if (rest) yield rest;
}

/** What {@linkcode runStreaming} needs: the program, its arguments, and where its output goes. */
export interface StreamingRun {
  cmd: string;
  args: string[];
  env?: Record<string, string>;
  cwd?: string;
  /** Every line of stdout and stderr is appended here. */
  logFile: string;
  /** Called with each line (stdout and stderr interleaved as they come). */
  onLine?: (line: string) => void;
}

/** Runs a program to its end, its output appended to a log file line by line; resolves to its exit code. */
export async function runStreaming(run: StreamingRun): Promise<number> {
  const log = await Deno.open(run.logFile, { append: true, create: true });
  const enc = new TextEncoder();
  try {
    const child = new Deno.Command(run.cmd, {
      args: run.args,
      env: run.env,
      cwd: run.cwd,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const pump = async (s: ReadableStream<Uint8Array>) => {
      for await (const line of lines(s)) {
        await log.write(enc.encode(line + "\n"));
        run.onLine?.(line);
      }
    };
    await Promise.all([pump(child.stdout), pump(child.stderr)]);
    return (await child.status).code;
  } finally {
    log.close();
  }
}

/** Runs a program to its end and returns its exit code and its stdout and stderr as text. */
export async function output(
  cmd: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(cmd, { args, ...options, stdin: "null", stdout: "piped", stderr: "piped" })
    .output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** True when `name` starts (is on the PATH and runs `--version`). */
export async function hasProgram(name: string): Promise<boolean> {
  try {
    return (await output(name, ["--version"])).code === 0;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
}

/** The sha256 of a file, hex. */
export async function fileSha256(path: string): Promise<string> {
  const bytes = await Deno.readFile(path);
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** True when a process with this pid runs (a zombie, exited but not yet reaped by its parent, does not). */
export function processAlive(pid: number): boolean {
  let stat: string;
  try {
    stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
  // "pid (comm) S …": the state letter follows the last ")" (comm may hold spaces and parentheses).
  return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
}
