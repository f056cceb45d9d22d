/**
 * The `npx deno task run` command, declared once (lib/command.ts): the
 * parser, the flag checks, `--help` and the markdown tables of
 * docs/runner_flags.md are rendered from it, and each flag that sets a runner
 * setting takes its default and range from the settings schema
 * (runner/settings.ts) — never written here by hand. `deno task flags`
 * rewrites the page; test/scripts/flags_test.ts fails when it differs.
 *
 * @module
 */
import { oneShot } from "../../schema/load.ts";
import { describeRule, type NumberRule } from "../../lib/cli.ts";
import type { CommandSpec, FlagSpec } from "../../lib/command.ts";
import { flagTable, markdownTable } from "../../lib/command_help.ts";
import { RetryPolicy, Timeouts } from "../../schema/run_manifest.ts";
import { DEFAULT_HTTP_CLIENT, HTTP_CLIENT_KINDS } from "../http/mod.ts";
import { START_AT_VALUES } from "./start_at.ts";
import { RUNNER_DEFAULTS, type RunnerSettings, settingRule, settingSchemas } from "../settings.ts";

/** The range `--seed` must be in (the plan seed it replaces is an integer ≥ 0). */
export const SEED_RULE: NumberRule = { min: 0, integer: true };

const retryDefaults = RetryPolicy.parse({}, oneShot());
const timeoutDefaults = Timeouts.parse({}, oneShot());

/** A numeric flag that sets a runner setting: its range and default from the schema. */
function settingNumber(key: keyof RunnerSettings, description: string) {
  return {
    type: "number",
    arg: "N",
    rule: settingRule(key),
    defaultText: shown(key, RUNNER_DEFAULTS[key]),
    description,
  } as const satisfies FlagSpec;
}

/** Which runner setting each flag sets (the rest are in the table of settings without a flag). */
export const RUN_FLAG_SETTINGS: Readonly<Record<string, keyof RunnerSettings>> = {
  format: "format",
  "api-key-env": "api_key_env",
  "max-send-lag-ms": "max_send_lag_ms",
  "max-in-flight": "max_in_flight",
  "lag-limit-ms": "lag_limit_ms",
  "max-response-bytes": "max_response_bytes",
  "save-outputs": "save_outputs",
  "cache-bust": "cache_bust",
  "no-progress": "progress",
  "no-server-timeline": "server_timeline",
  "server-metrics": "server_metrics",
};

