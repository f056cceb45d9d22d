/**
 * run.json of an imported run (contract 1.4): a run folder written by `deno task import` from another tool's
 * per-request file, or from OpenTelemetry traces (whose tasks also bring tool steps and phases). The log tables are the
 * contract's (requests, attempts, tools, and phases for traces); run.json says where they came
 * from (tool, version, files with sha256), how the source's times were placed on the run's clock, and what the
 * source lacks, field by field, with the consequence — which every analysis verb carries into its disclosure.
 *
 * A runner's run.json ({@linkcode RunManifest}) has no `kind`; an imported one says `kind: "imported"`. The analysis
 * reads either ({@linkcode parseAnyManifest}); neither schema is loosened for the other.
 *
 * @module
 */
import { z } from "zod";
import { InputError } from "./errors.ts";
import { describeIssues } from "./load.ts";
import { Stage } from "./plan.ts";
import { ProductionManifest } from "./production_manifest.ts";
import { RunManifest } from "./run_manifest.ts";

const sha = z.string().regex(/^[0-9a-f]{64}$/);

/** The tools whose files `deno task import` reads (importers/source.ts `SourceTool`). */
export const ImportedTool = z.enum([
  "vllm-bench-serve",
  "guidellm",
  "aiperf",
  "inference-perf",
  "llmperf",
  "mlperf-loadgen",
  "generic",
  "otlp",
  "genai-perf",
]);
export type ImportedTool = z.infer<typeof ImportedTool>;

/** The one workload class of every imported run: the tools record no task classes. */
export const IMPORTED_CLASS = "imported";

/** A source file as read: its path as given, the sha256 of its bytes, and what it is in the tool's terms. */
export const ImportedFile = z.object({ path: z.string().min(1), sha256: sha, format: z.string().min(1) }).strict();

/** A field the source does not hold, and the consequence for a number computed from it. */
export const ImportedLack = z.object({ field: z.string().min(1), consequence: z.string().min(1) }).strict();
export type ImportedLack = z.infer<typeof ImportedLack>;

/** One of the tool's own headline numbers, under the tool's key and definition (never renamed to ours). */
export const ImportedHeadline = z.object({
  key: z.string().min(1),
  stage: z.string().nullable(),
  value: z.number().nullable(),
  text: z.string().optional(),
  unit: z.string(),
  definition: z.string(),
}).strict();
export type ImportedHeadline = z.infer<typeof ImportedHeadline>;

/** How the source's times were placed on the run's clock (ms since `epoch_iso`). */
export const ImportedTimeline = z.object({
  /**
   * `epoch`: the source holds wall-clock times; `clock`: times on a clock with no epoch (perf_counter), kept as
   * differences; `durations_only`: no time per request at all (every request at ms 0, its first token and completion
   * at its durations): there is no time window.
   */
  kind: z.enum(["epoch", "clock", "durations_only"]),
  /** What ms 0 is, in words. */
  origin: z.string().min(1),
  /** epoch_iso is the wall-clock instant of ms 0 (false: a placeholder, 1970-01-01T00:00:00Z). */
  epoch_known: z.boolean(),
  /** Where `scheduled_ms` comes from: the tool's schedule, its send time, or nowhere (durations only: ms 0). */
  scheduled_from: z.enum(["schedule", "send", "none"]),
  /** Request rates over a window can be recomputed (false for `durations_only`: rates are null). */
  rates: z.boolean(),
}).strict();
export type ImportedTimeline = z.infer<typeof ImportedTimeline>;

/** A stage of an imported run: the tool's label and load setting, its window on the run's clock, its totals. */
export const ImportedStage = Stage.extend({
  /** The rate the tool was set to, req/s; null when it set none (closed loop, "throughput", "synchronous"). */
  offered_rps: z.number().nonnegative().nullable(),
  /** The concurrency the tool held, when closed-loop. */
  concurrency: z.number().int().positive().nullable(),
  /** The stage's duration as the tool states it, s. */
  tool_duration_s: z.number().nonnegative().nullable(),
  /** The tool's own counts (they can exceed the records kept, e.g. GuideLLM's sampled files). */
  tool_totals: z.object({
    ok: z.number().int().nonnegative().nullable(),
    error: z.number().int().nonnegative().nullable(),
    cancelled: z.number().int().nonnegative().nullable(),
    incomplete: z.number().int().nonnegative().nullable(),
  }).strict(),
}).strict();
export type ImportedStage = z.infer<typeof ImportedStage>;

/** Where an imported run or claims file came from: the tool, its version, the files read, the model, the notes. */
export const ImportedSource = z.object({
  tool: ImportedTool,
  /** As the files state it (or a schema version, said so); null when they do not. */
  tool_version: z.string().nullable(),
  files: z.array(ImportedFile).min(1),
  model: z.string().nullable(),
  headlines: z.array(ImportedHeadline),
  /** Oddities the reader found (a stripped file, a key with a stray colon), each a sentence. */
  notes: z.array(z.string()),
}).strict();
export type ImportedSource = z.infer<typeof ImportedSource>;

