import { join } from "node:path";
import {
  InputError,
  type RequestRow,
  type RunManifest,
  type ScheduledRequest,
  type WorkloadCase,
} from "../schema/mod.ts";
import { runClosedLoop } from "./closed_loop.ts";
import { dispatchOpenLoop, newCounters } from "./dispatch.ts";
import type { HttpClientKind } from "./http/mod.ts";
import { startDrills } from "./intake_drill.ts";
import { OutputsSink } from "./outputs_sink.ts";
import { type ProgressTally, startProgress } from "./progress.ts";
import { initialManifest } from "./manifest.ts";
import { loadRunInputs } from "./run_inputs.ts";
import { DEFAULT_MAX_RESPONSE_BYTES } from "./attempt.ts";
import { executeRequest, type FlowContext, offeredRow } from "./request_flow.ts";
import { RetryController } from "./retry.ts";
import { checkTargets } from "./preflight.ts";
import { announcedTimelines, timelineUrl } from "./timeline_probe.ts";
import { Rng } from "./rng.ts";
import { saveSchedule } from "./schedule.ts";
import { CsvSink } from "./sinks/csv_sink.ts";
import { finaliseRun } from "./finalise.ts";
import type { RequestSummary } from "./request_tally.ts";
import { stopTokenCounter } from "./tokens.ts";
import { withStopRule } from "./stop_rule.ts";
import { listenForStop } from "./stop_signals.ts";
import { Watchdog } from "./watchdog.ts";
import { warmUp } from "./warm_up.ts";

