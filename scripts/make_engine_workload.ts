/**
 * Re-derives the engine-validation workload `data/workloads/engine-validation/` (workload.json and
 * class_defaults.json) from its recipe. Deterministic: the same code writes byte-identical files.
 *
 *     npx deno run --allow-read --allow-write scripts/make_engine_workload.ts [--out DIR]
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { buildEngineWorkload } from "../data/workloads/engine-validation/recipe/build.ts";
import { type CommandSpec, runCommand } from "../lib/command.ts";
import { writeWorkloadFiles } from "./_workload_files.ts";

/** `make_engine_workload`: its flags and help (lib/command.ts). */
export const MAKE_ENGINE_WORKLOAD_COMMAND = {
  name: "make_engine_workload",
  invocation: "npx deno run --allow-read --allow-write scripts/make_engine_workload.ts",
  summary: "re-derives the engine-validation workload (`workload.json`, `class_defaults.json`) from its recipe, " +
    "byte for byte",
  flags: {
    out: {
      type: "string",
      arg: "DIR",
      defaultText: "the committed `data/workloads/engine-validation`",
      description: "the folder to write into (created if missing)",
    },
  },
  examples: ["npx deno run --allow-read --allow-write scripts/make_engine_workload.ts --out /tmp/engine-validation"],
} as const satisfies CommandSpec;

/** Builds, validates and writes the engine-validation workload; returns the files written. */
export async function writeEngineWorkload(options: { out?: string } = {}): Promise<string[]> {
  const out = options.out ?? fileURLToPath(new URL("../data/workloads/engine-validation/", import.meta.url));
  const { workload, classDefaults } = buildEngineWorkload();
  return await writeWorkloadFiles(out, { workload, classDefaults });
}

if (import.meta.main) {
  await runCommand(MAKE_ENGINE_WORKLOAD_COMMAND, async ({ values: v, check }) => {
    check.require(v.out === "", "--out needs a folder");
    check.throwIfAny();
    const files = await writeEngineWorkload(v.out === undefined ? {} : { out: v.out });
    for (const f of files) console.log(`wrote ${f}`);
  });
}
