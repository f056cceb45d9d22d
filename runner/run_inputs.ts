/**
 * Everything a run reads before ms 0 — workload, plan, conditions, retry
 * policy, timeouts, routes, the schedule built from them — loaded and checked
 * together: every bad file, field or option is named in one InputError
 * (exit 2), before the run folder is made or anything is sent.
 *
 * @module
 */
import { InputCheck } from "../lib/cli.ts";
import { RunConditions } from "../schema/conditions.ts";
import { loadJsonFile, oneShot, parseWith } from "../schema/load.ts";
import { RetryPolicy, Timeouts } from "../schema/run_manifest.ts";
import { runNameProblem } from "../schema/run_name.ts";
import { loadWorkload } from "../schema/workload_file.ts";
import { prepareChecks } from "./checks/mod.ts";
import { type RunClock, startClock } from "./clock.ts";
import type { HttpClientKind } from "./http/mod.ts";
import { type ResolvedRoutes, resolveRoutes } from "./resolve_routes.ts";
import { buildSchedule, loadPlan } from "./schedule.ts";
import { sweepStopRule } from "./stop_rule.ts";

/** The options of a run that name its input files. */
export interface RunInputOptions {
  workload: string;
  plan: string;
  target?: string | null;
  routes?: string | null;
  routeUrls?: Record<string, string>;
  conditions?: string | null;
  seed?: number | null;
  runId?: string | null;
  shard?: { index: number; count: number };
  apiKeyEnv?: string;
  dialect?: string;
  dialectOptions?: Record<string, unknown>;
  retryFile?: string | null;
  timeoutsFile?: string | null;
  maxResponseBytes?: number;
  httpClient?: HttpClientKind;
}

/** The run's inputs, every one valid. */
export interface RunInputs {
  loaded: Awaited<ReturnType<typeof loadWorkload>>;
  plan: Awaited<ReturnType<typeof loadPlan>>;
  conditions: RunConditions;
  retryPolicy: RetryPolicy;
  timeouts: Timeouts;
  shard: { index: number; count: number };
  clock: RunClock;
  routes: ResolvedRoutes;
  built: Awaited<ReturnType<typeof buildSchedule>>;
  sweep: ReturnType<typeof sweepStopRule>;
}

/**
 * Loads and checks every input of a run; an InputError names every problem
 * of every file at once (a file that cannot be read is named once, and the
 * checks that need it are skipped).
 */
export async function loadRunInputs(o: RunInputOptions): Promise<RunInputs> {
  const check = new InputCheck();
  const loaded = await check.load(async () => {
    const l = await loadWorkload(o.workload);
    // Schemas and patterns compile before the first send, so a bad one is an input error, not a mid-run crash.
    prepareChecks(l.workload.cases, l.path);
    return l;
  });
  const plan = await check.load(() => loadPlan(o.plan));
  const badRunId = o.runId == null ? null : runNameProblem(o.runId);
  check.require(badRunId !== null, `run id: ${badRunId}`);
  const maxBytes = o.maxResponseBytes;
  check.require(
    maxBytes !== undefined && !(Number.isSafeInteger(maxBytes) && maxBytes > 0),
    `max response bytes: expected a positive integer, got ${maxBytes}`,
  );
  if (plan && o.seed !== undefined && o.seed !== null) plan.spec.seed = o.seed;
  const conditions = await check.load(() =>
    o.conditions
      ? loadJsonFile(o.conditions, RunConditions, "run conditions")
      : parseWith(RunConditions, unstatedConditions(), "(no --conditions)", "run conditions", { once: true })
  );
  const retryPolicy = await check.load(() =>
    o.retryFile ? loadJsonFile(o.retryFile, RetryPolicy, "retry policy") : RetryPolicy.parse({}, oneShot())
  );
  const timeouts = await check.load(() =>
    o.timeoutsFile ? loadJsonFile(o.timeoutsFile, Timeouts, "timeouts") : Timeouts.parse({}, oneShot())
  );
  const shard = o.shard ?? { index: 0, count: 1 };
  const built = loaded && plan
    ? await check.load(() =>
      buildSchedule(plan.spec, loaded.workload, { planDir: plan.planDir, planFile: plan.planFile, shard })
    )
    : undefined;
  // A sweep's stop rule judges steps by the class deadlines of the workload's class defaults.
  const sweep = loaded && plan && built
    ? await check.load(() =>
      sweepStopRule(plan.spec, built, (c) => loaded.classDefaults.classes[c]?.deadline_ms ?? null, o.plan)
    )
    : undefined;
  // Routes last (they hold clients): checked before the run folder is made, so a bad URL or routes file leaves
  // nothing behind. Without valid conditions, the routes file is checked against the unstated ones.
  const clock = startClock();
  const routes = await check.load(() =>
    resolveRoutes(
      {
        target: o.target,
        routes: o.routes,
        routeUrls: o.routeUrls,
        apiKeyEnv: o.apiKeyEnv,
        dialect: o.dialect,
        dialectOptions: o.dialectOptions,
        httpClient: o.httpClient,
      },
      conditions ??
        parseWith(RunConditions, unstatedConditions(), "(no --conditions)", "run conditions", { once: true }),
      clock,
    )
  );
  if (check.problems.length) {
    await routes?.close();
    check.throwIfAny();
  }
  return {
    loaded: loaded!,
    plan: plan!,
    conditions: conditions!,
    retryPolicy: retryPolicy!,
    timeouts: timeouts!,
    shard,
    clock,
    routes: routes!,
    built: built!,
    sweep: sweep ?? null,
  };
}

/** The conditions recorded when no `--conditions` file is given. */
export function unstatedConditions() {
  return {
    model: "unstated",
    model_version: null,
    region: null,
    api_tier: null,
    api_version: null,
    deployment_image: null,
    gpu_config: null,
    autoscaling_policy: null,
    output_cap: null,
    provider: "unstated",
    notes: "no --conditions file was given: the conditions of this run were not stated",
  };
}
