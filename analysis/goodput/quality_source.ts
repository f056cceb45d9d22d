import { InputError } from "../../schema/errors.ts";
import { type ClassSlo, type QualitySettings, QualitySettings as Settings, type SloPolicy } from "../../schema/slo.ts";
import type { QualitySourceName } from "../../schema/slo.ts";

/** A class's quality source as the policy states it: its own entry's, else the default's; absent means `inline`. */
export function qualitySourceOf(slo: ClassSlo): QualitySourceName {
  return slo.quality_source ?? "inline";
}

/** The policy's quality settings with every default filled (`min_judge_kappa` 0.6, `level` 0.95, …). */
export function qualitySettings(policy: SloPolicy): QualitySettings {
  return Settings.parse(policy.quality ?? {});
}

/**
 * The entries of a policy that name a quality source other than `inline`: `(default)` for the default class.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { measuredQualityEntries } from "./quality_source.ts";
 * const gates = ["output_valid" as const, "quality_ok" as const];
 * assert.deepEqual(measuredQualityEntries({
 *   denominator: "offered", window: { exclude_stage_kinds: [] }, default: { gates },
 *   classes: { a: { gates, quality_source: "judge" }, b: { gates, quality_source: "inline" } },
 * }), [{ entry: "a", source: "judge" }]);
 * ```
 */
export function measuredQualityEntries(policy: SloPolicy): { entry: string; source: QualitySourceName }[] {
  const all: [string, ClassSlo][] = [...Object.entries(policy.classes), ["(default)", policy.default]];
  return all.filter(([, c]) => qualitySourceOf(c) !== "inline").map(([entry, c]) => ({
    entry,
    source: qualitySourceOf(c),
  }));
}

/**
 * Refuses a policy that names a measured quality source (`judge`, `human`, `calibrated-judge`) in an analysis that
 * counts the requests log's own `quality_ok` column: it would silently count inline quality instead. `analyze`, its
 * `--alternatives`, `audit` and `ledger` apply a quality source (analysis/quality/quality_goodput.ts,
 * analysis/cost/quality_ledger.ts).
 */
export function refuseMeasuredQuality(policy: SloPolicy, caller: string): void {
  const measured = measuredQualityEntries(policy);
  if (!measured.length) return;
  throw new InputError(
    `${caller}: the SLO policy takes quality from a measured source, which this analysis does not apply`,
    measured.map(({ entry, source }) =>
      `${caller}: ${entry === "(default)" ? "default" : `classes.${entry}`}.quality_source is ${source}: this ` +
      "analysis counts the requests log's quality_ok column only; analyze, audit and ledger apply a measured source " +
      "(docs/quality_goodput.md), or set quality_source inline here"
    ),
  );
}

/**
 * The policy with every class's quality source `inline` (its `judge` dropped; the policy's `quality` settings kept):
 * what the counting engines apply.
 */
export function inlineQualityPolicy(policy: SloPolicy): SloPolicy {
  const strip = (c: ClassSlo): ClassSlo => {
    const { quality_source: _s, judge: _j, ...rest } = c;
    return rest;
  };
  return {
    ...policy,
    classes: Object.fromEntries(Object.entries(policy.classes).map(([n, c]) => [n, strip(c)])),
    default: strip(policy.default),
  };
}
