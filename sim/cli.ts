/**
 * `npx deno task sim [flags]`: runs the simulator on 127.0.0.1 (or `--host` with `--expose`) until SIGINT/SIGTERM
 * or `--duration-s`. Prints the URL on stdout. Its flags: {@linkcode SIM_COMMAND}.
 * @module
 */
import { type CommandSpec, type ParsedCommand, runCommand } from "../lib/command.ts";
import { InputError, loadSimProfile } from "../schema/mod.ts";
import { readInputFile } from "../schema/read_input.ts";
import { loadWorkload } from "../schema/workload_file.ts";
import { startSim } from "./server.ts";

/** `npx deno task sim`: its flags and help (lib/command.ts). */
export const SIM_COMMAND = {
  name: "sim",
  invocation: "npx deno task sim",
  summary: "the embedded OpenAI-compatible simulator on 127.0.0.1 (or `--host` with `--expose`), until Ctrl-C or " +
    "`--duration-s`",
  details: [
    "It prints its URL on stdout; `POST /v1/chat/completions`, `GET /v1/models`, `GET /health`, `GET /sim/timeline`, " +
    "`POST /sim/reset` (docs/simulator.md).",
  ],
  flags: {
    port: {
      type: "number",
      arg: "P",
      rule: { min: 0, max: 65535, integer: true },
      default: 8787,
      description: "the port; 0 picks a free one",
    },
    host: {
      type: "string",
      arg: "ADDR",
      default: "127.0.0.1",
      description: "the address to listen on: loopback unless `--expose`",
    },
    expose: {
      type: "boolean",
      description: "allow a non-loopback `--host` (`0.0.0.0` in a container, an address in a network namespace: " +
        "docs/kubernetes.md); anyone who can reach it can send it work",
    },
    profile: {
      type: "string",
      arg: "FILE",
      default: "data/sim/default.json",
      description: "the simulator profile: engine, replicas, faults, behaviour per class (data/sim/)",
    },
    workload: {
      type: "string",
      arg: "PATH",
      default: "data/workloads/design-v1",
      description: "the workload whose cases it answers",
    },
    seed: {
      type: "number",
      arg: "N",
      rule: { min: 0, max: 2 ** 32 - 1, integer: true },
      default: 1,
      description: "the seed of its random choices",
    },
    timeline: {
      type: "string",
      arg: "FILE",
      defaultText: "none",
      description: "also append its timeline rows to this JSONL file (created or truncated; its folder must exist)",
    },
    "duration-s": {
      type: "number",
      arg: "N",
      rule: { above: 0 },
      defaultText: "none: until Ctrl-C",
      description: "stop after N seconds",
    },
    quiet: { type: "boolean", description: "no `sim:` log lines on stderr" },
    "tls-cert": {
      type: "string",
      arg: "FILE",
      defaultText: "none: plain http",
      description: "serve https with this PEM certificate chain (with `--tls-key`); the URL printed is then `https://`",
    },
    "tls-key": {
      type: "string",
      arg: "FILE",
      defaultText: "none",
      description: "the PEM private key of `--tls-cert`",
    },
  },
  examples: [
    "npx deno task sim",
    "npx deno task sim --port 0 --profile data/sim/demo.json --duration-s 60",
  ],
} as const satisfies CommandSpec;

async function main({ values: flags, check }: ParsedCommand<typeof SIM_COMMAND>): Promise<void> {
  check.outputFolder("timeline", flags.timeline);
  // Every flag and both files checked together: every problem named at once.
  const profile = await check.load(() => loadSimProfile(flags.profile));
  const workload = await check.load(() => loadWorkload(flags.workload));
  check.require(
    (flags["tls-cert"] === undefined) !== (flags["tls-key"] === undefined),
    "--tls-cert and --tls-key: give both or neither",
  );
  const tls = flags["tls-cert"] !== undefined && flags["tls-key"] !== undefined
    ? await check.load(async () => ({
      cert: await readPem(flags["tls-cert"]!, "--tls-cert"),
      key: await readPem(flags["tls-key"]!, "--tls-key"),
    }))
    : undefined;
  check.throwIfAny();
  const sim = await startSim({
    port: flags.port,
    hostname: flags.host,
    expose: flags.expose,
    profile: profile!,
    workload: workload!,
    seed: flags.seed,
    quiet: flags.quiet,
    timelineFile: flags.timeline,
    ...(tls ? { tls } : {}),
  });
  console.log(sim.url);
  const { promise: done, resolve } = Promise.withResolvers<void>();
  const onSignal = () => resolve();
  Deno.addSignalListener("SIGINT", onSignal);
  Deno.addSignalListener("SIGTERM", onSignal);
  const timer = flags["duration-s"] === undefined ? undefined : setTimeout(resolve, flags["duration-s"] * 1000);
  await done;
  clearTimeout(timer);
  Deno.removeSignalListener("SIGINT", onSignal);
  Deno.removeSignalListener("SIGTERM", onSignal);
  await sim.stop();
}

/** A PEM file's text; a file that is not PEM is an {@linkcode InputError} naming the flag. */
async function readPem(path: string, flag: string): Promise<string> {
  const text = new TextDecoder().decode(await readInputFile(path, `${flag} file`));
  if (!text.includes("-----BEGIN ")) throw new InputError(`${flag} ${path}: not a PEM file (no -----BEGIN line)`);
  return text;
}

if (import.meta.main) await runCommand(SIM_COMMAND, main);
