/**
 * The `deno task run` flags: the parser's configuration, each flag's line of
 * documentation, and the markdown tables of docs/runner_flags.md rendered from
 * them and from the settings schema (runner/settings.ts) — defaults and ranges
 * are never written here by hand. `deno task flags` rewrites the page;
 * test/runner/cli/run_flags_test.ts fails when it differs.
 *
 * @module
 */
import type { ParseArgsConfig } from "node:util";
import { describeRule, type NumberRule } from "../../lib/cli.ts";
import { RetryPolicy, Timeouts } from "../../schema/run_manifest.ts";
import { DEFAULT_HTTP_CLIENT, HTTP_CLIENT_KINDS } from "../http/mod.ts";
import { RUNNER_DEFAULTS, type RunnerSettings, settingRule, settingSchemas } from "../settings.ts";

/** The parser's configuration of `deno task run` (node:util parseArgs). */
export const RUN_FLAG_OPTIONS = {
  workload: { type: "string" },
  plan: { type: "string" },
  target: { type: "string" },
  routes: { type: "string" },
  "route-url": { type: "string", multiple: true },
  out: { type: "string" },
  format: { type: "string", default: RUNNER_DEFAULTS.format },
  conditions: { type: "string" },
  seed: { type: "string" },
  "run-id": { type: "string" },
  shard: { type: "string" },
  "start-at": { type: "string" },
  "api-key-env": { type: "string" },
  retry: { type: "string" },
  timeouts: { type: "string" },
  "max-send-lag-ms": { type: "string" },
  "max-in-flight": { type: "string" },
  "lag-limit-ms": { type: "string" },
  "max-response-bytes": { type: "string" },
  "save-outputs": { type: "boolean" },
  "http-client": { type: "string" },
  "no-progress": { type: "boolean" },
  "no-server-timeline": { type: "boolean" },
  "no-preflight": { type: "boolean" },
  help: { type: "boolean" },
} as const satisfies ParseArgsConfig["options"];

/** The range `--seed` must be in (the plan seed it replaces is an integer ≥ 0). */
export const SEED_RULE: NumberRule = { min: 0, integer: true };

/** One flag's documentation. */
export interface FlagDoc {
  /** The value's placeholder (`F`, `N`, `URL`, …); none for a switch. */
  arg?: string;
  /** The runner setting the flag sets: its default and range come from the schema. */
  setting?: keyof RunnerSettings;
  /** For a `--no-…` switch of a setting: the flag turns the setting off. */
  negates?: boolean;
  /** The default in words, for a flag that sets no runner setting (absent: none, written `—`). */
  default?: string;
  /** The allowed values in words, for a flag that sets no runner setting. */
  values?: string;
  meaning: string;
}

const retryDefaults = RetryPolicy.parse({});
const timeoutDefaults = Timeouts.parse({});

