import { dirname, resolve } from "node:path";
import { PlanSpec, type PlanSpecParsed } from "../../schema/plan.ts";
import { InputError } from "../../schema/errors.ts";
import { loadJsonFile } from "../../schema/load.ts";
import { planProblems } from "./validate_plan.ts";

/** A validated plan and where it lives (trace files are relative to `planDir`). */
export interface LoadedPlan {
  spec: PlanSpecParsed;
  planDir: string;
  planFile: string;
}

/**
 * Reads and validates an arrival plan file, reporting every problem at once
 * as an {@linkcode InputError} naming the file and field.
 */
export async function loadPlan(path: string): Promise<LoadedPlan> {
  const spec = await loadJsonFile(path, PlanSpec, "arrival plan");
  const problems = planProblems(spec, path);
  if (problems.length) throw new InputError(`${path}: invalid arrival plan`, problems);
  return { spec, planDir: dirname(resolve(path)), planFile: path };
}
