/**
 * `deno task run --workload F --plan F (--target URL | --routes F) --out DIR [--format csv|parquet|both]
 * [--conditions F] [--seed N] ...`: one open-loop run, written as a raw event log. Its flags, their defaults and
 * ranges: runner/cli/run_flags.ts and docs/runner_flags.md.
 */
import { InputError } from "../../schema/errors.ts";
import { HTTP_CLIENT_KINDS, type HttpClientKind } from "../http/mod.ts";
import { formatRunSummary } from "../run_summary.ts";
import { parseRouteUrls } from "../resolve_routes.ts";
import { runLoadTest } from "../run.ts";
import { runVerdict } from "../verdict.ts";
import { EXIT_PREFLIGHT, PreflightError } from "../preflight.ts";
import { RUNNER_DEFAULTS, settingRule } from "../settings.ts";
import { InputCheck, parseFlags, runMain } from "./_cli.ts";
import { RUN_FLAG_OPTIONS, SEED_RULE } from "./run_flags.ts";

export const USAGE = `usage: deno task run --workload F --plan F (--target URL | --routes F) --out DIR
  [--route-url NAME=URL ...]
  [--format csv|parquet|both] [--conditions F] [--seed N] [--run-id ID]
  [--shard i/N --start-at ISO] [--api-key-env NAME] [--retry F] [--timeouts F]
  [--max-send-lag-ms N] [--max-in-flight N] [--lag-limit-ms N] [--max-response-bytes N] [--save-outputs]
  [--http-client raw|fetch] [--no-progress] [--no-server-timeline] [--no-preflight]`;

if (import.meta.main) {
  await runMain(async () => {
    const { values: v } = parseFlags(Deno.args, RUN_FLAG_OPTIONS, USAGE);
    if (v.help) {
      console.log(USAGE);
      return 0;
    }
    // Every flag is checked here, before anything is read or written, and every problem is named at once.
    const check = new InputCheck();
    for (const f of ["workload", "plan", "out"] as const) check.require(!v[f], `--${f} is required`);
    check.require(!v.target === !v.routes, "give exactly one of --target and --routes");
    check.require(v["route-url"] !== undefined && !v.routes, "--route-url needs --routes");
    const formats = { csv: ["csv"], parquet: ["parquet"], both: ["csv", "parquet"] }[v.format!] as
      | ("csv" | "parquet")[]
      | undefined;
    check.require(!formats, `--format: expected csv, parquet or both, got ${JSON.stringify(v.format)}`);
    const client = v["http-client"];
    check.require(
      client !== undefined && !(HTTP_CLIENT_KINDS as readonly string[]).includes(client),
      `--http-client: expected one of ${HTTP_CLIENT_KINDS.join(", ")}, got ${JSON.stringify(client)}`,
    );
    check.require(
      v["start-at"] !== undefined && Number.isNaN(Date.parse(v["start-at"])),
      `--start-at: not an ISO date-time: ${JSON.stringify(v["start-at"])}`,
    );
    // Ranges from the settings schema (runner/settings.ts), as docs/runner_flags.md states them.
    const seed = check.number("seed", v.seed, SEED_RULE);
    const maxSendLagMs = check.number("max-send-lag-ms", v["max-send-lag-ms"], settingRule("max_send_lag_ms"));
    const maxInFlight = check.number("max-in-flight", v["max-in-flight"], settingRule("max_in_flight"));
    const lagLimitMs = check.number("lag-limit-ms", v["lag-limit-ms"], settingRule("lag_limit_ms"));
    const maxResponseBytes = check.number(
      "max-response-bytes",
      v["max-response-bytes"],
      settingRule("max_response_bytes"),
    );
    check.require(
      maxResponseBytes !== undefined && !Number.isSafeInteger(maxResponseBytes),
      `--max-response-bytes: expected at most ${Number.MAX_SAFE_INTEGER}, got ${
        JSON.stringify(v["max-response-bytes"])
      }`,
    );
    const shard = check.shard(v.shard);
    const runId = check.runName("run-id", v["run-id"]);
    let routeUrls: Record<string, string> = {};
    try {
      routeUrls = parseRouteUrls(v["route-url"] ?? []);
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      check.problems.push(e.message);
    }
    check.throwIfAny(USAGE);
    let started = false;
    const run = await runLoadTest({
      workload: v.workload!,
      plan: v.plan!,
      target: v.target ?? null,
      routes: v.routes ?? null,
      routeUrls,
      out: v.out!,
      formats: formats!,
      conditions: v.conditions ?? null,
      seed: seed ?? null,
      runId: runId ?? null,
      shard,
      startAt: v["start-at"] ?? null,
      apiKeyEnv: v["api-key-env"],
      retryFile: v.retry ?? null,
      timeoutsFile: v.timeouts ?? null,
      maxSendLagMs,
      maxInFlight,
      lagLimitMs,
      maxResponseBytes,
      saveOutputs: v["save-outputs"] ?? RUNNER_DEFAULTS.save_outputs,
      httpClient: client as HttpClientKind | undefined,
      progress: !v["no-progress"],
      serverTimeline: !v["no-server-timeline"],
      preflight: !v["no-preflight"],
      atStart: () => {
        started = true;
        return Promise.resolve();
      },
    }).catch((e) => {
      // A failed pre-flight is the target's fault, not the user's input: its own message and exit code, no stack trace.
      if (e instanceof PreflightError) {
        console.error(`error: ${e.message}`);
        return null;
      }
      // Flags and files are all checked before ms 0: what fails after it is not the user's input (exit 1, not 2).
      if (started && e instanceof InputError) throw new Error(`the run failed after it started: ${e.message}`);
      throw e;
    });
    if (run === null) return EXIT_PREFLIGHT;
    const { dir, manifest, summary } = run;
    console.log(formatRunSummary(manifest, summary));
    console.log(`run written to ${dir}`);
    // The run is finalised either way; a run in which nothing succeeded says so and exits non-zero.
    const verdict = runVerdict(summary);
    if (verdict.message) console.error(`${verdict.message}; the run is finalised in ${dir} (exit ${verdict.exitCode})`);
    return verdict.exitCode;
  });
}
