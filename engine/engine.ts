/**
 * `deno task engine` as a function: build (or reuse) llama-server, generate (or reuse) the model, start (or reuse)
 * the server on 127.0.0.1, write its run conditions, and say how to stop it. The command (engine/cli.ts), the
 * integration test and the capacity benchmark all start the engine through here.
 *
 * @module
 */
import { basename } from "node:path";
import { type Build, ensureBuild, type Log } from "./build.ts";
import { engineConditions } from "./conditions.ts";
import { ensureModel, type Model, type SizeName } from "./model.ts";
import { cachePaths, engineCacheDir } from "./paths.ts";
import {
  healthy,
  isServer,
  launch,
  NICE,
  readState,
  serverArgs,
  type ServerSettings,
  type ServerState,
  stop,
} from "./server.ts";

/** Everything `deno task engine` is told. */
export interface EngineOptions extends ServerSettings {
  size: SizeName;
  seed: number;
  /** The cache folder (default: engine/paths.ts `engineCacheDir()`). */
  cache?: string;
  log?: Log;
}

/** A running engine. */
export interface Engine {
  url: string;
  state: ServerState;
  build: Build;
  model: Model;
  /** The run-conditions file (`deno task run --conditions`). */
  conditionsFile: string;
  /** True when a server started earlier with the same settings was found running and kept. */
  reused: boolean;
}

const stderrLog: Log = (line) => console.error(line);

/** The server's default compute threads: one less than the cores (at least 1), so the runner keeps a core. */
export function defaultThreads(cores = navigator.hardwareConcurrency || 1): number {
  return Math.max(1, cores - 1);
}

/** Builds (or reuses) llama-server and generates (or reuses) the model; starts nothing. */
export async function prepareEngine(
  options: Pick<EngineOptions, "size" | "seed" | "cache" | "log">,
): Promise<{ build: Build; model: Model }> {
  const log = options.log ?? stderrLog;
  const paths = cachePaths(options.cache ?? engineCacheDir());
  const build = await ensureBuild(paths, log);
  const model = await ensureModel({ paths, python: build.python, size: options.size, seed: options.seed, log });
  return { build, model };
}

/** Starts the engine (or finds it running with the same settings) and returns it once `/health` answers 200. */
export async function startEngine(options: EngineOptions): Promise<Engine> {
  const log = options.log ?? stderrLog;
  const paths = cachePaths(options.cache ?? engineCacheDir());
  const { build, model } = await prepareEngine({ ...options, log });
  const args = serverArgs(model.path, options);
  const url = `http://127.0.0.1:${options.port}`;
  const files = paths.server(options.port);
  const conditions = engineConditions({
    build,
    model: model.sidecar,
    args: args.map((a) => a === model.path ? basename(a) : a),
    nice: NICE,
    threads: options.threads,
    parallel: options.parallel,
    ctx: options.ctx,
  });
  const running = await readState(paths, options.port);
  if (running && isServer(running.pid, running.server)) {
    const same = running.server === build.server && JSON.stringify(running.args) === JSON.stringify(args);
    if (!same) {
      throw new Error(
        `an engine with other settings runs on port ${options.port} (pid ${running.pid}): stop it first with ` +
          `npx deno task engine --stop --port ${options.port}, or choose another --port`,
      );
    }
    if (await healthy(url)) {
      return { url, state: running, build, model, conditionsFile: files.conditions, reused: true };
    }
    await stop(paths, options.port, log);
  }
  await Deno.mkdir(files.dir, { recursive: true });
  await Deno.writeTextFile(files.conditions, JSON.stringify(conditions, null, 2) + "\n");
  const state = await launch(paths, {
    url,
    port: options.port,
    server: build.server,
    args,
    nice: NICE,
    model: {
      name: model.sidecar.name,
      file: model.path,
      sha256: model.sidecar.sha256,
      size: model.sidecar.size,
      seed: model.sidecar.seed,
    },
    conditions: files.conditions,
  }, log);
  return { url, state, build, model, conditionsFile: files.conditions, reused: false };
}

/** Stops the engine on this port; false when none of ours was running there. */
export async function stopEngine(port: number, options: { cache?: string; log?: Log } = {}): Promise<boolean> {
  return await stop(cachePaths(options.cache ?? engineCacheDir()), port, options.log ?? stderrLog);
}
