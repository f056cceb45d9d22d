/**
 * Simulator processes for the demo and sample scripts: each simulator runs in
 * its own process (so it never shares the runner's event loop) on a free
 * loopback port, started by the runner demo's `startSimProcess`, and every one
 * started is stopped by {@linkcode SimPool.stopAll}.
 *
 * @module
 */
import { type SimProcess, type SimProcessOptions, startSimProcess } from "../runner/cli/demo.ts";

export type { SimProcess, SimProcessOptions };

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
