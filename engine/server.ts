/**
 * One llama-server on 127.0.0.1: started detached under `nice -n 10` (so that a runner on the same cores is not the
 * one that waits), its pid and settings in `servers/<port>/state.json`, its output in `server.log`; ready once
 * `GET /health` answers 200; stopped by its pid (checked to still be that server before any signal).
 *
 * @module
 */
import { z } from "zod";
import type { Log } from "./build.ts";
import type { CachePaths } from "./paths.ts";
import { processAlive } from "./process.ts";

/** How the server is started: what `deno task engine`'s flags set. */
export interface ServerSettings {
  port: number;
  parallel: number;
  ctx: number;
  threads: number;
}

/**
 * llama-server's arguments: the model, loopback only, a KV cache of `ctx` tokens shared by all `parallel` slots
 * (`--kv-unified`: a slot may use what the others leave), no busy-polling between batches (`--poll 0`: the cores are
 * shared), Prometheus metrics on `/metrics`, no web UI, and the model's own Jinja chat template (tool calls).
 */
export function serverArgs(model: string, s: ServerSettings): string[] {
  return [
    "-m",
    model,
    "--host",
    "127.0.0.1",
    "--port",
    String(s.port),
    "-c",
    String(s.ctx),
    "--kv-unified",
    "-np",
    String(s.parallel),
    "-t",
    String(s.threads),
    "--poll",
    "0",
    "--metrics",
    "--no-ui",
    "--jinja",
  ];
}

/** The priority the server runs at: below the runner's. */
export const NICE = 10;

/** What `state.json` holds about a running server. */
export const ServerState = z.object({
  pid: z.number().int().positive(),
  url: z.string(),
  port: z.number().int(),
  server: z.string(),
  args: z.array(z.string()),
  nice: z.number().int(),
  model: z.object({ name: z.string(), file: z.string(), sha256: z.string(), size: z.string(), seed: z.number() }),
  conditions: z.string(),
  log: z.string(),
  started_at: z.string(),
});
export type ServerState = z.infer<typeof ServerState>;

/** The state of the server on this port, or null when none was started (or the file is unreadable). */
export async function readState(paths: CachePaths, port: number): Promise<ServerState | null> {
  try {
    const parsed = ServerState.safeParse(JSON.parse(await Deno.readTextFile(paths.server(port).state)));
    return parsed.success ? parsed.data : null;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound || e instanceof SyntaxError) return null;
    throw e;
  }
}

/** True when `pid` is alive and is this server binary (a pid reused by another program is not signalled). */
export function isServer(pid: number, server: string): boolean {
  if (!processAlive(pid)) return false;
  try {
    return Deno.readTextFileSync(`/proc/${pid}/cmdline`).split("\0")[0] === server;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
}

/** True when `GET /health` answers 200 within a second. */
export async function healthy(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1000) });
    await res.body?.cancel();
    return res.status === 200;
  } catch {
    // Refused, reset or timed out: not (yet) serving.
    return false;
  }
}

/** Throws when something already listens on the port. */
function assertPortFree(port: number): void {
  try {
    Deno.listen({ hostname: "127.0.0.1", port }).close();
  } catch (e) {
    if (e instanceof Deno.errors.AddrInUse) {
      throw new Error(`port ${port} on 127.0.0.1 is in use by another program: choose another with --port`);
    }
    throw e;
  }
}

/** The last lines of a log file, for an error message. */
async function tail(path: string, n = 15): Promise<string> {
  const text = await Deno.readTextFile(path).catch(() => "");
  return text.trimEnd().split("\n").slice(-n).join("\n");
}

/**
 * Starts the server detached and waits (at most `readyMs`) for `/health`; writes `state.json` first, so that
 * `--stop` finds even a server that never became ready. Throws with the log's last lines when it dies or stays
 * unready.
 */
export async function launch(
  paths: CachePaths,
  state: Omit<ServerState, "pid" | "started_at" | "log">,
  log: Log,
  readyMs = 120_000,
): Promise<ServerState> {
  const files = paths.server(state.port);
  assertPortFree(state.port);
  await Deno.mkdir(files.dir, { recursive: true });
  await Deno.writeTextFile(files.log, "");
  // `exec` twice: the pid Deno sees becomes nice's, then the server's; the output goes to the log file.
  const child = new Deno.Command("sh", {
    args: ["-c", `exec nice -n ${state.nice} "$@" >>"$ENGINE_LOG" 2>&1`, "sh", state.server, ...state.args],
    env: { ENGINE_LOG: files.log },
    stdin: "null",
    stdout: "null",
    stderr: "null",
    detached: true,
  }).spawn();
  child.unref();
  const full: ServerState = { ...state, pid: child.pid, log: files.log, started_at: new Date().toISOString() };
  await Deno.writeTextFile(files.state, JSON.stringify(full, null, 2) + "\n");
  log(`engine: started llama-server (pid ${child.pid}), waiting for ${state.url}/health`);
  const deadline = Date.now() + readyMs;
  while (Date.now() < deadline) {
    if (await healthy(state.url)) return full;
    if (!processAlive(child.pid)) {
      await Deno.remove(files.state).catch(() => {});
      throw new Error(`llama-server exited before it was ready; the end of ${files.log}:\n${await tail(files.log)}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  await stop(paths, state.port, () => {});
  throw new Error(
    `llama-server was not ready within ${readyMs / 1000} s; the end of ${files.log}:\n${await tail(files.log)}`,
  );
}

/** How long stop() waits for a process to be gone after SIGKILL before it reports it still running. */
const KILL_WAIT_MS = 10_000;

/**
 * Stops the server started on this port: SIGTERM, then SIGKILL after `graceMs`, and returns once the process is
 * gone (throws when it still runs 10 s after SIGKILL); removes its state file. Returns false when no server of ours
 * was running there.
 */
export async function stop(paths: CachePaths, port: number, log: Log, graceMs = 10_000): Promise<boolean> {
  const state = await readState(paths, port);
  if (!state) return false;
  const files = paths.server(port);
  if (!isServer(state.pid, state.server)) {
    await Deno.remove(files.state).catch(() => {});
    return false;
  }
  Deno.kill(state.pid, "SIGTERM");
  const deadline = Date.now() + graceMs;
  while (processAlive(state.pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (processAlive(state.pid)) {
    log(`engine: llama-server (pid ${state.pid}) did not stop within ${graceMs / 1000} s: SIGKILL`);
    Deno.kill(state.pid, "SIGKILL");
    // A killed process with many threads takes a moment to exit: wait for it, so the port is free on return.
    const killDeadline = Date.now() + KILL_WAIT_MS;
    while (processAlive(state.pid) && Date.now() < killDeadline) await new Promise((r) => setTimeout(r, 20));
    if (processAlive(state.pid)) {
      throw new Error(`llama-server (pid ${state.pid}) still runs ${KILL_WAIT_MS / 1000} s after SIGKILL`);
    }
  }
  await Deno.remove(files.state).catch(() => {});
  return true;
}