/** Every flag of `deno task run`, documented (the type makes a flag without a line a compile error). */
export const RUN_FLAG_DOCS: { [K in keyof typeof RUN_FLAG_OPTIONS]: FlagDoc } = {
  workload: { arg: "F", meaning: "a workload folder (or its `workload.json`) with `class_defaults.json` beside it" },
  plan: { arg: "F", meaning: "an arrival plan" },
  target: {
    arg: "URL",
    meaning: "base URL (`/v1/chat/completions` is appended) or the full endpoint URL; give it or `--routes`",
  },
  routes: { arg: "F", meaning: "instead of `--target`: several routes and a routing policy (a routes file)" },
  "route-url": {
    arg: "NAME=URL",
    values: "repeatable",
    meaning: "with `--routes`: points the route NAME at URL instead of the file's `url`",
  },
  out: { arg: "DIR", meaning: "parent folder; the run goes to `DIR/<run_id>/` (`DIR/<run_id>/shard-i-of-N/` sharded)" },
  format: {
    arg: "FMT",
    setting: "format",
    meaning: "CSV is always written during the run (crash-safe); Parquet is written at the end, in bounded memory",
  },
  conditions: {
    arg: "F",
    default: "unstated",
    meaning: "the frozen run conditions (model version, region, API tier, …); without it run.json says they were " +
      "not stated",
  },
  seed: { arg: "N", default: "the plan's", values: describeRule(SEED_RULE), meaning: "overrides the plan seed" },
  "run-id": {
    arg: "ID",
    default: "`<plan>-<UTC time>`",
    values: "1–128 of `A–Z a–z 0–9 . _ -`, not starting with `.`",
    meaning: "the run folder's name",
  },
  shard: { arg: "i/N", default: "`0/1`", values: "0 ≤ i < N", meaning: "run shard i of N of one schedule" },
  "start-at": {
    arg: "ISO",
    default: "at once",
    values: "an ISO date-time",
    meaning: "the wall-clock time all shards start at",
  },
  "api-key-env": {
    arg: "NAME",
    setting: "api_key_env",
    meaning: "environment variable holding the API key of `--target`; sent as `Authorization: Bearer`, never written",
  },
  retry: {
    arg: "F",
    default: "`RetryPolicy` defaults (below)",
    meaning: "the retry policy (JSON, `RetryPolicy` in schema/run_manifest.ts)",
  },
  timeouts: {
    arg: "F",
    default: "`Timeouts` defaults (below)",
    meaning: "the timeouts (JSON, `Timeouts` in schema/run_manifest.ts)",
  },
  "max-send-lag-ms": {
    arg: "N",
    setting: "max_send_lag_ms",
    meaning: "a request the runner could not start within N ms of its scheduled time is recorded `not_sent`",
  },
  "max-in-flight": { arg: "N", setting: "max_in_flight", meaning: "beyond this, requests are recorded `client_shed`" },
  "lag-limit-ms": {
    arg: "N",
    setting: "lag_limit_ms",
    meaning: "a p99 send lag above this, any `not_sent` (but a stop's) or `client_shed`: run.json says **the " +
      "client was the limit**",
  },
  "max-response-bytes": {
    arg: "N",
    setting: "max_response_bytes",
    meaning: "most body bytes one response may carry; a larger one is aborted at once: `invalid_response` / " +
      "`response_too_large`",
  },
  "save-outputs": { setting: "save_outputs", meaning: "also write `outputs.jsonl` (answer text and tool calls)" },
  "http-client": {
    arg: "KIND",
    default: `\`${DEFAULT_HTTP_CLIENT}\` (\`fetch\` for https)`,
    values: HTTP_CLIENT_KINDS.map((k) => `\`${k}\``).join(", "),
    meaning: "the HTTP client (see bench/README.md)",
  },
  "no-progress": { setting: "progress", negates: true, meaning: "no live progress line on stderr" },
  "no-server-timeline": {
    setting: "server_timeline",
    negates: true,
    meaning: "do not fetch the target's own timeline (`<base>/sim/timeline`)",
  },
  "no-preflight": {
    default: "probe on",
    meaning: "skip the pre-flight probe of each target before ms 0 (for deliberate failure tests); `runLoadTest` " +
      "probes only when its caller sets `preflight`",
  },
  help: { meaning: "prints the usage" },
};

/** A default value as the table shows it. */
function shown(key: string, value: unknown): string {
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

/** Markdown table: cells padded to their column as `deno fmt` pads them, `|` inside a cell escaped. */
export function markdownTable(header: string[], rows: string[][]): string {
  const cells = [header, ...rows].map((r) => r.map((c) => c.replaceAll("|", "\\|")));
  const widths = header.map((_, i) => Math.max(3, ...cells.map((r) => [...r[i]!].length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c + " ".repeat(widths[i]! - [...c].length)).join(" | ")} |`;
  return [line(cells[0]!), `| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`, ...cells.slice(1).map(line)]
    .join("\n");
}

/** The flag table: flag, default, allowed values, meaning. */
export function runFlagTable(): string {
  const rows = Object.entries(RUN_FLAG_DOCS).map(([name, d]) => {
    const flag = `\`--${name}${d.arg ? ` ${d.arg}` : ""}\``;
    if (d.setting === undefined) return [flag, d.default ?? "—", d.values ?? "", d.meaning];
    const value = RUNNER_DEFAULTS[d.setting];
    const values = d.negates ? "" : allowed(d.setting);
    return [flag, shown(d.setting, value), values, d.meaning];
  });
  return markdownTable(["flag", "default", "values", "meaning"], rows);
}

/** The settings no flag sets: fixed for every `deno task run`, set by `runLoadTest` callers. */
export function fixedSettingTable(): string {
  const flagged = new Set(Object.values(RUN_FLAG_DOCS).map((d) => d.setting));
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
    "# `deno task run` flags",
    "",
    "<!-- Generated by `deno task flags` from runner/cli/run_flags.ts and runner/settings.ts; do not edit by hand. -->",
    "",
    "Every flag is checked before a file is read or anything is written; a bad one is named with the values it " +
    "allows, exit 2. Defaults and ranges come from the settings schema (`RunnerSettings`, runner/settings.ts), which " +
    "`runLoadTest` uses too.",
    "",
    runFlagTable(),
    "",
    "## Settings without a flag",
    "",
    "Fixed for `deno task run`; a `runLoadTest` caller sets `flush_ms` and `preconnect` with the options `flushMs` " +
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
