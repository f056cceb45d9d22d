/**
 * Writes a generated workload's two files (`workload.json`, `class_defaults.json`) after validating both against
 * the contract, so a recipe bug never reaches the committed files. Shared by the scripts that re-derive a
 * committed workload from its recipe (design-v1, chat-example, engine-validation).
 *
 * @module
 */
import { join } from "node:path";
import { parseWith } from "../schema/load.ts";
import { ClassDefaultsFile, Workload } from "../schema/workload.ts";

/** Validates and writes `built` into `out` (created if missing), pretty-printed; returns the files written. */
export async function writeWorkloadFiles(
  out: string,
  built: { workload: unknown; classDefaults: unknown },
): Promise<string[]> {
  parseWith(Workload, built.workload, "workload.json (generated)", "workload");
  parseWith(ClassDefaultsFile, built.classDefaults, "class_defaults.json (generated)", "class defaults");
  const files = [[join(out, "workload.json"), built.workload], [
    join(out, "class_defaults.json"),
    built.classDefaults,
  ]] as const;
  await Deno.mkdir(out, { recursive: true });
  for (const [file, value] of files) await Deno.writeTextFile(file, `${JSON.stringify(value, null, 2)}\n`);
  return files.map(([file]) => file);
}