/** `npx deno task run`: every flag with its default, values and meaning. */
export const RUN_COMMAND = {
  name: "run",
  invocation: "npx deno task run",
  summary: "one open-loop run of a plan against an OpenAI-compatible server, written as a raw event log",
  details: [
    "Every flag and file is checked before anything is sent or written; each target is probed once before ms 0 " +
    "(docs/runner.md). The run goes to `DIR/<run_id>/`.",
    "Every input file must be a regular file — a FIFO, a device or a folder is refused before it is opened — of at " +
    "most 64 MiB (a trace or a saved schedule: 1 GiB; schema/read_input.ts). `--out` must be writable: a probe file " +
    "is made and removed in it (or in its nearest existing folder) with the flag checks, before any target is " +
    "contacted.",
  ],
  flags: {
    workload: {
      type: "string",
      arg: "F",
      required: true,
      description: "a workload folder (or its `workload.json`) with `class_defaults.json` beside it",
    },
    plan: { type: "string", arg: "F", required: true, description: "an arrival plan" },
    target: {
      type: "string",
      arg: "URL",
      defaultText: "none: give it or `--routes`",
      description: "base URL (`/v1/chat/completions` is appended) or the full endpoint URL",
    },
    routes: {
      type: "string",
      arg: "F",
      defaultText: "none: give it or `--target`",
      description: "instead of `--target`: several routes and a routing policy (a routes file)",
    },
    "route-url": {
      type: "string",
      arg: "NAME=URL",
      multiple: true,
      description: "with `--routes`: points the route NAME at URL instead of the file's `url`",
    },
    dialect: {
      type: "string",
      arg: "NAME",
      defaultText: "openai-chat",
      description: "with `--target`: the provider's API (openai-chat, openai-responses, anthropic-messages, gemini, " +
        "bedrock-converse, azure-openai; docs/dialects/); a routes file names each route's own",
    },
    "dialect-option": {
      type: "string",
      arg: "KEY=VALUE",
      multiple: true,
      description: "with `--target`: one of the dialect's options (a routes file's `dialect_options`); VALUE is read " +
        "as JSON when it is JSON, else as text",
    },
    out: {
      type: "string",
      arg: "DIR",
      required: true,
      description: "parent folder; the run goes to `DIR/<run_id>/` (`DIR/<run_id>/shard-i-of-N/` sharded)",
    },
    format: {
      type: "string",
      arg: "FMT",
      choices: settingSchemas().format.enum as RunnerSettings["format"][],
      default: RUNNER_DEFAULTS.format,
      description:
        "CSV is always written during the run (crash-safe); Parquet is written at the end, in bounded memory",
    },
    conditions: {
      type: "string",
      arg: "F",
      defaultText: "unstated",
      description: "the frozen run conditions (model version, region, API tier, …); without it run.json says they " +
        "were not stated, and a `--target`'s requests name the first model of its `GET /v1/models` list " +
        "(`targets[].model_note` says so)",
    },
    seed: {
      type: "number",
      arg: "N",
      rule: SEED_RULE,
      defaultText: "the plan's",
      description: "overrides the plan seed",
    },
    "run-id": {
      type: "string",
      arg: "ID",
      defaultText: "`<plan>-<UTC time>`",
      values: "1–128 of `A–Z a–z 0–9 . _ -`, not starting with `.`",
      description: "the run folder's name",
    },
    shard: {
      type: "string",
      arg: "i/N",
      defaultText: "`0/1`",
      values: "0 ≤ i < N",
      description: "run shard i of N of one schedule",
    },
    workers: {
      type: "string",
      arg: "N",
      default: "1",
      values: "a whole number from 1 to 4 × the cores this machine has (each worker is a process: more only " +
        "share the CPU), or `auto`: the cores minus one (at least 1)",
      description: "run as N runner processes, each a shard of the one schedule with one start time, in " +
        "`DIR/<run_id>/shard-k-of-N/` (with `--shard i/M`: worker k runs shard i·N + k of M·N); 1 runs in this " +
        'process (docs/runner.md "Use every core")',
    },
    "as-worker": {
      type: "boolean",
      description: "how `--workers` runs each worker (not for direct use): progress and the end as JSON lines on " +
        "stdout, the start time from stdin, and a stop when stdin closes",
    },
    "start-at": {
      type: "string",
      arg: "ISO",
      defaultText: "at once",
      values: START_AT_VALUES,
      description: "the wall-clock time all shards start at",
    },
    "api-key-env": {
      type: "string",
      arg: "NAME",
      defaultText: shown("api_key_env", RUNNER_DEFAULTS.api_key_env),
      values: allowed("api_key_env"),
      description: "environment variable holding the API key of `--target`; sent in the dialect's key header " +
        "(`Authorization: Bearer` for openai-chat), never written",
    },
    retry: {
      type: "string",
      arg: "F",
      defaultText: "`RetryPolicy` defaults (below)",
      description: "the retry policy (JSON, `RetryPolicy` in schema/run_manifest.ts)",
    },
    timeouts: {
      type: "string",
      arg: "F",
      defaultText: "`Timeouts` defaults (below)",
      description: "the timeouts (JSON, `Timeouts` in schema/run_manifest.ts)",
    },
    "max-send-lag-ms": settingNumber(
      "max_send_lag_ms",
      "a request the runner could not start within N ms of its scheduled time is recorded `not_sent`",
    ),
    "max-in-flight": settingNumber("max_in_flight", "beyond this, requests are recorded `client_shed`"),
    "lag-limit-ms": settingNumber(
      "lag_limit_ms",
      "a fixed bar of your own: a p99 send lag above N ms (the highest percentile n supports when n < 459) also " +
        "makes run.json say **the client was the limit**; without it the rule of docs/verdicts.md alone judges " +
        "(requests not sent or shed, a stage's lag longer than its mean gap between planned arrivals)",
    ),
    "max-response-bytes": settingNumber(
      "max_response_bytes",
      "most body bytes one response may carry; a larger one is aborted at once: `invalid_response` / " +
        "`response_too_large`",
    ),
    "save-outputs": { type: "boolean", description: "also write `outputs.jsonl` (answer text and tool calls)" },
    "cache-bust": {
      type: "boolean",
      description: "a unique prefix `[cb <run hash> <request_id>] ` before each request's first user message, so " +
        "the target's prefix cache cannot serve one request's prompt from another's (run.json `runner.cache_bust` " +
        "states the rule; the cached-token share per level is in the knee's table)",
    },
    "http-client": {
      type: "string",
      arg: "KIND",
      choices: HTTP_CLIENT_KINDS,
      defaultText: `\`${DEFAULT_HTTP_CLIENT}\` (\`fetch\` for https)`,
      description: "the HTTP client (see bench/README.md)",
    },
    "no-progress": { type: "boolean", description: "no live progress line on stderr" },
    "server-metrics": {
      type: "string",
      arg: "MODE",
      choices: settingSchemas().server_metrics.enum as RunnerSettings["server_metrics"][],
      default: RUNNER_DEFAULTS.server_metrics,
      description: "the server table from each target's own metrics: `auto` asks `/sim/timeline` (the simulator, " +
        "fetched at the end), then `/metrics` (llama.cpp or vLLM names, read once a second); `llamacpp`, `vllm`, " +
        "`sim` read only that; `off` none (docs/server_metrics.md)",
    },
    "no-server-timeline": {
      type: "boolean",
      description: "the same as `--server-metrics off`",
    },
    "no-preflight": {
      type: "boolean",
      description: "skip the pre-flight probe of each target before ms 0 (for deliberate failure tests); " +
        "`runLoadTest` probes only when its caller sets `preflight`",
    },
  },
  examples: [
    "npx deno task sim --port 8787 &",
    "npx deno task run --workload data/workloads/design-v1 --plan data/plans/constant-10rps.json " +
    "--target http://127.0.0.1:8787 --out out",
  ],
  exits: {
    1: "an unexpected runner error, or an input error raised after ms 0 (the target's or the runner's fault)",
    3: "no request succeeded: zero `ok` among the offered requests; the run is still finalised",
    4: "a target failed the pre-flight probe: nothing was run or written",
    5: "a worker of `--workers` (`--as-worker`) its parent stopped before the start: nothing was sent",
    6: "a log file could not be written (a full disk): the run stopped there and what is on disk is finalised, " +
      "`write_failed`",
    "128+n": "a second signal n (the first SIGINT, SIGTERM or SIGHUP finalises the run, `interrupted`)",
  },
} as const satisfies CommandSpec;

