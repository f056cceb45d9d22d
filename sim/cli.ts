/**
 * `deno task sim`: runs the simulator until SIGINT/SIGTERM or `--duration-s`.
 *
 *   deno task sim [--port 8787] [--profile data/sim/default.json]
 *     [--workload data/workloads/design-v1] [--seed 1] [--timeline FILE] [--duration-s N] [--quiet]
 *
 * Prints the URL on stdout. Bad flags or files: a message naming the file
 * and field on stderr, exit code 2.
 * @module
 */
import { InputCheck, parseFlags, runMain } from "../lib/cli.ts";
import { loadSimProfile } from "../schema/mod.ts";
import { loadWorkload } from "../schema/workload_file.ts";
import { startSim } from "./server.ts";

const DEFAULT_PROFILE = "data/sim/default.json";
const DEFAULT_WORKLOAD = "data/workloads/design-v1";
const DEFAULT_PORT = 8787;

const USAGE = "usage: deno task sim [--port P] [--profile FILE] [--workload PATH] [--seed N] " +
  "[--timeline FILE] [--duration-s N] [--quiet]";

/** The CLI's parsed flags. */
export interface SimCliFlags {
  port: number;
  profile: string;
  workload: string;
  seed: number;
  timeline: string | undefined;
  durationS: number | undefined;
  quiet: boolean;
}

/** Parses the CLI flags; an InputError names every bad one. */
export function parseSimFlags(args: string[]): SimCliFlags {
  const v = parseFlags(args, {
    port: { type: "string" },
    profile: { type: "string" },
    workload: { type: "string" },
    seed: { type: "string" },
    timeline: { type: "string" },
    "duration-s": { type: "string" },
    quiet: { type: "boolean" },
  }, USAGE).values;
  const check = new InputCheck();
  const port = check.number("port", v.port, { min: 0, max: 65535, integer: true });
  const seed = check.number("seed", v.seed, { min: 0, max: 2 ** 32 - 1, integer: true });
  const durationS = check.number("duration-s", v["duration-s"], { above: 0 });
  check.outputFolder("timeline", v.timeline);
  check.throwIfAny(USAGE);
  return {
    port: port ?? DEFAULT_PORT,
    profile: v.profile ?? DEFAULT_PROFILE,
    workload: v.workload ?? DEFAULT_WORKLOAD,
    seed: seed ?? 1,
    timeline: v.timeline,
    durationS,
    quiet: v.quiet ?? false,
  };
}

async function main(args: string[]): Promise<void> {
  const flags = parseSimFlags(args);
  // Both files checked together: every problem named at once.
  const check = new InputCheck();
  const profile = await check.load(() => loadSimProfile(flags.profile));
  const workload = await check.load(() => loadWorkload(flags.workload));
  check.throwIfAny(USAGE);
  const sim = await startSim({
    port: flags.port,
    profile: profile!,
    workload: workload!,
    seed: flags.seed,
    quiet: flags.quiet,
    timelineFile: flags.timeline,
  });
  console.log(sim.url);
  const { promise: done, resolve } = Promise.withResolvers<void>();
  const onSignal = () => resolve();
  Deno.addSignalListener("SIGINT", onSignal);
  Deno.addSignalListener("SIGTERM", onSignal);
  const timer = flags.durationS === undefined ? undefined : setTimeout(resolve, flags.durationS * 1000);
  await done;
  clearTimeout(timer);
  Deno.removeSignalListener("SIGINT", onSignal);
  Deno.removeSignalListener("SIGTERM", onSignal);
  await sim.stop();
}

if (import.meta.main) await runMain(() => main(Deno.args));
