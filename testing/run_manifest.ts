/**
 * Fixtures shared by the tests (test/) and the benchmarks (bench/): a valid
 * run.json for hand-built and generated logs.
 *
 * @module
 */
import { RetryPolicy, type RunManifest, Timeouts } from "../schema/run_manifest.ts";
import type { Stage } from "../schema/plan.ts";
import { SCHEMA_MINOR } from "../schema/version.ts";

const SHA0 = "0".repeat(64);

/** A valid run.json for hand-built logs; `files` is filled by `writeRun` (test/analysis/_fixture.ts). */
export function makeManifest(stages: Stage[], over: Partial<RunManifest> = {}): RunManifest {
  return {
    schema_version: 1,
    schema_minor: SCHEMA_MINOR,
    run_id: "fixture-run",
    epoch_iso: "2026-01-01T00:00:00.000Z",
    conditions: {
      model: "sim",
      model_version: null,
      region: null,
      api_tier: null,
      api_version: null,
      deployment_image: null,
      gpu_config: null,
      autoscaling_policy: null,
      output_cap: null,
      route: "default",
      provider: "sim",
      notes: "",
    },
    workload: { path: "fixture", name: "fixture", version: "1", kind: "fixture", sha256: SHA0, prompt_hashes: {} },
    plan: {
      path: null,
      spec: {
        name: "fixture",
        seed: 1,
        arrivals: { process: "constant", rate_rps: 1, duration_s: 1 },
        mix: { class_weights: {} },
      },
      seed: 1,
      mode: "open",
      mode_note: "",
      schedule_file: "schedule.csv",
      schedule_sha256: SHA0,
      scheduled_requests: 0,
      shard: { index: 0, count: 1 },
      start_iso: null,
    },
    targets: [{
      route: "default",
      url: "http://127.0.0.1:1",
      provider: "sim",
      model: "sim",
      api_key_env: null,
      api_key_present: false,
      http_client: "fetch",
    }],
    // The runner's defaults, as the schema states them.
    retry: RetryPolicy.parse({}),
    timeouts: Timeouts.parse({}),
    tokenizer: { name: "o200k_base", library: "js-tiktoken", used_for: "fixture" },
    stages,
    runner: {
      name: "fixture",
      version: "0",
      deno: "2",
      max_send_lag_ms: 100,
      max_in_flight: 10,
      flush_ms: 1000,
      save_outputs: false,
      formats: ["csv"],
    },
    host: { hostname: "h", os: "linux", arch: "x86_64", cpus: 2, memory_bytes: 1 },
    result: {
      status: "complete",
      ended_ms: 0,
      offered: 0,
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
    ...over,
  };
}
