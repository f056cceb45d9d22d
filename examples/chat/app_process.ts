/**
 * The chat app as its own process (examples/chat/server.ts), so that its event loop — and so its recorder's
 * timing — is not shared with the driver's.
 *
 * @module
 */
import { join } from "node:path";

/** A running app process. */
export interface AppProcess {
  url: string;
  /** SIGTERM (the app closes its recorder and exits), SIGKILL after `graceMs`; gives back what it printed. */
  stop(graceMs?: number): Promise<string>;
}

/** The permissions the app needs: loopback, its files and run folder, and what the recorder reads of the host. */
export const APP_PERMISSIONS = [
  "--allow-net=127.0.0.1,localhost",
  "--allow-read",
  "--allow-write",
  "--allow-env",
  "--allow-sys",
] as const;

/** Starts examples/chat/server.ts with `args` and waits (at most 30 s) for the URL it prints. */
export async function startAppProcess(o: { root: string; args: string[] }): Promise<AppProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...APP_PERMISSIONS, join(o.root, "examples/chat/server.ts"), ...o.args],
    cwd: o.root,
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  let printed = "";
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const drained = (async () => {
    for (let r = await reader.read(); !r.done; r = await reader.read()) printed += r.value;
  })();
  const kill = (sig: Deno.Signal) => {
    try {
      child.kill(sig);
    } catch {
      // Already exited.
    }
  };
  const started = Date.now();
  while (!/listening on (http:\/\/\S+)/.test(printed)) {
    const exited = await Promise.race([child.status.then(() => true), new Promise((r) => setTimeout(r, 50, false))]);
    if (exited || Date.now() - started > 30_000) {
      kill("SIGKILL");
      throw new Error(`the chat app did not start; it printed: ${printed.slice(-500)}`);
    }
  }
  const url = /listening on (http:\/\/\S+)/.exec(printed)![1]!;
  let stopped: Promise<string> | null = null;
  return {
    url,
    stop(graceMs = 60_000) {
      stopped ??= (async () => {
        kill("SIGTERM");
        const hard = setTimeout(() => kill("SIGKILL"), graceMs);
        const status = await child.status;
        clearTimeout(hard);
        await drained;
        if (!status.success) throw new Error(`the chat app exited with ${status.code}: ${printed.slice(-500)}`);
        return printed.split("\n").slice(1).join("\n").trim(); // what it printed after its listening line
      })();
      return stopped;
    },
  };
}
