import { relative, resolve } from "node:path";
import type { LoadedWorkload } from "../schema/workload_file.ts";
import type { RetryPolicy, RunConditions, RunManifest, Timeouts } from "../schema/mod.ts";
import { SCHEMA_MINOR, SCHEMA_VERSION } from "../schema/version.ts";
import type { LoadedPlan } from "./plans/load_plan.ts";
import type { BuiltSchedule } from "./schedule.ts";
import { MAX_TOKENIZED_CHARS, MAX_TOKENIZER_WORK } from "./token_caps.ts";
import { VERSION } from "./version.ts";

/** What run.json is built from at the start of a run. */
export interface ManifestInputs {
  runId: string;
  conditions: RunConditions;
  workloadPath: string;
  loaded: LoadedWorkload;
  planPath: string;
  plan: LoadedPlan;
  built: BuiltSchedule;
  shard: { index: number; count: number };
  startIso: string | null;
  /** One per route (secrets redacted). */
  targets: RunManifest["targets"];
  /** The routing of a run started with a routes file. */
  routing?: RunManifest["routing"];
  /** The hosts the run may reach (runner/net_allow.ts). */
  netAllow?: readonly string[];
  retryPolicy: RetryPolicy;
  timeouts: Timeouts;
  runner: Omit<RunManifest["runner"], "name" | "version" | "deno">;
}

/**
 * run.json as written before the first arrival: everything the result is
 * conditional on, with `result.status` "running" (a killed run keeps it) and
 * no file hashes yet; `finaliseRun` completes it.
 */
export function initialManifest(a: ManifestInputs): RunManifest {
  return {
    schema_version: SCHEMA_VERSION,
    schema_minor: SCHEMA_MINOR,
    run_id: a.runId,
    // Set again at ms 0 of the run.
    epoch_iso: new Date().toISOString(),
    conditions: a.conditions,
    workload: {
      path: relative(Deno.cwd(), resolve(a.workloadPath)),
      name: a.loaded.workload.workload,
      version: a.loaded.workload.version,
      kind: a.loaded.workload.kind,
      sha256: a.loaded.sha256,
      prompt_hashes: Object.fromEntries(a.loaded.workload.cases.map((c) => [c.case_id, c.prompt_sha256])),
      classes: [...new Set(a.loaded.workload.cases.map((c) => c.class))].sort(),
      ...(a.loaded.rubrics
        ? { rubric_hashes: Object.fromEntries(a.loaded.rubrics.rubrics.map((r) => [r.rubric_id, r.sha256])) }
        : {}),
    },
    plan: {
      path: relative(Deno.cwd(), resolve(a.planPath)),
      spec: a.plan.spec,
      seed: a.plan.spec.seed,
      mode: a.built.mode,
      mode_note: a.built.mode === "closed"
        ? "CLOSED LOOP, for comparison only: each user waits for its response, so offered load falls as the server slows"
        : "open loop: arrivals follow the saved schedule whatever the responses",
      schedule_file: "schedule.csv",
      schedule_sha256: "0".repeat(64),
      scheduled_requests: a.built.entries.length,
      shard: a.shard,
      start_iso: a.startIso,
    },
    targets: a.targets,
    ...(a.netAllow ? { net_allow: [...a.netAllow] } : {}),
    ...(a.routing ? { routing: a.routing } : {}),
    retry: a.retryPolicy,
    timeouts: a.timeouts,
    tokenizer: {
      name: "o200k_base",
      library: "js-tiktoken@1.0.21",
      used_for: "workload input_tokens; output/input tokens of attempts whose response carries no usage",
      max_chars: MAX_TOKENIZED_CHARS,
      max_work: MAX_TOKENIZER_WORK,
    },
    stages: a.built.stages,
    runner: { name: "goodput-runner", version: VERSION, deno: Deno.version.deno, ...a.runner },
    host: {
      hostname: Deno.hostname(),
      os: `${Deno.build.os} ${Deno.osRelease()}`,
      arch: Deno.build.arch,
      cpus: navigator.hardwareConcurrency,
      memory_bytes: Deno.systemMemoryInfo().total,
    },
    result: {
      status: "running",
      ended_ms: 0,
      offered: a.built.entries.length,
      not_sent: 0,
      client_shed: 0,
      send_lag_p99_ms: null,
      send_lag_max_ms: null,
      client_limited: false,
      client_limit_reason: null,
      retries: 0,
      retry_budget_exhausted: 0,
      runner_cpu_ms: null,
      runner_peak_rss_bytes: null,
    },
    files: {},
  };
}
