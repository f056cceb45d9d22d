import { dirname, resolve } from "node:path";
import { PlanSpec, type PlanSpecParsed } from "../../schema/plan.ts";
import { InputError } from "../../schema/errors.ts";
import { loadJsonFile } from "../../schema/load.ts";
import { planSizeProblem } from "./plan_size.ts";
import { planProblems } from "./validate_plan.ts";

/** A validated plan and where it lives (trace files are relative to `planDir`). */
export interface LoadedPlan {
  spec: PlanSpecParsed;
  planDir: string;
  planFile: string;
}

/**
 * Reads and validates an arrival plan file, reporting every problem at once
 * as an {@linkcode InputError} naming the file and field, a plan over the size
 * bound of runner/plans/plan_size.ts included (checked from the plan alone,
 * before any arrival is generated).
 */
export async function loadPlan(path: string): Promise<LoadedPlan> {
  const spec = await loadJsonFile(path, PlanSpec, "arrival plan");
  const planDir = dirname(resolve(path));
  const problems = planProblems(spec, path);
  const tooBig = await planSizeProblem(spec, path, planDir);
  if (tooBig !== null) problems.push(tooBig);
  if (problems.length) throw new InputError(`${path}: invalid arrival plan`, problems);
  return { spec, planDir, planFile: path };
}
