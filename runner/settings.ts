/**
 * Every setting of a run that is not an input file, with its default, in one
 * zod schema: `runLoadTest` (runner/run.ts) and the `deno task run` flags
 * (runner/cli/run.ts) take their defaults and ranges from here, and the flag
 * table in docs/runner_flags.md is generated from it (runner/cli/run_flags.ts,
 * `deno task flags`). The retry policy and the timeouts keep their defaults in
 * the contract (`RetryPolicy`, `Timeouts` in schema/run_manifest.ts): run.json
 * records them.
 *
 * @example The defaults, as a run without flags uses them
 * ```ts
 * import assert from "node:assert/strict";
 * import { RUNNER_DEFAULTS } from "./settings.ts";
 * assert.equal(RUNNER_DEFAULTS.max_send_lag_ms, 1000);
 * assert.equal(RUNNER_DEFAULTS.max_response_bytes, 8 * 1024 * 1024);
 * ```
 * @module
 */
import { z } from "zod";
import { oneShot } from "../schema/load.ts";
import type { NumberRule } from "../lib/cli.ts";
import { ServerMetricsMode } from "../schema/server_metrics.ts";

/** The settings of a run; each field's `.describe()` is its line in the generated docs. */
export const RunnerSettings = z.object({
  format: z.enum(["csv", "parquet", "both"]).default("both")
    .describe("the log formats written: CSV during the run, Parquet at its end"),
  max_send_lag_ms: z.number().positive().default(1000)
    .describe("a request not started within this many ms of its scheduled time is recorded `not_sent`"),
  max_in_flight: z.number().int().min(1).default(20_000)
    .describe("requests in flight at most; one more is recorded `client_shed`"),
  lag_limit_ms: z.number().min(0).optional()
    .describe(
      "a fixed bar of your own: a p99 send lag above it (the highest percentile n supports when n < 459) means the " +
        "client was the limit, besides the rule of docs/verdicts.md; none by default",
    ),
  max_response_bytes: z.number().int().min(1).default(8 * 1024 * 1024)
    .describe("most body bytes one response may carry"),
  save_outputs: z.boolean().default(false).describe("also write `outputs.jsonl`"),
  cache_bust: z.boolean().default(false)
    .describe(
      "a unique prefix before each request's first user message, so the target's prefix cache cannot serve one " +
        "request's prompt from another's (runner/cache_bust.ts; the rule in run.json `runner.cache_bust`)",
    ),
  api_key_env: z.string().min(1).default("GOODPUT_API_KEY")
    .describe("the environment variable holding a single `--target`'s API key"),
  progress: z.boolean().default(true).describe("a live progress line on stderr"),
  server_metrics: ServerMetricsMode.default("auto")
    .describe(
      "read the target's own timeline: `auto` recognises the simulator's `/sim/timeline`, then llama.cpp's or " +
        "vLLM's `/metrics`; a server with none is not polled (docs/server_metrics.md)",
    ),
  server_timeline: z.boolean().default(true)
    .describe("fetch the target's own timeline from `<base>/sim/timeline` when it announces one"),
  flush_ms: z.number().positive().default(100)
    .describe("a row appended to the CSV or outputs sinks reaches the disk at most this long after (ms)"),
  preconnect: z.number().int().min(0).default(8)
    .describe(
      "keep-alive connections opened to each route before ms 0 (raw client); left unset, an open loop opens as many " +
        "as its first 25 ms of arrivals when that is more, up to 256",
    ),
  max_rounds: z.number().int().min(1).default(8)
    .describe(
      "rounds of one task at most (a round: one model call, with its retries and fallbacks); a task still calling " +
        "tools after the last round is `invalid_response` / `max_rounds`",
    ),
}).strict();
export type RunnerSettings = z.infer<typeof RunnerSettings>;

/** The value of every setting when none is given. */
export const RUNNER_DEFAULTS: RunnerSettings = RunnerSettings.parse({}, oneShot());

/** A setting's JSON Schema (zod's rendering): its type, range, allowed values, default and description. */
export interface SettingSchema {
  type?: string;
  enum?: string[];
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
  default?: unknown;
  description?: string;
}

/** The settings' JSON Schemas once rendered (frozen: every caller reads the same objects). */
let SCHEMAS: Readonly<Record<keyof RunnerSettings, Readonly<SettingSchema>>> | null = null;

/**
 * Every setting's JSON Schema, in the schema's order. Rendered once per process: the flag table reads it for each
 * numeric flag at start-up, where rendering it each time cost ~6 ms of a run's start (bench/README.md "Issue 33,
 * eighth pass").
 */
export function settingSchemas(): Readonly<Record<keyof RunnerSettings, Readonly<SettingSchema>>> {
  if (SCHEMAS) return SCHEMAS;
  const json = z.toJSONSchema(RunnerSettings, { io: "input" }) as { properties: Record<string, SettingSchema> };
  for (const s of Object.values(json.properties)) {
    if (s.enum) Object.freeze(s.enum);
    Object.freeze(s);
  }
  return SCHEMAS = Object.freeze(json.properties as Record<keyof RunnerSettings, SettingSchema>);
}

/**
 * The range of a numeric setting as the flag check states it: `min`/`above`
 * from the schema, `integer` for an integer setting. (zod bounds every integer
 * by the largest safe integer; that bound is not repeated here.)
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { settingRule } from "./settings.ts";
 * assert.deepEqual(settingRule("max_send_lag_ms"), { above: 0 });
 * assert.deepEqual(settingRule("max_in_flight"), { min: 1, integer: true });
 * ```
 */
export function settingRule(key: keyof RunnerSettings): NumberRule {
  const s = settingSchemas()[key];
  if (s.type !== "number" && s.type !== "integer") throw new TypeError(`${key} is not a numeric setting`);
  const rule: NumberRule = {};
  if (s.minimum !== undefined) rule.min = s.minimum;
  if (s.exclusiveMinimum !== undefined) rule.above = s.exclusiveMinimum;
  if (s.maximum !== undefined && s.maximum !== Number.MAX_SAFE_INTEGER) rule.max = s.maximum;
  if (s.type === "integer") rule.integer = true;
  return rule;
}
