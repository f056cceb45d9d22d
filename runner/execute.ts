/**
 * The second step of a run (runner/run.ts): from ms 0 to the last request.
 * Opens the sinks, waits for the shared start, starts the clock, writes
 * run.json, then runs the schedule — an open loop (with a sweep's stop rule)
 * or a closed loop — until it ends, a stop rule ends it or a signal stops it;
 * every sink is closed before it returns.
 *
 * @module
 */
import { join } from "node:path";
import type { CpuContention, RequestRow, ScheduledRequest, WorkloadCase } from "../schema/mod.ts";
import { epochMsOf } from "../schema/events.ts";
import { cacheBustPrefix } from "./cache_bust.ts";
import { runClosedLoop } from "./closed_loop.ts";
import { startContention } from "./cpu_contention.ts";
import { type DispatchCounters, dispatchOpenLoop, newCounters } from "./dispatch.ts";
import { type DispatchTimers, type DispatchWait, timeoutTimers, WakerTimers } from "./dispatch_timers.ts";
import type { ReadHook } from "./http/client.ts";
import { type RunningDrills, startDrills } from "./intake_drill.ts";
import { OutputsSink } from "./outputs_sink.ts";
import type { PreparedRun } from "./prepare.ts";
import { type ProgressTally, startProgress } from "./progress.ts";
import { executeRequest, type FlowContext, offeredRow, type RowSink } from "./request_flow.ts";
import { RequestTally } from "./request_tally.ts";
import { RetryController } from "./retry.ts";
import type { RuntimeRoute } from "./resolve_routes.ts";
import { Rng } from "./rng.ts";
import type { RunOptions } from "./run_options.ts";
import { RUNNER_DEFAULTS } from "./settings.ts";
import { CsvSink } from "./sinks/csv_sink.ts";
import { LogWriteError } from "./sinks/log_write_error.ts";
import { reserveRoom } from "./disk_reserve.ts";
import type { LogWriteFailure } from "../schema/run_manifest.ts";
import { writeCsvSchema } from "./sinks/csv_schema.ts";
import { withStopRule } from "./stop_rule.ts";
import { listenForStop, type StopListener } from "./stop_signals.ts";
import { detectServerMetrics } from "./server_metrics/detect.ts";
import { startPolling } from "./server_metrics/poller.ts";
import type { CsvSink as ServerSink } from "./sinks/csv_sink.ts";
import { stopTokenCounter } from "./tokens.ts";
import { Watchdog } from "./watchdog.ts";

/** What running the schedule left for the finalisation. */
export interface Execution {
  /** The requests offered: the schedule, or what a closed loop or a stop rule realised of it. */
  realised: readonly ScheduledRequest[];
  /** Aborted when a signal (or the caller's `signal`) stopped the run, also while it is finalised. */
  stop: AbortSignal;
  /** Still listening (a signal during finalisation lets it finish): dispose it once the run is finalised. */
  signals: StopListener;
  retry: RetryController;
  /** Attempts whose tokens were not counted (text over the tokenizer bound). */
  tokensNotCounted: number;
  /** The routes, and the timeline URLs of those that announced one before the run. */
  routeList: RuntimeRoute[];
  announced: Set<string>;
  /** The server table's sink when the targets' own metrics were polled: open, for the finalisation to close. */
  serverSink: ServerSink<"server"> | null;
  drills: RunningDrills | null;
  /** The machine's CPU contention from ms 0 to the end of the schedule (null: unknown here). */
  contention: CpuContention | null;
  /** The log write that failed and stopped the run (a full disk), or null: every row was written. */
  writeFailure: LogWriteFailure | null;
  /** Every requests row appended to the log, tallied as it was written (runner/finalise.ts reads it, not the file). */
  requestTally: RequestTally;
}

