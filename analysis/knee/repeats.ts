/**
 * Repeats: the same offered rate measured more than once (repeated sweep
 * steps like `step-03-r2`, or several runs of one plan). They are grouped
 * into one level and kept apart: each repeat's value is shown with the
 * spread, and a threshold inside the spread is flagged, never averaged away.
 *
 * @module
 */
import { InputError } from "../../schema/errors.ts";
import type { Stage } from "../../schema/plan.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import { runnerManifest } from "../run/imported_run.ts";
import { type LevelPoint, pointSignals, type PreparedRun } from "./levels.ts";

/** One load level: every stage that offered its planned rate, pooled and one by one. */
export interface Level {
  planned_rps: number;
  /** All repeats' requests together (counts summed, percentiles over the union): the value tested. */
  pooled: LevelPoint;
  /** Each (run, stage) alone, in run then stage order. */
  repeats: LevelPoint[];
}

/** The values of one signal over a level's repeats. */
export interface Spread {
  values: (number | null)[];
  min: number | null;
  max: number | null;
}

/** Stages of a run that offered no request (e.g. after a sweep stopped early): not points of the curve. */
export interface SkippedStage {
  run_id: string;
  stage: string;
  reason: string;
}

/** Planned rates equal to 9 significant digits are one level. */
const rateKey = (rps: number): number => Number(rps.toPrecision(9));

/**
 * Groups the steady and burst stages of the runs by planned offered rate
 * into levels, lowest rate first. A stage with no request is skipped (and
 * listed), so a sweep that stopped early adds no empty point.
 *
 * @example Two runs offering the same two rates make two levels of two repeats each
 * ```ts ignore
 * const { levels } = groupLevels([prepareRun(runA, policy), prepareRun(runB, policy)]);
 * assert.deepEqual(levels.map((l) => l.repeats.length), [2, 2]);
 * ```
 */
export function groupLevels(runs: PreparedRun[]): { levels: Level[]; skipped: SkippedStage[] } {
  const groups = new Map<number, { run: PreparedRun; stage: Stage }[]>();
  const skipped: SkippedStage[] = [];
  const repeats = new Map<number, LevelPoint[]>();
  for (const run of runs) {
    for (const stage of run.stages) {
      const point = pointSignals([{ run, stage }]);
      if (point.offered === 0) {
        skipped.push({ run_id: run.run_id, stage: stage.name, reason: "no request was offered in this stage" });
        continue;
      }
      const key = rateKey(stage.offered_rps);
      groups.set(key, [...(groups.get(key) ?? []), { run, stage }]);
      repeats.set(key, [...(repeats.get(key) ?? []), point]);
    }
  }
  const levels = [...groups.keys()].sort((a, b) => a - b).map((key) => {
    const parts = groups.get(key)!;
    const each = repeats.get(key)!;
    return { planned_rps: key, pooled: parts.length === 1 ? each[0]! : pointSignals(parts), repeats: each };
  });
  return { levels, skipped };
}

/**
 * The spread of values over repeats: each value, min and max (nulls kept in
 * `values`, ignored by min/max).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { spreadOf } from "./repeats.ts";
 * assert.deepEqual(spreadOf([0.9, null, 0.7]), { values: [0.9, null, 0.7], min: 0.7, max: 0.9 });
 * ```
 */
export function spreadOf(values: (number | null)[]): Spread {
  const known = values.filter((v): v is number => v !== null);
  return {
    values,
    min: known.length ? Math.min(...known) : null,
    max: known.length ? Math.max(...known) : null,
  };
}

/**
 * True when the repeats disagree about a threshold: some lie on each side of
 * it (min < threshold < max, or one exactly on it while others are not).
 *
 * @example A floor of 0.8 inside the spread 0.7–0.9 cannot be decided
 * ```ts
 * import assert from "node:assert/strict";
 * import { spreadOf, straddles } from "./repeats.ts";
 * assert.equal(straddles(spreadOf([0.9, 0.7]), 0.8), true);
 * assert.equal(straddles(spreadOf([0.9, 0.85]), 0.8), false);
 * ```
 */
export function straddles(spread: Spread, threshold: number): boolean {
  if (spread.min === null || spread.max === null || spread.min === spread.max) return false;
  return spread.min <= threshold && threshold <= spread.max;
}

/** Canonical JSON (sorted keys), to compare plan specs whatever their key order. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    return `{${
      Object.keys(o).sort().filter((k) => o[k] !== undefined).map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
        .join(",")
    }}`;
  }
  return JSON.stringify(v);
}

/** How several runs were accepted as repeats of one plan. */
export interface RepeatCheck {
  /** The rule that matched, in words. */
  basis: string;
  /** Differences that do not stop the comparison but must be read (conditions, routes). */
  warnings: string[];
}

/**
 * Checks that the runs are repeats of one plan: distinct run ids, one
 * workload (sha256), and the same saved schedule (schedule_sha256) or the
 * same plan spec apart from its seed. Anything else is an
 * {@linkcode InputError} naming each run folder.
 */
export function checkRepeatRuns(runs: LoadedRun[]): RepeatCheck {
  if (runs.length < 2) return { basis: "one run", warnings: [] };
  // An imported run records no plan or workload: it cannot be shown to repeat another (an InputError naming it).
  const man = (r: LoadedRun) => runnerManifest(r, "a knee over repeated runs (one plan, one workload)");
  const [first, ...rest] = runs as [LoadedRun, ...LoadedRun[]];
  const problems: string[] = [];
  const ids = new Map<string, string>();
  for (const r of runs) {
    const seen = ids.get(r.manifest.run_id);
    if (seen) problems.push(`${r.dir}: run_id ${r.manifest.run_id} is also ${seen}: the same run given twice`);
    ids.set(r.manifest.run_id, r.dir);
  }
  for (const r of rest) {
    if (man(r).workload.sha256 !== man(first).workload.sha256) {
      problems.push(
        `${r.dir}: run.json workload.sha256 ${man(r).workload.sha256} differs from ${first.dir} (${
          man(first).workload.sha256
        })`,
      );
    }
  }
  const sameSchedule = rest.every((r) => man(r).plan.schedule_sha256 === man(first).plan.schedule_sha256);
  const specNoSeed = (r: LoadedRun) => canonical({ ...man(r).plan.spec, seed: undefined });
  const sameSpec = rest.every((r) => specNoSeed(r) === specNoSeed(first));
  if (!sameSchedule && !sameSpec) {
    for (const r of rest.filter((r) => specNoSeed(r) !== specNoSeed(first))) {
      problems.push(
        `${r.dir}: run.json plan.spec (${man(r).plan.spec.name}) differs from ${first.dir} (${
          man(first).plan.spec.name
        }) beyond its seed, and the schedules differ`,
      );
    }
  }
  if (problems.length) throw new InputError("the runs are not repeats of one plan", problems);
  const warnings: string[] = [];
  for (const r of rest) {
    if (canonical(man(r).conditions) !== canonical(man(first).conditions)) {
      warnings.push(`${r.dir}: run.json conditions differ from ${first.dir}: the repeats ran under other conditions`);
    }
  }
  const basis = sameSchedule
    ? `same schedule (plan.schedule_sha256 ${man(first).plan.schedule_sha256.slice(0, 12)}…)`
    : `same plan spec apart from the seed (seeds ${runs.map((r) => man(r).plan.seed).join(", ")})`;
  return { basis, warnings };
}
