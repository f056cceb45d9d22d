/**
 * What the analysis needs to know about a run imported from another tool's file (run.json `kind: "imported"`,
 * schema/imported_manifest.ts): where it came from and what the source lacks — the caveats every verb carries into
 * its disclosure — whether it has a time window at all, and the runner-only fields it does not have.
 *
 * @module
 */
import { basename } from "node:path";
import { InputError } from "../../schema/errors.ts";
import {
  type AnyManifest,
  type AnyStage,
  type ImportedManifest,
  isImported,
  isRunnerRun,
  runKind,
} from "../../schema/imported_manifest.ts";
import { isProduction, type ProductionManifest } from "../../schema/production_manifest.ts";
import type { Stage } from "../../schema/plan.ts";
import type { RunManifest } from "../../schema/run_manifest.ts";

export { isImported, isRunnerRun, runKind };

/** A run as the helpers here need it. */
interface RunLike {
  dir: string;
  manifest: AnyManifest;
}

/** The rule for a run without a time window, stated in every disclosure of one. */
export const NO_TIME_WINDOW_RULE =
  "NO TIME WINDOW: the source holds only durations per request (no send or completion time), so every request is " +
  "placed at ms 0 and no rate can be recomputed: accepted_goodput and every per-second rate are null; counts, " +
  "ratios (acceptance_rate, slo_miss_rate) and latency distributions stand";

/** The imported run's source in one line: tool, version, files with the first 12 hex of each sha256. */
export function sourceLine(m: ImportedManifest): string {
  const version = m.source.tool_version === null ? "version not stated" : m.source.tool_version;
  // By name and hash, not by the folder it was read from: the text is forwarded (run.json keeps the path as given).
  const files = m.source.files.map((f) => `${basename(f.path)} (${f.format}, sha256 ${f.sha256.slice(0, 12)}…)`)
    .join(", ");
  return `IMPORTED RUN: requests written by ${m.source.tool} (${version}), imported from ${files}; not measured by ` +
    "this toolkit's runner";
}

/**
 * The caveats of an imported run, each a sentence a reviewer can quote: the source, the timeline, then every lack
 * field by field with its consequence. Empty for a runner's run.
 *
 * @example A runner's run has none
 * ```ts
 * import assert from "node:assert/strict";
 * import { importCaveats } from "./imported_run.ts";
 * assert.deepEqual(importCaveats({ schema_version: 1 } as never), []);
 * ```
 */
export function importCaveats(m: AnyManifest): string[] {
  if (!isImported(m)) return [];
  return [
    sourceLine(m),
    `timeline (${m.timeline.kind}): ${m.timeline.origin}`,
    ...(m.timeline.rates ? [] : [NO_TIME_WINDOW_RULE]),
    ...m.lacks.map((l) => `the source lacks ${l.field}: ${l.consequence}`),
  ];
}

/**
 * What an imported run changes in a latency metric's inclusion rule, in a sentence (null for a runner's run): TTFT
 * and e2e run from the tool's send when it keeps no schedule; every metric names the source and what it lacks.
 *
 * @example A runner's run changes nothing
 * ```ts
 * import assert from "node:assert/strict";
 * import { latencyCaveat } from "./imported_run.ts";
 * assert.equal(latencyCaveat({ schema_version: 1 } as never, "e2e_ms"), null);
 * ```
 */
export function latencyCaveat(m: AnyManifest, metric: string): string | null {
  if (!isImported(m)) return null;
  const lacks = `run.json lacks: ${m.lacks.map((l) => l.field).join(", ")}`;
  const fromSend = (metric === "ttft_ms" || metric === "e2e_ms") && m.timeline.scheduled_from !== "schedule";
  return `IMPORTED from ${m.source.tool}${
    fromSend
      ? ": the source has no schedule, so scheduled_ms is its send time (durations only: ms 0) and this runs from " +
        "the send: coordinated omission possible"
      : ""
  } (${lacks})`;
}

/** False for an imported run whose source holds durations only: rates over a window cannot be recomputed. */
export function hasTimeWindow(m: AnyManifest): boolean {
  return !isImported(m) || m.timeline.rates;
}

/** False for an imported run whose source has no wall-clock time: its epoch_iso is a placeholder. */
export function hasEpoch(m: AnyManifest): boolean {
  return !isImported(m) || m.timeline.epoch_known;
}

/**
 * Where the run ended, ms: run.json `result.ended_ms`; for an imported run the end of its last stage; for a
 * production recording the end of its observation (`observation.ended_ms`: the close, or the last flush).
 */
export function endedMs(m: AnyManifest): number {
  if (isRunnerRun(m)) return m.result.ended_ms;
  return isProduction(m) ? m.observation.ended_ms : Math.max(0, ...m.stages.map((s) => s.end_ms));
}

/** Where a run that is not the runner's came from, in words: `imported from aiperf`, `a production recording of app`. */
function notRunnerSource(m: ImportedManifest | ProductionManifest): string {
  return isImported(m) ? `imported from ${m.source.tool}` : `a production recording of ${m.app.name} ${m.app.version}`;
}

/**
 * The runner's manifest of a run, for an analysis that needs what only the runner records (its retry policy,
 * timeouts, plan, targets); an imported run or a production recording is refused with an InputError naming the
 * folder and what is missing.
 */
export function runnerManifest(run: RunLike, what: string): RunManifest {
  const m = run.manifest;
  if (isRunnerRun(m)) return m;
  const kind = runKind(m);
  throw new InputError(
    `${run.dir}: ${what} needs a run written by this toolkit's runner; this run is ${notRunnerSource(m)} ` +
      `(run.json kind "${kind}"), whose files do not record it`,
  );
}

/**
 * A value of a runner-only field, or the words that say an imported run or a production recording does not record
 * it (never equal across runs).
 */
export function runnerValue(m: AnyManifest, get: (r: RunManifest) => string): string {
  return isRunnerRun(m) ? get(m) : `not recorded (${notRunnerSource(m)}, run ${m.run_id})`;
}

/** The stages a load level can be: those with a planned rate (an imported stage the tool ran closed-loop has none). */
export function ratedStages(stages: readonly AnyStage[]): Stage[] {
  return stages.filter((s): s is Stage => s.offered_rps !== null);
}
