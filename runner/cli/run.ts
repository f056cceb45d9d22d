/**
 * `npx deno task run --workload F --plan F (--target URL | --routes F) --out DIR [flags]`: one open-loop run,
 * written as a raw event log. Its flags, their defaults and ranges: {@linkcode RUN_COMMAND} (runner/cli/run_flags.ts)
 * and docs/runner_flags.md.
 */
import { runCommand } from "../../lib/command.ts";
import { InputError } from "../../schema/errors.ts";
import { formatRunSummary } from "../run_summary.ts";
import { parseDialectOptions, parseRouteUrls } from "../resolve_routes.ts";
import { runLoadTest } from "../run.ts";
import { EXIT_WRITE_FAILED, finishedRunVerdict } from "../verdict.ts";
import { LogWriteError } from "../sinks/log_write_error.ts";
import { dirname } from "node:path";
import { EXIT_PREFLIGHT, PreflightError } from "../preflight.ts";
import { RUN_COMMAND } from "./run_flags.ts";
import { startAtProblem } from "./start_at.ts";
import type { RunOptions } from "../run_options.ts";
import { launchWorkers } from "../workers/launch.ts";
import { parseWorkers } from "../workers/worker_count.ts";
import { EXIT_NOT_STARTED, linkToParent, stdioLink, WorkerAborted } from "../workers/worker_link.ts";
import { RUNNER_DEFAULTS } from "../settings.ts";

if (import.meta.main) {
  await runCommand(RUN_COMMAND, async ({ values: v, check }) => {
    // Every flag is checked here, before anything is read or written, and every problem is named at once.
    check.require(!v.target === !v.routes, "give exactly one of --target and --routes");
    check.require(v["route-url"].length > 0 && !v.routes, "--route-url needs --routes");
    check.require(v.dialect !== undefined && !v.target, "--dialect needs --target (a routes file names each route's)");
    check.require(v["dialect-option"].length > 0 && !v.target, "--dialect-option needs --target");
    check.require(
      v["no-server-timeline"] && v["server-metrics"] !== "off" &&
        v["server-metrics"] !== RUNNER_DEFAULTS.server_metrics,
      `--no-server-timeline is --server-metrics off: it contradicts --server-metrics ${v["server-metrics"]}`,
    );
    const formats = { csv: ["csv"], parquet: ["parquet"], both: ["csv", "parquet"] }[v.format] as (
      | "csv"
      | "parquet"
    )[];
    const startAt = v["start-at"] === undefined ? null : startAtProblem(v["start-at"], Date.now());
    if (startAt !== null) check.problems.push(startAt);
    // A folder the run cannot be written to is found now, before any target is contacted.
    if (!v["as-worker"]) check.writableFolder("out", v.out);
    const shard = check.shard(v.shard);
    const workers = parseWorkers(v.workers);
    if ("problem" in workers) check.problems.push(workers.problem);
    const count = "count" in workers ? workers.count : 1;
    check.require(v["as-worker"] && count > 1, "--as-worker is how --workers runs each worker: give one of them");
    const runId = check.runName("run-id", v["run-id"]);
    let routeUrls: Record<string, string> = {};
    let dialectOptions: Record<string, unknown> = {};
    try {
      routeUrls = parseRouteUrls(v["route-url"]);
      dialectOptions = parseDialectOptions(v["dialect-option"]);
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      check.problems.push(e.message);
    }
    check.throwIfAny();
    let started = false;
    const options: RunOptions = {
      workload: v.workload!,
      plan: v.plan!,
      target: v.target ?? null,
      routes: v.routes ?? null,
      routeUrls,
      out: v.out!,
      formats,
      conditions: v.conditions ?? null,
      seed: v.seed ?? null,
      runId: runId ?? null,
      shard,
      startAt: v["start-at"] ?? null,
      apiKeyEnv: v["api-key-env"],
      dialect: v.dialect,
      dialectOptions,
      retryFile: v.retry ?? null,
      timeoutsFile: v.timeouts ?? null,
      maxSendLagMs: v["max-send-lag-ms"],
      maxInFlight: v["max-in-flight"],
      lagLimitMs: v["lag-limit-ms"],
      maxResponseBytes: v["max-response-bytes"],
      saveOutputs: v["save-outputs"],
      cacheBust: v["cache-bust"],
      httpClient: v["http-client"],
      progress: !v["no-progress"],
      serverTimeline: !v["no-server-timeline"],
      serverMetrics: v["server-metrics"],
      preflight: !v["no-preflight"],
      modelFromTarget: true,
      atStart: () => {
        started = true;
        return Promise.resolve();
      },
    };
    if (count > 1) return await launchWorkers(options, { count, values: v });
    // A worker of --workers: progress and the end go to the parent, which gives the start time (runner/workers/).
    const link = v["as-worker"] ? linkToParent(stdioLink()) : null;
    const run = await runLoadTest(link ? { ...options, ...link.options, progress: false } : options).catch((e) => {
      if (link && e instanceof WorkerAborted) {
        link.discard();
        console.error(`error: ${e.message}; nothing was sent, the shard folder is removed`);
        return EXIT_NOT_STARTED;
      }
      // A failed pre-flight is the target's fault, not the user's input: its own message and exit code, no stack trace.
      if (e instanceof PreflightError) {
        console.error(`error: ${e.message}`);
        return null;
      }
      // A full disk before the first request (the room kept for run.json, run.json at ms 0): the file and the error.
      if (e instanceof LogWriteError) {
        const cause = e.cause instanceof Error ? e.cause.message : String(e.cause);
        const folder = dirname(e.path);
        Deno.removeSync(folder, { recursive: true });
        console.error(
          `error: cannot write ${e.path}: ${cause}${e.code ? ` (${e.code})` : ""}: the run did not start, ` +
            `nothing was sent, ${folder} is removed`,
        );
        return EXIT_WRITE_FAILED;
      }
      // Flags and files are all checked before ms 0: what fails after it is not the user's input (exit 1, not 2).
      if (started && e instanceof InputError) throw new Error(`the run failed after it started: ${e.message}`);
      throw e;
    });
    if (run === null) return EXIT_PREFLIGHT;
    if (run === EXIT_NOT_STARTED || run === EXIT_WRITE_FAILED) return run;
    const { dir, manifest, summary } = run;
    if (link) link.end(run);
    else {
      console.log(formatRunSummary(manifest, summary));
      console.log(`run written to ${dir}`);
    }
    // The run is finalised either way; a run in which nothing succeeded says so and exits non-zero.
    const verdict = finishedRunVerdict(manifest.result, summary);
    if (verdict.message) console.error(`${verdict.message}; the run is finalised in ${dir} (exit ${verdict.exitCode})`);
    return verdict.exitCode;
  });
}
