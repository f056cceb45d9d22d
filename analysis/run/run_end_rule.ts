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

/** The error_kind of a request (outcome aborted) the stop cut off: in flight at the stop, or restored from schedule. */
export const STOPPED_KINDS = ["run_stopped", RESTORED_KIND] as const;

/** How a run ended (run.json `result.status`), where its log and its window end, and what they leave out. */
export interface RunEnd {
  /**
   * `complete`; `interrupted`: stopped (SIGINT) and finalised; `killed`: run.json still says `running` (no final
   * status); `recording`: a production recording still open (production_run.ts), cut at its last flush.
   */
  status: "complete" | "interrupted" | "killed" | "recording";
  /**
   * Where every window ends, ms since the run epoch; null for a complete run: the earlier of `log_end_ms` and the
   * scheduled_ms of the first censored request, so every request scheduled before it had its fate decided.
   */
  cut_ms: number | null;
  /** Where the log ends (the stop), ms: the earliest over shards; null for a complete run. */
  log_end_ms: number | null;
  /** The planned end: the end of run.json's last stage, ms. */
  planned_ms: number;
  /** How `log_end_ms` and `cut_ms` were found, in words. */
  rule: string;
  /** How `log_end_ms` alone was found, in words (the start of `rule`; null for a complete run). */
  log_end_rule: string | null;
  /**
   * What ended a run whose log ends early, when it was not a kill: the runner's own stop on a failed log write
   * (run.json status `write_failed`: the file and the error code). Absent for a kill and every other end.
   */
  ended_by?: string;
  /** run.json's stages as planned: a loaded run's `manifest.stages` are clipped at `cut_ms`. */
  planned_stages: AnyStage[];
  /**
   * Requests scheduled at or after `cut_ms`, other than the censored: decided after the window's end, never started,
   * or not logged. In neither numerator nor denominator.
   */
  after_cut: number;
  /**
   * Requests scheduled before the log's end whose fate the stop cut off: in flight at the stop (outcome aborted,
   * error_kind run_stopped) or, in a killed run, with no row (restored from the schedule), and not yet past their
   * e2e limit at the log's end (see `decided`; with no policy given, all of them). Censored, not failed: in neither
   * numerator nor denominator (all are at or after `cut_ms`).
   */
  censored: number;
  /** The censored requests' ids, in scheduled order (all of them). */
  censored_ids: string[];
  /**
   * Requests in flight at the stop whose fate was already decided: at the log's end they had run longer than their
   * class's e2e limit under the policy the run was read with (`deadlines`), so they failed. Scheduled before
   * `cut_ms`: in the window and the denominator, not accepted (late_e2e). 0 when no policy was given.
   */
  decided: number;
  /** The decided requests' ids, in scheduled order (all of them). */
  decided_ids: string[];
  /** Where the e2e limits that decide requests in flight at the stop came from (null: none given; none decided). */
  deadlines: string | null;
  /** Of `censored` and `decided`: rows restored from schedule.csv (error_kind `restored_from_schedule`). */
  restored: number;
  /** The warning every command prints first; null for a complete run. */
  headline: string | null;
}

/** The end-of-run rule, stated in the disclosure and the docs. */
export const RUN_END_RULE =
  'an incomplete run\'s log ends at the stop: interrupted (run.json result.status "interrupted"): the earlier of ' +
  "result.ended_ms and the scheduled_ms of the first request never started because of the stop (outcome not_sent, " +
  'error_kind run_stopped); killed (result.status still "running", no final status): the latest time recorded in ' +
  "any row of requests, attempts or tools (the last flushed evidence); several shards: the earliest. A request " +
  "whose fate the stop cut off is censored, not failed: in flight at the stop (outcome aborted, error_kind " +
  "run_stopped) or, in a killed run, scheduled before the log's end with no row (in flight at the kill, or finished " +
  "after the last flush: restored from the saved schedule.csv as outcome aborted, error_kind " +
  `${RESTORED_KIND}, to name it). The window ends at the earlier of the log's end and the scheduled_ms of the ` +
  "first censored request, so every request scheduled before it had its fate decided (a window that kept later " +
  "requests would keep the fast ones the stop let finish and lose the slow ones it cut off). Censored requests and " +
  "every request scheduled at or after the window's end are in neither the numerator nor the denominator. Read " +
  "under an SLO policy (every command that takes one), a request cut off by the stop whose time from its " +
  "scheduled_ms to the log's end already exceeds its e2e limit (its class's, else the policy's default; a declared " +
  "service mode's when it was served in one) had its fate decided before the stop: it failed. It is not censored: " +
  "it stays in the denominator, not accepted (late_e2e), and the window ends at the first request still censored " +
  "(a decided request scheduled after that is left out with every other), so a target that hung until the operator " +
  "stopped it reads as failing, not as healthy. A request " +
  "whose limit is not exceeded, or whose class has no e2e limit, stays censored. Read without a policy, every " +
  "request cut off by the stop is censored. Stage seconds are clipped at the window's end; stages after it drop out";

