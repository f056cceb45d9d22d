import type { PlanSpecParsed } from "../../schema/plan.ts";
import { stagedProblems } from "./staged.ts";
import { sweepProblems } from "./sweep.ts";

/**
 * Every problem with a parsed plan that its zod schema cannot see, each
 * naming the file and field: a first stage that is not `warmup`, repeated
 * stage names, a sweep of more than 999 steps or whose only step is its
 * warm-up, a csv/jsonl trace without `time_field` (or an Azure/Mooncake
 * trace with one, which would be ignored).
 */
export function planProblems(spec: PlanSpecParsed, planFile: string): string[] {
  const a = spec.arrivals;
  if (a.process === "staged") return stagedProblems(a, planFile);
  if (a.process === "sweep") return sweepProblems(a, planFile);
  if (a.process !== "trace") return [];
  const generic = a.format === "csv" || a.format === "jsonl";
  if (generic && a.time_field === undefined) {
    return [`${planFile}: arrivals.time_field: a ${a.format} trace needs the name of its time column`];
  }
  if (!generic && a.time_field !== undefined) {
    return [`${planFile}: arrivals.time_field: not used by format ${a.format} (its time column is fixed)`];
  }
  return [];
}