/** Runs the prepared schedule from ms 0 to its end (or its stop) and closes every sink. */
export async function executeRun(run: PreparedRun, o: RunOptions): Promise<Execution> {
  const { dir, manifest, routes, clock, timeouts, plan, built, shard, loaded } = run;
  const sinks = {
    requests: CsvSink.open(dir, "requests"),
    attempts: CsvSink.open(dir, "attempts"),
    tools: CsvSink.open(dir, "tools"),
  };
  const outputs = o.saveOutputs ? new OutputsSink(join(dir, "outputs.jsonl")) : null;
  // Room for the final run.json should a log write fail for want of space (runner/disk_reserve.ts).
  reserveRoom(dir);
  // The first failed log write (a full disk) stops the run: every sink is sealed, so the log on disk is what was
  // written before it (each file cut back to its last whole line), and the run is finalised as `write_failed`.
  let writeFailure: LogWriteFailure | null = null;
  const flushAll = () => {
    if (writeFailure) return;
    try {
      sinks.requests.flush();
      sinks.attempts.flush();
      sinks.tools.flush();
      outputs?.flush();
    } catch (e) {
      if (!(e instanceof LogWriteError)) throw e;
      failWrite(e);
    }
  };
  // The server table's sink, once the targets' metrics are polled: sealed with the others.
  let serverSink: ServerSink<"server"> | null = null;
  const failWrite = (e: LogWriteError) => {
    if (writeFailure) return;
    writeFailure = {
      file: e.path.slice(dir.length + 1),
      code: e.code,
      message: (e.cause as Error)?.message ?? e.message,
      at_ms: clock.now(),
    };
    for (const sink of Object.values(sinks)) sink.seal();
    outputs?.seal();
    serverSink?.seal();
    onStop();
  };
  // Rows reach the file within flush_ms of being appended; a run with nothing to write sets no timer.
  let flushTimer: ReturnType<typeof setTimeout> | null = null;
  const flushSoon = () => {
    flushTimer ??= setTimeout(() => {
      flushTimer = null;
      flushAll();
    }, manifest.runner.flush_ms);
  };
  const flushing = <R>(sink: RowSink<R>): RowSink<R> => ({
    append(row) {
      sink.append(row);
      flushSoon();
    },
  });
  // The requests rows tallied as they are written, so the finalisation need not read the whole log back.
  const requestTally = new RequestTally();
  const requestsSink: RowSink<RequestRow> = {
    append(row) {
      sinks.requests.append(row);
      requestTally.addRow(row);
      flushSoon();
    },
  };

  const watchdog = new Watchdog(clock.now, timeouts.idle_ms);
  // Jitter draws come from their own stream of the plan seed.
  const retryRng = new Rng(plan.spec.seed, 7);
  const retry = new RetryController(run.retryPolicy, () => retryRng.next());
  const tokensNotCounted = { attempts: 0 };
  const classDefaults = loaded.classDefaults.classes;
  const ctx: FlowContext = {
    clock,
    // Each route sends with its own client; this one only serves attempts without a route client.
    client: [...routes.routes.values()][0]!.client,
    watchdog,
    attemptTimeoutMs: timeouts.attempt_ms,
    headersTimeoutMs: timeouts.headers_ms,
    maxResponseBytes: manifest.runner.max_response_bytes!,
    tokensNotCounted,
    cacheBust: manifest.runner.cache_bust ? cacheBustPrefix(run.runId) : null,
    runId: run.runId,
    router: routes.router,
    retry,
    requestTimeoutMs: timeouts.request_ms,
    outputCap: run.conditions.output_cap,
    stream: (cls) => classDefaults[cls]?.stream ?? true,
    maxRounds: RUNNER_DEFAULTS.max_rounds,
    sinks: { requests: requestsSink, attempts: flushing(sinks.attempts), tools: flushing(sinks.tools) },
    outputs: outputs && flushing(outputs),
  };

  const stop = new AbortController();
  const onStop = () => {
    if (stop.signal.aborted) return;
    stop.abort();
    watchdog.abortAll();
    routes.abortWaiting();
  };
  o.signal?.addEventListener("abort", onStop, { once: true });
  let finalising = false;
  // Listened to until the run is finalised: a signal during finalisation lets it finish, a second one exits at once.
  const signals = listenForStop({
    first: (signal) => {
      console.error(
        stop.signal.aborted || finalising
          ? `\n${signal}: finishing the log (${signal} again to exit at once)`
          : `\n${signal}: stopping: the rest of the schedule is recorded as not_sent, in-flight requests as aborted (${signal} again to exit at once)`,
      );
      if (!finalising) onStop();
    },
    beforeExit: flushAll,
  });
  let waker: WakerTimers | null = null;
  try {
    // The dispatcher's waker thread starts before ms 0 (a worker takes tens of ms to start).
    if (run.built.mode === "open" && (o.dispatch?.timers ?? "waker") === "waker") {
      waker = await WakerTimers.start().catch((e: Error) => {
        console.error(`warning: ${e.message}; the dispatcher sleeps on setTimeout instead (1–2 ms more send lag)`);
        return null;
      });
    }
    const timers = waker ?? timeoutTimers();
    const routeList = [...routes.routes.values()];
    // Each server's timeline source, decided before ms 0: the simulator's (fetched at the end), the engine's own
    // metrics (polled during the run), or none; by shard 0 alone (a server has one timeline, not one per shard: N
    // shards read as one run hold it once).
    const metricsMode = o.serverTimeline === false || shard.index !== 0
      ? "off"
      : o.serverMetrics ?? RUNNER_DEFAULTS.server_metrics;
    const detected = await detectServerMetrics(routeList, metricsMode);
    if (shard.index === 0) manifest.server_metrics = detected.record;
    const announced = detected.announced;
    // A worker of `--workers` learns the shared start time once every worker is ready (runner/workers/).
    const startIso = o.startGate
      ? await untilStopped(o.startGate({ dir, scheduled: built.entries.length }), stop.signal)
      : run.startIso;
    if (o.startGate) manifest.plan.start_iso = startIso;
    if (startIso) await sleepUntil(Date.parse(startIso));
    await o.atStart?.();
    // Its first reading may spawn `cat` (runner/cpu_contention.ts): taken just before ms 0, not inside the run.
    const sampler = startContention();
    // Ms 0 of the run: warm-up and connection set-up happen before it.
    clock.restart();
    manifest.epoch_iso = new Date(clock.epochUnixMs).toISOString();
    // Each row's epoch column (contract 1.6) is run.json epoch_iso + its anchor: parsed once here, added per line.
    for (const sink of Object.values(sinks)) sink.epochMs = epochMsOf(manifest.epoch_iso);
    // Written before the first arrival so that a killed run still says what it was conditional on.
    try {
      Deno.writeTextFileSync(join(dir, "run.json"), JSON.stringify(manifest, null, 2) + "\n");
    } catch (e) {
      throw new LogWriteError(join(dir, "run.json"), e);
    }
    // Each CSV's types, run_id and epoch beside it, so that a killed run's CSVs read alone too.
    const identity = { run_id: manifest.run_id, epoch_iso: manifest.epoch_iso };
    for (const table of ["requests", "attempts", "tools"] as const) writeCsvSchema(dir, table, { identity });
    const polling = startPolling(detected.polled, {
      clock,
      dir,
      runId: run.runId,
      epochIso: manifest.epoch_iso,
      onWriteError: failWrite,
    });
    serverSink = polling.sink;
    // Operator drills run on the run clock beside dispatch; a sharded run calls the hooks from shard 0 only.
    const drills = plan.spec.drills && shard.index === 0
      ? startDrills(plan.spec.drills, { clock, planDir: plan.planDir })
      : null;
    const counters = newCounters();
    const tally: ProgressTally = { ok: 0, errors: 0, rejected: 0 };
    // A batch route's progress lines (submissions, polls, collections) go to stderr with the progress line's.
    if (!(o.progress ?? RUNNER_DEFAULTS.progress)) routes.batching.log = null;
    const progress = startProgress(counters, tally, {
      total: built.entries.length,
      now: clock.now,
      enabled: o.progress ?? RUNNER_DEFAULTS.progress,
      ...(o.onProgress ? { onSnapshot: o.onProgress } : {}),
    });
    let realised: readonly ScheduledRequest[] = built.entries;
    let contention: CpuContention | null = null;
    try {
      realised = await runSchedule(run, ctx, {
        counters,
        tally,
        signal: stop.signal,
        timers,
        wait: o.dispatch?.wait,
        reads: (o.dispatch?.reads ?? true) ? routes.reads : undefined,
      });
    } finally {
      // Every batch item is settled by now (its request waited for it); run.json says what each batch did.
      if (routes.batching.any) manifest.batches = routes.batching.records;
      contention = sampler.stop();
      await polling.stop();
      waker?.close();
      waker = null;
      progress.stop();
      if (flushTimer !== null) clearTimeout(flushTimer);
      watchdog.stop();
      flushAll();
      sinks.requests.close();
      sinks.attempts.close();
      sinks.tools.close();
      outputs?.close();
      await routes.close();
      stopTokenCounter();
    }
    finalising = true;
    return {
      realised,
      stop: stop.signal,
      signals,
      retry,
      tokensNotCounted: tokensNotCounted.attempts,
      routeList,
      announced,
      serverSink: polling.sink,
      drills,
      contention,
      writeFailure,
      requestTally,
    };
  } catch (e) {
    waker?.close();
    signals.remove();
    throw e;
  }
}

