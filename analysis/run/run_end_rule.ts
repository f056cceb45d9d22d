/**
 * How a run ended, in words and as data, without reading a log: the end-of-run
 * rule every disclosure states, the headline of an incomplete run, and the
 * clipping of stages at the cut. No polars here, so the SQL path
 * (analysis/sql/) states the same rules as the polars path.
 *
 * @module
 */
import { type AnyManifest, type AnyStage, isRunnerRun } from "../../schema/imported_manifest.ts";

/** The error_kind of a request restored from schedule.csv (a killed run's request with no row in the log). */
export const RESTORED_KIND = "restored_from_schedule";

/** How a run ended (run.json `result.status`), where its log ends, and what the cut leaves out. */
export interface RunEnd {
  /**
   * `complete`; `interrupted`: stopped (SIGINT) and finalised; `killed`: run.json still says `running` (no final
   * status); `recording`: a production recording still open (production_run.ts), cut at its last flush.
   */
  status: "complete" | "interrupted" | "killed" | "recording";
  /** Where the log ends, ms since the run epoch (the earliest over shards); null for a complete run. */
  cut_ms: number | null;
  /** The planned end: the end of run.json's last stage, ms. */
  planned_ms: number;
  /** How `cut_ms` was found, in words. */
  rule: string;
  /** run.json's stages as planned: a loaded run's `manifest.stages` are clipped at `cut_ms`. */
  planned_stages: AnyStage[];
  /** Requests scheduled at or after the cut (never started, or not logged): in neither numerator nor denominator. */
  after_cut: number;
  /**
   * Requests scheduled before the cut whose outcome the end of the run decided, not the target: in flight at the
   * stop (outcome aborted, error_kind run_stopped) or, in a killed run, restored from the schedule. Not accepted.
   */
  unresolved: number;
  /** Of `unresolved`: rows restored from schedule.csv (error_kind `restored_from_schedule`). */
  restored: number;
  /** The warning every command prints first; null for a complete run. */
  headline: string | null;
}

/** The cut rule, stated in the disclosure and the docs. */
export const RUN_END_RULE =
  "an incomplete run's window ends where its log ends (the cut): interrupted (run.json result.status " +
  '"interrupted"): the earlier of result.ended_ms and the scheduled_ms of the first request never started ' +
  'because of the stop (outcome not_sent, error_kind run_stopped); killed (result.status still "running", no final ' +
  "status): the latest time recorded in any row of requests, attempts or tools (the last flushed evidence); " +
  "several shards: the earliest cut. A request scheduled at or after the cut is in neither the numerator nor the " +
  "denominator; every request scheduled before it stays in the denominator: a killed run's requests that have no " +
  "row (in flight at the kill, or finished after the last flush) are restored from the saved schedule.csv as " +
  `outcome aborted, error_kind ${RESTORED_KIND}, and count as not accepted, like the requests an interrupt ` +
  "aborted in flight. Stage seconds are clipped at the cut; stages after it drop out";

const secs = (ms: number) => `${+(ms / 1000).toFixed(3)} s`;

/**
 * The end of a complete run over `stages`: no cut, nothing left out. For
 * runs built in code (a `LoadedRun` literal).
 */
export function completeRunEnd(stages: AnyStage[]): RunEnd {
  return {
    status: "complete",
    cut_ms: null,
    planned_ms: Math.max(0, ...stages.map((s) => s.end_ms)),
    rule: 'complete (run.json result.status "complete"): the window is the plan\'s',
    planned_stages: stages,
    after_cut: 0,
    unresolved: 0,
    restored: 0,
    headline: null,
  };
}

/** The first line of every command on an incomplete run; null for a complete one. */
export function runEndHeadline(end: Omit<RunEnd, "headline">): string | null {
  if (end.cut_ms === null) return null;
  const how = end.status === "killed"
    ? `killed: no final status (run.json result.status is "running"); its log ends at ${secs(end.cut_ms)} of ` +
      `${secs(end.planned_ms)} planned`
    : `interrupted at ${secs(end.cut_ms)} of ${secs(end.planned_ms)} planned (run.json result.status "interrupted")`;
  const restored = end.restored ? `, ${end.restored} of them restored from schedule.csv (no row in the log)` : "";
  return `INCOMPLETE RUN, ${how}. Every window ends there: ${end.after_cut} requests scheduled after it are in ` +
    `neither numerator nor denominator; ${end.unresolved} scheduled before it were still in flight when the run ` +
    `ended and count as not accepted${restored}.`;
}

/**
 * The manifests with their stages clipped at the run's cut (unchanged for a complete run; an imported run is one; a
 * production recording's stages are clipped when it is opened, production_run.ts).
 */
export function clipManifests<M extends AnyManifest>(manifests: M[], end: RunEnd): M[] {
  const cut = end.cut_ms;
  return cut === null
    ? manifests
    : manifests.map((m) => (isRunnerRun(m) ? { ...m, stages: clipStages(m.stages, cut) } : m));
}

/**
 * The run's stages clipped at `endMs`: a stage that starts at or after it
 * drops out, one that spans it ends there. Stage seconds then count only
 * time the log covers.
 *
 * @example A 60 s plan cut at 17 s keeps warm-up whole and 7 s of the steady stage
 * ```ts
 * import { clipStages } from "./run_end_rule.ts";
 * import assert from "node:assert/strict";
 * const stages = [
 *   { name: "warm", kind: "warmup" as const, start_ms: 0, end_ms: 10_000, offered_rps: 1 },
 *   { name: "main", kind: "steady" as const, start_ms: 10_000, end_ms: 55_000, offered_rps: 4 },
 *   { name: "drain", kind: "drain" as const, start_ms: 55_000, end_ms: 60_000, offered_rps: 0 },
 * ];
 * assert.deepEqual(clipStages(stages, 17_000).map((s) => [s.name, s.end_ms]), [["warm", 10_000], ["main", 17_000]]);
 * ```
 */
export function clipStages<S extends { start_ms: number; end_ms: number }>(stages: readonly S[], endMs: number): S[] {
  return stages.filter((s) => s.start_ms < endMs).map((s) => (s.end_ms > endMs ? { ...s, end_ms: endMs } : s));
}

/**
 * The cut of one interrupted shard folder (run.json result.status `interrupted`), and its rule in words: the earlier
 * of `result.ended_ms` and the scheduled_ms of the first request never started because of the stop (`stopped`, null
 * when none), as {@linkcode RUN_END_RULE} says.
 *
 * @example Stopped at 12 s, the first request left unstarted was due at 11.5 s
 * ```ts
 * import { interruptedCut } from "./run_end_rule.ts";
 * import assert from "node:assert/strict";
 * assert.equal(interruptedCut("out/r", 12_000, 11_500).cut, 11_500);
 * ```
 */
export function interruptedCut(dir: string, ended: number, stopped: number | null): { cut: number; rule: string } {
  const byStop = stopped === null ? "" : `, first request never started because of the stop ${stopped} ms`;
  const cut = Math.min(ended, stopped ?? Infinity);
  return { cut, rule: `${dir}: interrupted: min(result.ended_ms ${ended} ms${byStop}) = ${cut} ms` };
}
