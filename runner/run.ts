/**
 * One run, in three steps: prepare (runner/prepare.ts: inputs checked, folder,
 * pre-flight, run.json started), execute (runner/execute.ts: ms 0 to the last
 * request) and finalise (runner/finalise.ts: counts, hashes, Parquet, run.json
 * ended). Its settings and their defaults: runner/settings.ts.
 *
 * @module
 */
import type { RunManifest } from "../schema/mod.ts";
import { executeRun } from "./execute.ts";
import { finaliseRun } from "./finalise.ts";
import { prepareRun } from "./prepare.ts";
import type { RequestSummary } from "./request_tally.ts";
import type { RunOptions } from "./run_options.ts";
import { saveSchedule } from "./schedule.ts";
import { RUNNER_DEFAULTS } from "./settings.ts";
import { timelineUrl } from "./timeline_probe.ts";

export type { RunOptions };

/** Where a finished run was written. */
export interface RunResult {
  dir: string;
  manifest: RunManifest;
  /** The requests table in counts (no rows are kept: a run of any size ends in bounded memory). */
  summary: RequestSummary;
}

/**
 * Runs a workload against a target under an arrival plan and writes the raw
 * event log (schema version 1) to `<out>/<run_id>/`.
 */
export async function runLoadTest(o: RunOptions): Promise<RunResult> {
  const run = await prepareRun(o);
  const x = await executeRun(run, o);
  using _signals = x.signals;
  const { dir, manifest, built } = run;
  if (x.drills) manifest.drills = await x.drills.finish();
  // A closed loop's arrivals, or a sweep cut short by its stop rule: save what was offered.
  if (x.realised !== built.entries) {
    const saved = await saveSchedule(dir, x.realised);
    manifest.plan.schedule_sha256 = saved.sha256;
    manifest.plan.scheduled_requests = x.realised.length;
  }
  manifest.result.stopped_by_signal = x.stop.aborted ? x.signals.received : null;
  manifest.tokenizer.attempts_not_counted = x.tokensNotCounted;
  if (x.tokensNotCounted > 0) {
    console.error(
      `warning: ${x.tokensNotCounted} attempt(s) without usage not counted: text over the tokenizer bound (${manifest.tokenizer.max_chars} chars, BPE work ${manifest.tokenizer.max_work}); their tokens are 0, token_source null`,
    );
  }
  const final = await finaliseRun(dir, manifest, {
    clock: run.clock,
    targets: x.routeList.filter((r) => x.announced.has(timelineUrl(r.url).href)).map((r) => ({
      route: r.route,
      url: r.url,
    })),
    serverTimeline: x.announced.size > 0,
    serverSink: x.serverSink,
    interrupted: x.stop.aborted,
    retries: x.retry.retries,
    retryBudgetExhausted: x.retry.budgetExhausted,
    retryPastDeadline: x.retry.pastDeadline,
    lagLimitMs: o.lagLimitMs ?? RUNNER_DEFAULTS.lag_limit_ms,
    contention: x.contention,
    writeFailure: x.writeFailure,
    requestTally: x.requestTally,
  });
  return { dir, ...final };
}