/** Options of one run (the `run` CLI flags). */
export interface RunOptions {
  workload: string;
  plan: string;
  /** Base URL of an OpenAI-compatible server, or the full chat completions URL (or give `routes`). */
  target?: string | null;
  /** A routes file (schema/routes.ts): several targets and the policy that routes requests to them. */
  routes?: string | null;
  /** Route name → base URL, replacing that route's `url` in the routes file. */
  routeUrls?: Record<string, string>;
  /** Parent folder: the run is written to `<out>/<run_id>/`. */
  out: string;
  formats: ("csv" | "parquet")[];
  conditions?: string | null;
  seed?: number | null;
  runId?: string | null;
  shard?: { index: number; count: number };
  /** Shared start time of all shards (ISO); the run waits for it. */
  startAt?: string | null;
  apiKeyEnv?: string;
  retryFile?: string | null;
  timeoutsFile?: string | null;
  maxSendLagMs?: number;
  maxInFlight?: number;
  /** p99 send lag above this (or any not_sent) means the client was the limit. @default 5 */
  lagLimitMs?: number;
  /** Most body bytes of one response (runner/attempt.ts). @default 8388608 */
  maxResponseBytes?: number;
  flushMs?: number;
  saveOutputs?: boolean;
  httpClient?: HttpClientKind;
  progress?: boolean;
  /** Keep-alive connections opened before ms 0 (raw client). @default 8 */
  preconnect?: number;
  /**
   * Probe each route with one small chat request before ms 0 and stop with {@linkcode PreflightError} when one cannot
   * be reached or does not answer as an OpenAI server (runner/preflight.ts). The CLI turns it on (`--no-preflight`
   * off); library callers, which start their own targets (the demo, the tests), turn it on when they want it.
   * @default false
   */
  preflight?: boolean;
  /** Fetch the target's own timeline from `<base>/sim/timeline` when it has one. @default true */
  serverTimeline?: boolean;
  /** Stops the run early (the rest of the schedule is recorded `not_sent`). */
  signal?: AbortSignal;
  /** Awaited just before ms 0 of the run (after warm-up): e.g. to line a simulator's outage clock up with the run's. */
  atStart?: () => Promise<void>;
}

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
  // Every input file and option is checked here, all problems named at once, before anything is made or sent.
  const { loaded, plan, conditions, retryPolicy, timeouts, shard, clock, routes, built, sweep } = await loadRunInputs(
    o,
  );
  const startIso = o.startAt ? new Date(o.startAt).toISOString() : null;
  const runId = o.runId ?? `${plan.spec.name}-${compactIso(startIso ?? new Date().toISOString())}`;
  const dir = shard.count > 1 ? join(o.out, runId, `shard-${shard.index}-of-${shard.count}`) : join(o.out, runId);
  refuseUsedFolder(dir);
  // The target is probed only once every input is known good, and before anything is written: a failure leaves nothing.
  let preflight: RunManifest["preflight"];
  if (o.preflight ?? false) {
    const first = built.entries[0]?.class ?? loaded.workload.cases[0]!.class;
    preflight = await checkTargets(routes.routes.values(), {
      stream: loaded.classDefaults.classes[first]?.stream ?? true,
      timeoutMs: timeouts.attempt_ms,
      maxBytes: o.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    }).catch(async (e) => {
      await routes.close();
      throw e;
    });
  }
  try {
    Deno.mkdirSync(dir, { recursive: true });
  } catch (e) {
    throw new InputError(`${dir}: cannot create run folder: ${(e as Error).message}`, [], { cause: e });
  }

  warmUp(loaded.workload.cases);
  await routes.preconnect(o.preconnect ?? 8);
  const manifest = initialManifest({
    runId,
    conditions,
    workloadPath: o.workload,
    loaded,
    planPath: o.plan,
    plan,
    built,
    shard,
    startIso,
    targets: routes.targets,
    routing: routes.routing,
    retryPolicy,
    timeouts,
    runner: {
      max_send_lag_ms: o.maxSendLagMs ?? 1000,
      max_in_flight: o.maxInFlight ?? 20_000,
      flush_ms: o.flushMs ?? 100,
      save_outputs: o.saveOutputs ?? false,
      formats: o.formats,
      max_response_bytes: o.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    },
  });
  if (preflight) manifest.preflight = preflight;
  if (built.mode === "open") {
    const saved = await saveSchedule(dir, built.entries);
    manifest.plan.schedule_sha256 = saved.sha256;
  }

  const sinks = {
    requests: CsvSink.open(dir, "requests"),
    attempts: CsvSink.open(dir, "attempts"),
    tools: CsvSink.open(dir, "tools"),
  };
  const outputs = o.saveOutputs ? new OutputsSink(join(dir, "outputs.jsonl")) : null;
  const flushAll = () => {
    sinks.requests.flush();
    sinks.attempts.flush();
    sinks.tools.flush();
    outputs?.flush();
  };
  const flushTimer = setInterval(flushAll, manifest.runner.flush_ms);

  const watchdog = new Watchdog(clock.now, timeouts.idle_ms);
  // Jitter draws come from their own stream of the plan seed.
  const retryRng = new Rng(plan.spec.seed, 7);
  const retry = new RetryController(retryPolicy, () => retryRng.next());
  const tokensNotCounted = { attempts: 0 };
  const classDefaults = loaded.classDefaults.classes;
  const ctx: FlowContext = {
    clock,
    // Each route sends with its own client; this one only serves attempts without a route client.
    client: [...routes.routes.values()][0]!.client,
    watchdog,
    attemptTimeoutMs: timeouts.attempt_ms,
    maxResponseBytes: manifest.runner.max_response_bytes!,
    tokensNotCounted,
    runId,
    router: routes.router,
    retry,
    requestTimeoutMs: timeouts.request_ms,
    outputCap: conditions.output_cap,
    stream: (cls) => classDefaults[cls]?.stream ?? true,
    maxRounds: 8,
    sinks,
    outputs,
  };

  const caseById = loaded.byCaseId;
  const counters = newCounters();
  const tally: ProgressTally = { ok: 0, errors: 0, rejected: 0 };
  const done = (row: RequestRow) => {
    if (row.outcome === "ok") tally.ok++;
    else if (row.outcome === "rejected") tally.rejected++;
    else tally.errors++;
  };
  const start = (e: ScheduledRequest, startedMs: number) =>
    executeRequest(ctx, e, caseById.get(e.case_id) as WorkloadCase, startedMs);

  const stop = new AbortController();
  const onStop = () => {
    if (stop.signal.aborted) return;
    stop.abort();
    watchdog.abortAll();
    routes.abortWaiting();
  };
  o.signal?.addEventListener("abort", onStop, { once: true });
  let finalising = false;
  // Listened to until this function returns: a signal during finalisation lets it finish, a second one exits at once.
  using signals = listenForStop({
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

  // Only servers that announce a timeline before the run are asked for it at the end.
  const routeList = [...routes.routes.values()];
  const announced = (o.serverTimeline ?? true)
    ? await announcedTimelines(routeList.map((r) => r.url))
    : new Set<string>();
  if (startIso) await sleepUntil(Date.parse(startIso));
  await o.atStart?.();
  // Ms 0 of the run: warm-up and connection set-up happen before it.
  clock.restart();
  manifest.epoch_iso = new Date(clock.epochUnixMs).toISOString();
  // Written before the first arrival so that a killed run still says what it was conditional on.
  Deno.writeTextFileSync(join(dir, "run.json"), JSON.stringify(manifest, null, 2) + "\n");
  // Operator drills run on the run clock beside dispatch; a sharded run calls the hooks from shard 0 only.
  const drills = plan.spec.drills && shard.index === 0
    ? startDrills(plan.spec.drills, { clock, planDir: plan.planDir })
    : null;
  const progress = startProgress(counters, tally, {
    total: built.entries.length,
    now: clock.now,
    enabled: o.progress ?? true,
  });
  let realised = built.entries;
  try {
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
          sinks.requests.append({
            ...offeredRow({ runId, route, stream: ctx.stream(c.class) }, e, c, lag),
            outcome,
            error_kind: reason,
          });
        },
        done,
        signal: stop.signal,
      });
      const dispatched = await dispatchOpenLoop(options, counters);
      if (sweep) realised = sweep.conclude(manifest, built.entries, dispatched, stop.signal.aborted);
    } else {
      const stage = built.stages[0]!;
      realised = await runClosedLoop({
        clock,
        users: plan.spec.arrivals.process === "closed" ? plan.spec.arrivals.users : 1,
        durationMs: stage.end_ms,
        thinkMs: plan.spec.arrivals.process === "closed" ? plan.spec.arrivals.think_ms : 0,
        stage: stage.name,
        shard,
        caseOf: (i) => built.assignCase(i),
        start,
        done,
        signal: stop.signal,
      }, counters);
    }
  } finally {
    progress.stop();
    clearInterval(flushTimer);
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
  if (drills) manifest.drills = await drills.finish();
  // A closed loop's arrivals, or a sweep cut short by its stop rule: save what was offered.
  if (realised !== built.entries) {
    const saved = await saveSchedule(dir, realised);
    manifest.plan.schedule_sha256 = saved.sha256;
    manifest.plan.scheduled_requests = realised.length;
  }
  manifest.result.stopped_by_signal = stop.signal.aborted ? signals.received : null;
  manifest.tokenizer.attempts_not_counted = tokensNotCounted.attempts;
  if (tokensNotCounted.attempts > 0) {
    console.error(
      `warning: ${tokensNotCounted.attempts} attempt(s) without usage not counted: text over the tokenizer bound (${manifest.tokenizer.max_chars} chars, BPE work ${manifest.tokenizer.max_work}); their tokens are 0, token_source null`,
    );
  }
  const final = await finaliseRun(dir, manifest, {
    clock,
    targets: routeList.filter((r) => announced.has(timelineUrl(r.url).href)).map((r) => ({
      route: r.route,
      url: r.url,
    })),
    serverTimeline: announced.size > 0,
    interrupted: stop.signal.aborted,
    retries: retry.retries,
    retryBudgetExhausted: retry.budgetExhausted,
    retryPastDeadline: retry.pastDeadline,
    lagLimitMs: o.lagLimitMs ?? 5,
  });
  return { dir, ...final };
}

/** A run folder that exists must be an empty folder (it is made after the pre-flight). */
function refuseUsedFolder(dir: string): void {
  let entries: Iterable<Deno.DirEntry>;
  try {
    entries = Deno.readDirSync(dir);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return;
    throw new InputError(`${dir}: cannot use as run folder: ${(e as Error).message}`, [], { cause: e });
  }
  for (const _ of entries) throw new InputError(`${dir}: run folder exists and is not empty`);
}

function compactIso(iso: string): string {
  return iso.replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
}

async function sleepUntil(unixMs: number): Promise<void> {
  const wait = unixMs - Date.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
}
