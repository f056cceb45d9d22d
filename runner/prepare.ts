/**
 * The first step of a run (runner/run.ts): everything built from the options
 * before ms 0 — the inputs checked together, the run id and folder, the
 * pre-flight probe, warm-up and pre-connected routes, run.json as it starts,
 * and an open loop's schedule saved beside it.
 *
 * @module
 */
import { join } from "node:path";
import type { RunManifest } from "../schema/mod.ts";
import { InputError } from "../schema/errors.ts";
import { CACHE_BUST_RULE } from "./cache_bust.ts";
import { initialManifest } from "./manifest.ts";
import { checkTargets } from "./preflight.ts";
import type { RunOptions } from "./run_options.ts";
import { loadRunInputs, type RunInputs } from "./run_inputs.ts";
import { planLengthOf } from "./plan_length.ts";
import { saveSchedule } from "./schedule.ts";
import { RUNNER_DEFAULTS } from "./settings.ts";
import { targetModel } from "./target_model.ts";
import { preconnectCount, warmUp, warmUpAnswers } from "./warm_up.ts";

/** A run ready to start: its checked inputs, its folder (made, empty but for the schedule) and run.json so far. */
export interface PreparedRun extends RunInputs {
  runId: string;
  dir: string;
  /** The shared start time of all shards (ISO), or null to start at once. */
  startIso: string | null;
  manifest: RunManifest;
}

/**
 * Checks every input (all problems named at once, before anything is made
 * or sent), probes the targets when asked, makes the run folder, warms up,
 * opens the pre-connected connections and starts run.json.
 */
export async function prepareRun(o: RunOptions): Promise<PreparedRun> {
  const inputs = await loadRunInputs(o);
  const { loaded, plan, conditions, retryPolicy, timeouts, shard, routes, built } = inputs;
  const startIso = o.startAt ? new Date(o.startAt).toISOString() : null;
  const runId = o.runId ?? defaultRunId(plan.spec.name, startIso ?? new Date().toISOString());
  const dir = shard.count > 1 ? join(o.out, runId, `shard-${shard.index}-of-${shard.count}`) : join(o.out, runId);
  refuseUsedFolder(dir);
  const maxResponseBytes = o.maxResponseBytes ?? RUNNER_DEFAULTS.max_response_bytes;
  // No conditions file: a single target is asked which model it serves (before the pre-flight, which sends it).
  if ((o.modelFromTarget ?? false) && !o.conditions && o.target) await nameModel(routes);
  // The target is probed only once every input is known good, and before anything is written: a failure leaves nothing.
  let preflight: RunManifest["preflight"];
  if (o.preflight ?? false) {
    const first = built.entries[0]?.class ?? loaded.workload.cases[0]!.class;
    preflight = await checkTargets(routes.routes.values(), {
      stream: loaded.classDefaults.classes[first]?.stream ?? true,
      timeoutMs: timeouts.attempt_ms,
      maxBytes: maxResponseBytes,
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

  warmUp(loaded.workload.cases, built.mode === "open" ? warmUpAnswers(built.entries) : undefined);
  // Unless told a number, an open loop opens enough connections for its first arrivals (runner/warm_up.ts).
  const preconnected = await routes.preconnect(
    o.preconnect ??
      (built.mode === "open" ? preconnectCount(built.entries, RUNNER_DEFAULTS.preconnect) : RUNNER_DEFAULTS.preconnect),
  );
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
    netAllow: routes.allow.hosts,
    routing: routes.routing,
    retryPolicy,
    timeouts,
    runner: {
      max_send_lag_ms: o.maxSendLagMs ?? RUNNER_DEFAULTS.max_send_lag_ms,
      max_in_flight: o.maxInFlight ?? RUNNER_DEFAULTS.max_in_flight,
      flush_ms: o.flushMs ?? RUNNER_DEFAULTS.flush_ms,
      save_outputs: o.saveOutputs ?? RUNNER_DEFAULTS.save_outputs,
      cache_bust: (o.cacheBust ?? RUNNER_DEFAULTS.cache_bust) ? CACHE_BUST_RULE : null,
      formats: o.formats,
      max_response_bytes: maxResponseBytes,
      preconnect: preconnected,
    },
  });
  if (preflight) manifest.preflight = preflight;
  const { warnings } = planLengthOf(built.stages, loaded, plan.spec.mix, o.plan);
  if (warnings.length) manifest.plan.warnings = warnings;
  // A worker of --workers says nothing: its parent printed the plan's warnings once (runner/workers/launch.ts).
  if (!o.startGate) { for (const w of warnings) console.error(`warning: ${w}`); }
  if (built.mode === "open") {
    const saved = await saveSchedule(dir, built.entries);
    manifest.plan.schedule_sha256 = saved.sha256;
  }
  return { ...inputs, runId, dir, startIso, manifest };
}

/** The run id when none is given: `<plan name>-<UTC time, compact>` of the start. */
export function defaultRunId(planName: string, iso: string): string {
  return `${planName}-${compactIso(iso)}`;
}

/** Sets the single route's model from its target's `/v1/models` list, and the note run.json keeps about it. */
async function nameModel(routes: PreparedRun["routes"]): Promise<void> {
  const [route] = routes.routes.values();
  const target = routes.targets[0];
  if (!route || !target) return;
  if (route.dialect.name !== "openai-chat") {
    throw new InputError(
      `--dialect ${route.dialect.name}: the model cannot be read from the target (only an OpenAI-compatible server ` +
        `lists its models); state it in --conditions (model)`,
    );
  }
  const found = await targetModel(route.url, route.headers);
  if (found.model !== null) route.model = target.model = found.model;
  target.model_note = found.note;
  console.error(`note: model ${JSON.stringify(target.model)}: ${found.note}`);
}

/** A run folder that exists must be an empty folder (it is made after the pre-flight). */
export function refuseUsedFolder(dir: string): void {
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