const secs = (ms: number) => `${+(ms / 1000).toFixed(3)} s`;

/**
 * The end of a complete run over `stages`: no cut, nothing left out. For
 * runs built in code (a `LoadedRun` literal).
 */
export function completeRunEnd(stages: AnyStage[]): RunEnd {
  return {
    status: "complete",
    cut_ms: null,
    log_end_ms: null,
    planned_ms: Math.max(0, ...stages.map((s) => s.end_ms)),
    rule: 'complete (run.json result.status "complete"): the window is the plan\'s',
    log_end_rule: null,
    planned_stages: stages,
    after_cut: 0,
    censored: 0,
    censored_ids: [],
    decided: 0,
    decided_ids: [],
    deadlines: null,
    restored: 0,
    headline: null,
  };
}

/** A censored request: its id and when it was scheduled. */
export interface CensoredRequest {
  request_id: string;
  scheduled_ms: number;
}

/** A request cut off by the stop, with what its e2e limit depends on. */
export interface CutOffRequest extends CensoredRequest {
  class: string;
  /** The service mode it announced, if any (null: none). */
  service_mode: string | null;
}

/**
 * The e2e limits that decide the requests cut off by a stop (`e2eDeadlines`
 * in analysis/goodput/ builds them from an SLO policy).
 */
export interface E2eDeadlines {
  /** The e2e limit, ms, of a request of class `cls` served in service mode `mode`; null when it has none. */
  limit(cls: string, mode: string | null): number | null;
  /** Where the limits come from, in words (the disclosure states it), e.g. `e2e limits of SLO policy slo.json`. */
  source: string;
}

/**
 * Splits the requests cut off by a stop: `decided` are those whose time from
 * scheduled_ms to the log's end exceeds their e2e limit (they failed before
 * the stop), `censored` the rest (no limit, or not yet past it). Without
 * deadlines every one is censored. Both keep the input's order.
 *
 * @example A 3 s limit, the log ending at 30 s: due at 20 s, a request has run 10 s (failed); at 28 s, 2 s (censored)
 * ```ts
 * import { splitCutOff } from "./run_end_rule.ts";
 * import assert from "node:assert/strict";
 * const cut = [
 *   { request_id: "a", scheduled_ms: 20_000, class: "qa", service_mode: null },
 *   { request_id: "b", scheduled_ms: 28_000, class: "qa", service_mode: null },
 * ];
 * const s = splitCutOff(30_000, cut, { limit: () => 3000, source: "test" });
 * assert.deepEqual([s.decided.map((r) => r.request_id), s.censored.map((r) => r.request_id)], [["a"], ["b"]]);
 * assert.equal(splitCutOff(30_000, cut).censored.length, 2);
 * ```
 */
export function splitCutOff<R extends CutOffRequest>(
  logEndMs: number,
  cutOff: readonly R[],
  deadlines?: E2eDeadlines,
): { decided: R[]; censored: R[] } {
  const decided: R[] = [], censored: R[] = [];
  for (const r of cutOff) {
    const limit = deadlines?.limit(r.class, r.service_mode) ?? null;
    (limit !== null && logEndMs - r.scheduled_ms > limit ? decided : censored).push(r);
  }
  return { decided, censored };
}

/**
 * Where the window of an incomplete run ends: the earlier of where its log
 * ends and the scheduled_ms of its first censored request.
 *
 * @example The log ends at 17.35 s; the first request cut off was due at 16.5 s
 * ```ts
 * import { windowEnd } from "./run_end_rule.ts";
 * import assert from "node:assert/strict";
 * assert.equal(windowEnd(17_350, [{ request_id: "m14", scheduled_ms: 17_000 }, { request_id: "m13", scheduled_ms: 16_500 }]), 16_500);
 * assert.equal(windowEnd(17_350, []), 17_350);
 * ```
 */
export function windowEnd(logEndMs: number, censored: readonly CensoredRequest[]): number {
  return Math.min(logEndMs, ...censored.map((c) => c.scheduled_ms));
}

/** What {@linkcode stoppedEnd} builds an incomplete run's end from, besides the requests the stop cut off. */
export interface StoppedLog {
  status: "interrupted" | "killed";
  /** What ended a log that ends early when it was not a kill ({@linkcode RunEnd.ended_by}). */
  ended_by?: string;
  log_end_ms: number;
  /** How `log_end_ms` was found, in words. */
  log_end_rule: string;
  planned_ms: number;
  planned_stages: AnyStage[];
  /** Rows restored from schedule.csv. */
  restored: number;
  /** Requests scheduled at or after the log's end (rows, or a killed shard's schedule entries). */
  beyond: number;
  /** Counts the requests (rows, restored ones included) scheduled in [ms, log end). */
  between(ms: number): Promise<number>;
}

