/**
 * Simulator processes for the demo and sample scripts: each simulator runs in
 * its own process (so it never shares the runner's event loop) on a free
 * loopback port, started by {@linkcode startSimProcess}, and every one started
 * by a {@linkcode SimPool} is stopped by {@linkcode SimPool.stopAll}.
 *
 * @module
 */
import { join } from "node:path";

/**
 * Every simulator a script started, stopped together at the end and on
 * error. The first Ctrl-C (SIGINT) or SIGTERM aborts {@linkcode SimPool.signal}
 * (pass it to the run, which then stops and still writes its log); a second
 * one stops the simulators and exits 130 at once.
 */
export class SimPool {
  readonly #sims = new Set<SimProcess>();
  readonly #abort = new AbortController();
  readonly #onSignal = () => {
    if (this.#abort.signal.aborted) {
      console.error("interrupted again: stopping the simulators and exiting");
      this.stopAll().finally(() => Deno.exit(130));
      return;
    }
    console.error("interrupted: stopping (Ctrl-C again to quit at once)");
    this.#abort.abort(new Error("interrupted"));
  };

  constructor() {
    Deno.addSignalListener("SIGINT", this.#onSignal);
    Deno.addSignalListener("SIGTERM", this.#onSignal);
  }

  /** Aborted by the first SIGINT/SIGTERM. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  /** Throws when the script was interrupted: call it between phases. */
  throwIfInterrupted(): void {
    if (this.#abort.signal.aborted) throw new Error("interrupted: the remaining phases were skipped");
  }

  /** Starts a simulator and remembers it. */
  async start(o: SimProcessOptions): Promise<SimProcess> {
    this.throwIfInterrupted();
    const sim = await startSimProcess(o);
    this.#sims.add(sim);
    return sim;
  }

  /** Stops one simulator now. */
  async stop(sim: SimProcess): Promise<void> {
    this.#sims.delete(sim);
    await sim.stop();
  }

  /** Stops every simulator still running and removes the signal handlers. */
  async stopAll(): Promise<void> {
    const sims = [...this.#sims];
    this.#sims.clear();
    await Promise.all(sims.map((s) => s.stop()));
    Deno.removeSignalListener("SIGINT", this.#onSignal);
    Deno.removeSignalListener("SIGTERM", this.#onSignal);
  }
}

/** A running simulator process. */
export interface SimProcess {
  /** Base URL, e.g. `http://127.0.0.1:40123`. */
  url: string;
  /** The profile file it runs. */
  profile: string;
  /** `POST /sim/reset`: the simulator's outage clock, PRNG and rate-limit buckets restart now. */
  reset(): Promise<void>;
  /** SIGTERM, then wait for exit. Safe to call twice. */
  stop(): Promise<void>;
}

/** Options of {@linkcode startSimProcess}. */
export interface SimProcessOptions {
  /** Repository root: sim/cli.ts is found under it, and relative paths resolve against it. */
  root: string;
  profile: string;
  workload: string;
  seed: number;
  /** The simulator exits by itself after this long, so a killed script never leaves one behind for long. @default 600 */
  maxLifeS?: number;
  /** Silences the simulator's own log on stderr. @default true */
  quiet?: boolean;
}

/**
 * Starts `sim/cli.ts --port 0` in its own process (so it never shares the
 * runner's event loop) and waits (at most 30 s) for the URL it prints.
 */
export async function startSimProcess(o: SimProcessOptions): Promise<SimProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net=127.0.0.1,localhost",
      "--allow-read",
      "--allow-env",
      // The simulator watches request.signal only for queued requests (a client that leaves, leaves the queue).
      "--unstable-no-legacy-abort",
      join(o.root, "sim/cli.ts"),
      ...["--port", "0", "--profile", o.profile, "--workload", o.workload, "--seed", String(o.seed)],
      ...["--duration-s", String(o.maxLifeS ?? 600), ...(o.quiet ?? true ? ["--quiet"] : [])],
    ],
    cwd: o.root,
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += value;
      const m = /http:\/\/127\.0\.0\.1:\d+/.exec(seen);
      if (!m) continue;
      // Keep draining stdout so the simulator never blocks on a full pipe.
      (async () => {
        while (!(await reader.read()).done);
      })();
      let stopped: Promise<void> | null = null;
      const url = m[0];
      return {
        url,
        profile: o.profile,
        reset: () => resetSim(url),
        stop() {
          stopped ??= (async () => {
            try {
              child.kill("SIGTERM");
            } catch (e) {
              // Already exited (its --duration-s ran out): nothing to stop.
              if (!(e instanceof TypeError)) throw e;
            }
            await child.status;
          })();
          return stopped;
        },
      };
    }
  } finally {
    clearTimeout(timer);
  }
  await child.status;
  throw new Error(`the simulator (${o.profile}) exited before printing its URL; it printed: ${seen.slice(0, 500)}`);
}

async function resetSim(url: string): Promise<void> {
  const res = await fetch(`${url}/sim/reset`, { method: "POST", signal: AbortSignal.timeout(5000) });
  await res.body?.cancel();
  if (!res.ok) throw new Error(`${url}/sim/reset: HTTP ${res.status}`);
}
