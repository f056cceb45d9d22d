/**
 * Re-derives the design workload `data/workloads/design-v1/` (workload.json
 * and class_defaults.json) from its recipe. Deterministic: the same code
 * writes byte-identical files.
 *
 *     npx deno run --allow-read --allow-write scripts/make_design_workload.ts [--out DIR]
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { buildDesignWorkload } from "../data/workloads/design-v1/recipe/build.ts";
import { type CommandSpec, runCommand } from "../lib/command.ts";
import { writeWorkloadFiles } from "./_workload_files.ts";

/** `make_design_workload`: its flags and help (lib/command.ts). */
export const MAKE_DESIGN_WORKLOAD_COMMAND = {
  name: "make_design_workload",
  invocation: "npx deno run --allow-read --allow-write scripts/make_design_workload.ts",
  summary: "re-derives the design workload (`workload.json`, `class_defaults.json`) from its recipe, byte for byte",
  flags: {
    out: {
      type: "string",
      arg: "DIR",
      defaultText: "the committed `data/workloads/design-v1`",
      description: "the folder to write into (created if missing)",
    },
  },
  examples: ["npx deno run --allow-read --allow-write scripts/make_design_workload.ts --out /tmp/design-v1"],
} as const satisfies CommandSpec;

/** Options of {@linkcode writeDesignWorkload}. */
export interface WriteOptions {
  /** Folder to write into (created if missing). @default the committed data/workloads/design-v1 */
  out?: string;
}

/** Builds, validates and writes the design workload; returns the files written. */
export async function writeDesignWorkload(options: WriteOptions = {}): Promise<string[]> {
  const out = options.out ?? fileURLToPath(new URL("../data/workloads/design-v1/", import.meta.url));
  const { workload, classDefaults } = buildDesignWorkload();
  return await writeWorkloadFiles(out, { workload, classDefaults });
}

if (import.meta.main) {
  await runCommand(MAKE_DESIGN_WORKLOAD_COMMAND, async ({ values: v, check }) => {
    check.require(v.out === "", "--out needs a folder");
    check.throwIfAny();
    const files = await writeDesignWorkload(v.out === undefined ? {} : { out: v.out });
    for (const f of files) console.log(`wrote ${f}`);
  });
}