/** Who wrote an imported folder: this toolkit's importer and its version. */
export const Importer = z.object({ name: z.string(), version: z.string(), deno: z.string() }).strict();

/** run.json of an imported run. */
export const ImportedManifest = z.object({
  schema_version: z.literal(1),
  /** The imported kind exists since contract 1.4. */
  schema_minor: z.number().int().min(4),
  kind: z.literal("imported"),
  run_id: z.string().min(1),
  /** The wall-clock instant of ms 0 when `timeline.epoch_known`; else 1970-01-01T00:00:00.000Z. */
  epoch_iso: z.string().datetime(),
  source: ImportedSource,
  timeline: ImportedTimeline,
  /** What the source does not hold, field by field, with the consequence (never empty: gates at least). */
  lacks: z.array(ImportedLack).min(1),
  /** The rules that mapped the source onto the contract's rows, in words (outcomes, times, tokens, gates). */
  mapping: z.array(z.string().min(1)).min(1),
  /**
   * The tools record no task classes: one class, `imported`; an OTLP import has the classes its spans state
   * (`goodput.class`), `imported` for a span that states none. `name` is `imported:<tool>`.
   */
  workload: z.object({ name: z.string().min(1), classes: z.array(z.string().min(1)).min(1) }).strict(),
  /**
   * requests.route and attempts.route of every row: the model as the source states it, else "(not stated)"; an OTLP
   * import's rows keep their own routes, and this is their one route, or `(N routes)`.
   */
  route: z.string().min(1),
  stages: z.array(ImportedStage).min(1),
  /** Requests written (one row per source record). */
  requests: z.number().int().nonnegative(),
  importer: Importer,
  /** The SLO policy given at import (`--slo`), copied into the folder: the analysis's default for this run. */
  slo: z.object({ path: z.string(), file: z.string(), sha256: sha }).strict().optional(),
  /** File name → sha256 when the folder was written (tamper evidence). */
  files: z.record(z.string(), sha),
}).strict();
export type ImportedManifest = z.infer<typeof ImportedManifest>;

/** run.json of any kind: a runner's, an imported run's or a production recording's (schema/production_manifest.ts). */
export type AnyManifest = RunManifest | ImportedManifest | ProductionManifest;

/** Who wrote a run folder: this toolkit's runner, `deno task import`, or the recorder of a live app. */
export type RunKind = "runner" | "imported" | "production";

/** A stage of either kind of run: an imported stage's `offered_rps` is null when the tool set no rate. */
export type AnyStage = Stage | ImportedStage;

/** True for an imported run's manifest. */
export function isImported(m: AnyManifest): m is ImportedManifest {
  return (m as { kind?: unknown }).kind === "imported";
}

/** True for a runner's manifest (run.json without a `kind`): the only kind with a plan, targets and a result. */
export function isRunnerRun(m: AnyManifest): m is RunManifest {
  return (m as { kind?: unknown }).kind === undefined;
}

/**
 * The kind of a run's manifest: `runner` (no `kind`), `imported` or `production`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runKind } from "./imported_manifest.ts";
 * assert.equal(runKind({ schema_version: 1 } as never), "runner");
 * assert.equal(runKind({ kind: "production" } as never), "production");
 * ```
 */
export function runKind(m: AnyManifest): RunKind {
  const kind = (m as { kind?: unknown }).kind;
  return kind === "imported" ? "imported" : kind === "production" ? "production" : "runner";
}

/**
 * Validates a parsed run.json against the schema of its kind: `kind: "imported"` → {@linkcode ImportedManifest},
 * `kind: "production"` → {@linkcode ProductionManifest}, anything else → the runner's strict {@linkcode RunManifest}.
 * Throws an InputError naming `file` and every bad field.
 *
 * @example A runner manifest is not accepted as an imported one, nor the other way round
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseAnyManifest } from "./imported_manifest.ts";
 * assert.throws(() => parseAnyManifest({ schema_version: 1, kind: "imported" }, "run.json"), /run.json: source/);
 * assert.throws(() => parseAnyManifest({ schema_version: 1 }, "run.json"), /run.json: conditions/);
 * assert.throws(() => parseAnyManifest({ schema_version: 1, kind: "production" }, "run.json"), /production recording/);
 * ```
 */
export function parseAnyManifest(raw: unknown, file: string): AnyManifest {
  const kind = (raw as { kind?: unknown } | null)?.kind;
  const [schema, what] = kind === "imported"
    ? [ImportedManifest, "imported run"] as const
    : kind === "production"
    ? [ProductionManifest, "production recording"] as const
    : [RunManifest, "run"] as const;
  const res = schema.safeParse(raw);
  if (!res.success) throw new InputError(`${file}: invalid ${what} manifest`, describeIssues(file, res.error));
  return res.data;
}
