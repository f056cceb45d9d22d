/**
 * Re-derives the design workload `data/workloads/design-v1/` (workload.json
 * and class_defaults.json) from its recipe. Deterministic: the same code
 * writes byte-identical files.
 *
 *     deno run --allow-read --allow-write scripts/make_design_workload.ts [--out DIR]
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildDesignWorkload } from "../data/workloads/design-v1/recipe/build.ts";
import { EXIT_BAD_INPUT, InputError } from "../schema/errors.ts";
import { parseWith } from "../schema/load.ts";
import { ClassDefaultsFile, Workload } from "../schema/workload.ts";

const USAGE = "usage: make_design_workload.ts [--out DIR]   (default DIR: data/workloads/design-v1)";

/** Options of {@linkcode writeDesignWorkload}. */
export interface WriteOptions {
  /** Folder to write into (created if missing). @default the committed data/workloads/design-v1 */
  out?: string;
}

/** Builds, validates and writes the design workload; returns the files written. */
export async function writeDesignWorkload(options: WriteOptions = {}): Promise<string[]> {
  const out = options.out ?? fileURLToPath(new URL("../data/workloads/design-v1/", import.meta.url));
  const { workload, classDefaults } = buildDesignWorkload();
  // Validate what is written, so a recipe bug never reaches the frozen files.
  parseWith(Workload, workload, "workload.json (generated)", "workload");
  parseWith(ClassDefaultsFile, classDefaults, "class_defaults.json (generated)", "class defaults");
  const files = [
    [join(out, "workload.json"), workload],
    [join(out, "class_defaults.json"), classDefaults],
  ] as const;
  await Deno.mkdir(out, { recursive: true });
  for (const [file, value] of files) await Deno.writeTextFile(file, `${JSON.stringify(value, null, 2)}\n`);
  return files.map(([file]) => file);
}

function parseArgs(args: string[]): WriteOptions {
  const options: WriteOptions = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--out" && args[i + 1] !== undefined) options.out = args[++i];
    else if (a?.startsWith("--out=")) options.out = a.slice("--out=".length);
    else throw new InputError(`bad argument ${JSON.stringify(a)}\n${USAGE}`);
  }
  if (options.out === "") throw new InputError(`--out needs a folder\n${USAGE}`);
  return options;
}

if (import.meta.main) {
  try {
    const files = await writeDesignWorkload(parseArgs(Deno.args));
    for (const f of files) console.log(`wrote ${f}`);
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    console.error(e.message);
    Deno.exit(EXIT_BAD_INPUT);
  }
}