/** Dispatches the schedule: an open loop (cut short by a sweep's stop rule) or a closed loop of users. */
async function runSchedule(
  run: PreparedRun,
  ctx: FlowContext,
  waiting: {
    counters: DispatchCounters;
    tally: ProgressTally;
    signal: AbortSignal;
    timers: DispatchTimers;
    wait: DispatchWait | undefined;
    reads: ReadHook | undefined;
  },
): Promise<readonly ScheduledRequest[]> {
  const { counters, tally, signal } = waiting;
  const { clock, built, plan, manifest, routes, sweep } = run;
  const caseById = run.loaded.byCaseId;
  const done = (row: RequestRow) => {
    if (row.outcome === "ok") tally.ok++;
    else if (row.outcome === "rejected") tally.rejected++;
    else tally.errors++;
  };
  const start = (e: ScheduledRequest, startedMs: number) =>
    executeRequest(ctx, e, caseById.get(e.case_id) as WorkloadCase, startedMs);
  if (built.mode === "open") {
    const options = withStopRule(sweep, {
      clock,
      entries: built.entries,
      maxSendLagMs: manifest.runner.max_send_lag_ms,
      maxInFlight: manifest.runner.max_in_flight,
      start,
      skip: (e, outcome, lag, reason) => {
        const c = caseById.get(e.case_id)!;
        const route = routes.router.chain(e.request_id, c.class)[0]!.route;
        ctx.sinks.requests.append({
          ...offeredRow({ runId: run.runId, route, stream: ctx.stream(c.class) }, e, c, lag),
          outcome,
          error_kind: reason,
        });
      },
      done,
      // The arrivals are over: batch routes submit their open batches (docs/batch.md).
      offeredAll: () => routes.batching.endArrivals(),
      signal,
      timers: waiting.timers,
      ...(waiting.wait ? { wait: waiting.wait } : {}),
      ...(waiting.reads ? { reads: waiting.reads } : {}),
    });
    const dispatched = await dispatchOpenLoop(options, counters);
    return sweep ? sweep.conclude(manifest, built.entries, dispatched, signal.aborted) : built.entries;
  }
  const stage = built.stages[0]!;
  return await runClosedLoop({
    clock,
    users: plan.spec.arrivals.process === "closed" ? plan.spec.arrivals.users : 1,
    durationMs: stage.end_ms,
    thinkMs: plan.spec.arrivals.process === "closed" ? plan.spec.arrivals.think_ms : 0,
    stage: stage.name,
    shard: run.shard,
    caseOf: (i) => built.assignCase(i),
    start,
    done,
    signal,
  }, counters);
}

/** The gate's start time, or null (start at once) when the run is stopped before the gate opens. */
function untilStopped(gate: Promise<string | null>, stop: AbortSignal): Promise<string | null> {
  if (stop.aborted) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const onStop = () => resolve(null);
    stop.addEventListener("abort", onStop, { once: true });
    gate.then(resolve, reject).finally(() => stop.removeEventListener("abort", onStop));
  });
}

async function sleepUntil(unixMs: number): Promise<void> {
  const wait = unixMs - Date.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
}
