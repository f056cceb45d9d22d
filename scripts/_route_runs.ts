/**
 * One run of the design-v1 workload over a simulator route (hosted,
 * self-hosted or hybrid), each route against its own freshly started
 * simulator processes on free loopback ports, with run conditions that name
 * the simulator profiles. Shared by the demo and the sample-run scripts.
 *
 * @module
 */
import { join } from "node:path";
import { runLoadTest, type RunResult } from "../runner/run.ts";
import { RUN_NAME_MAX } from "../schema/run_name.ts";
import type { SimPool } from "./_sim_process.ts";

/** The three simulator routes: the routes file and, per route name in it, the simulator profile behind it. */
export const SIM_ROUTES = {
  hosted: { routes: "data/routes/hosted.json", sims: { hosted: "data/sim/hosted.json" } },
  selfhosted: { routes: "data/routes/selfhosted.json", sims: { selfhosted: "data/sim/selfhosted.json" } },
  hybrid: {
    routes: "data/routes/hybrid.json",
    sims: { selfhosted: "data/sim/selfhosted.json", hosted: "data/sim/hosted.json" },
  },
} as const satisfies Record<string, { routes: string; sims: Record<string, string> }>;

/** A name of {@linkcode SIM_ROUTES}. */
export type SimRoute = keyof typeof SIM_ROUTES;

/**
 * The run id of a route run: `route-<route>` alone (the committed sample runs, data/runs/), or after the run id of the
 * demo's timeline run, `<timeline run id>-route-<route>`, so the route runs of two demo runs never share an id when
 * they are compared or copied together. A timeline id too long for the pair loses its head, not its time stamp (the
 * id stays within `RUN_NAME_MAX` and never starts with `.`).
 *
 * @example
 * ```ts
 * import { routeRunId } from "./_route_runs.ts";
 * import assert from "node:assert/strict";
 * assert.equal(routeRunId("hosted"), "route-hosted");
 * assert.equal(routeRunId("hybrid", "demo-20261206T044000Z"), "demo-20261206T044000Z-route-hybrid");
 * ```
 */
export function routeRunId(route: SimRoute, timelineRunId?: string): string {
  const own = `route-${route}`;
  if (timelineRunId === undefined) return own;
  const head = timelineRunId.slice(-(RUN_NAME_MAX - own.length - 1)).replace(/^\.+/, "");
  return head ? `${head}-${own}` : own;
}

/** Options of {@linkcode runSimRoute}; paths are relative to `root` (the process's working directory). */
export interface SimRouteRunOptions {
  root: string;
  workload: string;
  plan: string;
  /** Parent folder of the run folder. */
  out: string;
  runId?: string;
  seed: number;
  /** Folder for the generated conditions file. */
  tmpDir: string;
  progress?: boolean;
  /** A unique prefix before each request's first user message (`--cache-bust`). @default false */
  cacheBust?: boolean;
}

/** Starts the route's simulators, runs the plan against them (simulators reset at ms 0), stops them. */
export async function runSimRoute(pool: SimPool, route: SimRoute, o: SimRouteRunOptions): Promise<RunResult> {
  const spec = SIM_ROUTES[route];
  const entries = Object.entries(spec.sims);
  const sims = await Promise.all(
    entries.map(([, profile]) => pool.start({ root: o.root, profile, workload: o.workload, seed: o.seed })),
  );
  try {
    const conditions = join(o.tmpDir, `conditions-${route}.json`);
    await Deno.writeTextFile(conditions, JSON.stringify(await routeConditions(route), null, 2));
    return await runLoadTest({
      workload: o.workload,
      plan: o.plan,
      routes: spec.routes,
      routeUrls: Object.fromEntries(entries.map(([name], i) => [name, sims[i]!.url])),
      out: o.out,
      runId: o.runId ?? null,
      formats: ["parquet"],
      conditions,
      seed: o.seed,
      progress: o.progress ?? false,
      cacheBust: o.cacheBust ?? false,
      signal: pool.signal,
      // Rate-limit buckets, outage clocks and PRNGs of every simulator start at ms 0 of the run.
      atStart: async () => {
        await Promise.all(sims.map((s) => s.reset()));
      },
    });
  } finally {
    await Promise.all(sims.map((s) => pool.stop(s)));
  }
}

/** The run conditions of a simulator route, stated from its profiles (nothing left "unstated"). */
async function routeConditions(route: SimRoute): Promise<Record<string, unknown>> {
  const spec = SIM_ROUTES[route];
  const profiles: { file: string; model: string; replicas: { min: number; max: number }; rate?: string }[] = [];
  for (const file of Object.values(spec.sims)) {
    const p = JSON.parse(await Deno.readTextFile(file));
    const rl = p.rate_limits;
    profiles.push({
      file,
      model: p.model,
      replicas: p.replicas,
      rate: rl ? `${rl.requests_per_minute} req/min and ${rl.tokens_per_minute} tokens/min` : undefined,
    });
  }
  const quota = profiles.filter((p) => p.rate).map((p) => `${p.file}: ${p.rate}`).join("; ");
  return {
    model: profiles.map((p) => p.model).join(" + "),
    model_version: profiles.map((p) => `simulator profile ${p.file}`).join(" + "),
    region: "loopback",
    api_tier: quota ? `simulated quota (${quota})` : null,
    api_version: "openai-chat-completions-v1 (subset)",
    deployment_image: "embedded simulator (sim/), same checkout as the runner",
    gpu_config: "none: simulated capacity model (prefill/decode timings from the profile)",
    autoscaling_policy: profiles.map((p) => `${p.file}: ${p.replicas.min}–${p.replicas.max} replicas`).join("; "),
    output_cap: null,
    route,
    provider: "goodput-sim",
    notes: `route "${route}" (${spec.routes}) against the embedded simulator; ` +
      "numbers describe the simulator profiles, not any real service",
  };
}