/** A default value as the table shows it. */
function shown(key: string, value: unknown): string {
  if (value === undefined) return "none";
  if (typeof value === "boolean") return value ? "on" : "off";
  if (typeof value === "string") return `\`${value}\``;
  if (typeof value === "number" && key.endsWith("_bytes") && value % (1024 * 1024) === 0) {
    return `${value} (${value / (1024 * 1024)} MiB)`;
  }
  return JSON.stringify(value);
}

/** A setting's allowed values in words, from its schema. */
function allowed(key: keyof RunnerSettings): string {
  const s = settingSchemas()[key];
  if (s.enum) return s.enum.map((v) => `\`${v}\``).join(", ");
  if (s.type === "number" || s.type === "integer") return describeRule(settingRule(key));
  if (s.type === "string") return "a name";
  return "";
}

/** The settings no flag sets: fixed for every `npx deno task run`, set by `runLoadTest` callers. */
export function fixedSettingTable(): string {
  const flagged = new Set(Object.values(RUN_FLAG_SETTINGS));
  const schemas = settingSchemas();
  const rows = (Object.keys(schemas) as (keyof RunnerSettings)[]).filter((k) => !flagged.has(k)).map((k) => [
    `\`${k}\``,
    shown(k, RUNNER_DEFAULTS[k]),
    allowed(k),
    schemas[k].description ?? "",
  ]);
  return markdownTable(["setting", "default", "values", "meaning"], rows);
}

/** The retry policy's and the timeouts' defaults, from their zod schemas in schema/run_manifest.ts. */
export function contractDefaultTable(): string {
  const rows = [
    ...Object.entries(retryDefaults).map(([k, v]) => ["`RetryPolicy`", `\`${k}\``, `\`${JSON.stringify(v)}\``]),
    ...Object.entries(timeoutDefaults).map(([k, v]) => ["`Timeouts`", `\`${k}\``, `\`${JSON.stringify(v)}\``]),
  ];
  return markdownTable(["schema", "field", "default"], rows);
}

/** docs/runner_flags.md, whole, before `deno fmt` wraps its paragraphs (scripts/flags.ts). */
export function runFlagsPage(): string {
  return [
    "# `npx deno task run` flags",
    "",
    "<!-- Generated by `npx deno task flags` from runner/cli/run_flags.ts and runner/settings.ts; do not edit by hand. -->",
    "",
    "Every flag is checked before a file is read or anything is written; a bad one is named with the values it " +
    "allows, exit 2. Defaults and ranges come from the settings schema (`RunnerSettings`, runner/settings.ts), which " +
    "`runLoadTest` uses too.",
    "",
    flagTable(RUN_COMMAND),
    "",
    "## Settings without a flag",
    "",
    "Fixed for `npx deno task run`; a `runLoadTest` caller sets `flush_ms` and `preconnect` with the options `flushMs` " +
    "and `preconnect`.",
    "",
    fixedSettingTable(),
    "",
    "## Retry policy and timeouts",
    "",
    "`--retry F` and `--timeouts F` give JSON files checked against `RetryPolicy` and `Timeouts` " +
    "(schema/run_manifest.ts); a field left out takes its default, and run.json records the values used.",
    "",
    contractDefaultTable(),
    "",
  ].join("\n");
}
