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
import { parseArgs } from "node:util";
import { EXIT_BAD_INPUT, InputError, loadSimProfile } from "../schema/mod.ts";
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

/** Parses the CLI flags; an {@linkcode InputError} names every bad one. */
export function parseSimFlags(args: string[]): SimCliFlags {
  let v;
  try {
    v = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: "string" },
        profile: { type: "string" },
        workload: { type: "string" },
        seed: { type: "string" },
        timeline: { type: "string" },
        "duration-s": { type: "string" },
        quiet: { type: "boolean" },
      },
    }).values;
  } catch (e) {
    throw new InputError(`${(e as Error).message}\n${USAGE}`, [], { cause: e });
  }
  const problems: string[] = [];
  const int = (flag: string, raw: string | undefined, dflt: number, min: number, max: number): number => {
    if (raw === undefined) return dflt;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      problems.push(`--${flag}: expected an integer ${min}..${max}, got "${raw}"`);
    }
    return n;
  };
  const port = int("port", v.port, DEFAULT_PORT, 0, 65535);
  const seed = int("seed", v.seed, 1, 0, 2 ** 32 - 1);
  let durationS: number | undefined;
  if (v["duration-s"] !== undefined) {
    durationS = Number(v["duration-s"]);
    if (!(durationS > 0) || !Number.isFinite(durationS)) {
      problems.push(`--duration-s: expected a positive number of seconds, got "${v["duration-s"]}"`);
    }
  }
  if (problems.length) throw new InputError("bad flags", [...problems, USAGE]);
  return {
    port,
    profile: v.profile ?? DEFAULT_PROFILE,
    workload: v.workload ?? DEFAULT_WORKLOAD,
    seed,
    timeline: v.timeline,
    durationS,
    quiet: v.quiet ?? false,
  };
}

async function main(args: string[]): Promise<void> {
  const flags = parseSimFlags(args);
  const profile = await loadSimProfile(flags.profile);
  const workload = await loadWorkload(flags.workload);
  const sim = await startSim({
    port: flags.port,
    profile,
    workload,
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

if (import.meta.main) {
  try {
    await main(Deno.args);
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    console.error(e.message);
    Deno.exit(EXIT_BAD_INPUT);
  }
}