/**
 * The end of an incomplete run ({@linkcode RUN_END_RULE}): the requests the
 * stop cut off split by `deadlines` ({@linkcode splitCutOff}), the window's
 * end at the first still censored, what is left out after it. The one
 * assembly the polars readers and the SQL path share.
 */
export async function stoppedEnd(
  log: StoppedLog,
  cutOff: readonly CutOffRequest[],
  deadlines?: E2eDeadlines,
): Promise<RunEnd> {
  const { decided, censored } = splitCutOff(log.log_end_ms, [...cutOff].sort(byScheduled), deadlines);
  const cut = windowEnd(log.log_end_ms, censored);
  // In the window: the decided scheduled before its end; one after it is left out like every request there.
  const inWindow = decided.filter((r) => r.scheduled_ms < cut);
  const first = censored[0];
  const body = {
    status: log.status,
    cut_ms: cut,
    log_end_ms: log.log_end_ms,
    planned_ms: log.planned_ms,
    rule: log.log_end_rule +
      (first
        ? `; the window ends at the first censored request, ${first.request_id} scheduled at ${first.scheduled_ms} ms`
        : "; no request censored: the window ends there"),
    log_end_rule: log.log_end_rule,
    ...(log.ended_by ? { ended_by: log.ended_by } : {}),
    planned_stages: log.planned_stages,
    // Every censored request is in [cut, log end): counted by between(cut), and not "other".
    after_cut: log.beyond + await log.between(cut) - censored.length,
    censored: censored.length,
    censored_ids: censored.map((r) => r.request_id),
    decided: inWindow.length,
    decided_ids: inWindow.map((r) => r.request_id),
    deadlines: deadlines?.source ?? null,
    restored: log.restored,
  };
  return { ...body, headline: runEndHeadline(body) };
}

/** Censored requests in scheduled order (ties by id), as `RunEnd.censored_ids` lists them. */
export function byScheduled(a: CensoredRequest, b: CensoredRequest): number {
  return a.scheduled_ms - b.scheduled_ms || (a.request_id < b.request_id ? -1 : a.request_id > b.request_id ? 1 : 0);
}

/** How many censored request ids the headline names; the JSON (`censored_ids`) holds them all. */
export const HEADLINE_IDS = 10;

/** The first line of every command on an incomplete run, one line; null for a complete one. */
export function runEndHeadline(end: Omit<RunEnd, "headline">): string | null {
  if (end.cut_ms === null) return null;
  const logEnd = end.log_end_ms ?? end.cut_ms;
  const how = end.ended_by
    ? `${end.ended_by}; log ends at ${secs(logEnd)} of ${secs(end.planned_ms)}`
    : end.status === "killed"
    ? `killed, no final status; log ends at ${secs(logEnd)} of ${secs(end.planned_ms)}`
    : `interrupted at ${secs(logEnd)} of ${secs(end.planned_ms)}`;
  const by = end.ended_by ? "the runner's stop" : end.status === "killed" ? "the kill" : "the stop";
  const d = end.decided;
  if (!end.censored) {
    if (!d) return `INCOMPLETE RUN (${how}): no request was cut off by ${by}; window ends there`;
    return `INCOMPLETE RUN (${how}): ${d === 1 ? "1 request" : `${d} requests`} cut off by ${by} ` +
      `${d === 1 ? "was" : "were"} already past ${d === 1 ? "its" : "their"} e2e limit and count as failed ` +
      `(${idList(end.decided_ids)}); none censored; window ends there`;
  }
  const restored = end.restored ? `; ${end.restored} restored from schedule.csv` : "";
  const n = end.censored === 1 ? "1 request" : `${end.censored} requests`;
  const ids = `(${idList(end.censored_ids)}`;
  const where = `window ends at ${secs(end.cut_ms)}, where the first`;
  if (!d) {
    return `INCOMPLETE RUN (${how}): ${n} cut off by ${by} ${end.censored === 1 ? "is" : "are"} censored ` +
      `${ids}${restored}); ${where} was scheduled`;
  }
  // The failures first: they change the result, and a first screen that shortens the line keeps them. Restored
  // rows may be failed or censored: counted apart.
  return `INCOMPLETE RUN (${how}): ${d} cut off by ${by} already past ` +
    `${d === 1 ? "its e2e limit counts" : "their e2e limit count"} as failed; ${end.censored} censored ${ids})` +
    `${restored}; ${where} censored was scheduled`;
}

/** The first {@linkcode HEADLINE_IDS} ids, and how many more. */
export function idList(ids: readonly string[]): string {
  const more = ids.length > HEADLINE_IDS ? ` and ${ids.length - HEADLINE_IDS} more` : "";
  return `${ids.slice(0, HEADLINE_IDS).join(", ")}${more}`;
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
