/**
 * run.json of a production recording (contract 1.5): a run folder written by the recorder (recorder/) while a live
 * app served its users. There is no plan: the rows are the user actions the recorder observed (and sampled) during
 * an observation window, and the stages are fixed windows of that observation (hourly unless told otherwise), each
 * with the rate of user actions observed in it. The frozen conditions are the app's name and version, the model
 * route and what the recording was told; the sampling rate and the records the recorder dropped (its buffer full)
 * are stated, so that every count can be read for what it is.
 *
 * The log is written in parts: the recorder appends CSV to the current part (`part-NNNNN/`) and, at each rotation
 * (hourly, or when the part's CSVs pass a size), writes the part's tables as Parquet and starts the next. A reader
 * reads every part of the folder as one run.
 *
 * @module
 */
import { z } from "zod";
import { Stage } from "./plan.ts";

const sha = z.string().regex(/^[0-9a-f]{64}$/);
const count = z.number().int().nonnegative();

/** The folder name of a production recording's part `i` (`part-00000`, `part-00001`, …). */
export function partDir(i: number): string {
  return `part-${String(i).padStart(5, "0")}`;
}

/** A folder name that is a part of a production recording. */
export const PART_DIR_PATTERN = /^part-(\d{5})$/;

/** One part of the log: its folder, the window it covers on the run's clock, its format and files. */
export const ProductionPart = z.object({
  dir: z.string().regex(PART_DIR_PATTERN),
  started_ms: z.number().nonnegative(),
  /** Null while the part is the one being written. */
  ended_ms: z.number().nonnegative().nullable(),
  /** `csv` while recording; `parquet` once rotated (the CSVs are then removed). */
  format: z.enum(["csv", "parquet"]),
  /** Request rows in the part (as of the last flush while it is being written). */
  requests: count,
  /** File name → sha256, set when the part was rotated (empty while it is being written). */
  files: z.record(z.string(), sha),
}).strict();
export type ProductionPart = z.infer<typeof ProductionPart>;

/** Records the recorder could not keep (its bounded buffer was full), per table: the log holds the rest. */
export const DroppedRecords = z.object({
  requests: count,
  attempts: count,
  tools: count,
  phases: count,
  /** Page records that joined no task (unknown or unsampled request id, or arriving after the task was written). */
  page_records_unjoined: count,
  /** Errors of the recorder itself (a failed write, a bad page record), never passed to the app. */
  recorder_errors: count,
}).strict();
export type DroppedRecords = z.infer<typeof DroppedRecords>;

/** run.json of a production recording. */
export const ProductionManifest = z.object({
  schema_version: z.literal(1),
  /** The production kind exists since contract 1.5. */
  schema_minor: z.number().int().min(5),
  kind: z.literal("production"),
  run_id: z.string().min(1),
  /** The wall-clock instant of ms 0: when the recorder started. */
  epoch_iso: z.string().datetime(),
  /** The app whose users were observed; its version is a frozen condition of every number. */
  app: z.object({ name: z.string().min(1), version: z.string().min(1) }).strict(),
  /** What the recording was told about its conditions (model, provider, region, …), as given. */
  conditions: z.record(z.string(), z.string()),
  /** The observation window on the run's clock and as instants; `status` says whether it is still open. */
  observation: z.object({
    status: z.enum(["recording", "closed"]),
    started_iso: z.string().datetime(),
    ended_iso: z.string().datetime().nullable(),
    /** ms since epoch_iso of the last flush (recording) or of the close. */
    ended_ms: z.number().nonnegative(),
    /** The length of each stage window, s. */
    stage_s: z.number().positive(),
  }).strict(),
  /** The share of user actions recorded, and the rule that chose them. */
  sampling: z.object({
    rate: z.number().gt(0).max(1),
    rule: z.string().min(1),
  }).strict(),
  /** What "offered" and "measurement seconds" mean for this log, in words (the analysis repeats them). */
  definitions: z.object({
    offered: z.string().min(1),
    measurement_seconds: z.string().min(1),
    /**
     * Which instant each time column of a row holds (the page's, the service's report, or a model call's), and the
     * order in which the recorder takes the first one it has: there is no column naming the source per row.
     */
    times: z.string().min(1).optional(),
  }).strict(),
  /** The task classes the app declared (plus any class a task was begun with). */
  workload: z.object({ name: z.string().min(1), classes: z.array(z.string().min(1)) }).strict(),
  /** requests.route of a task whose model calls named none. */
  route: z.string().min(1),
  /** Fixed windows of the observation, each with the rate of user actions observed (sampled) in it. */
  stages: z.array(Stage),
  parts: z.array(ProductionPart).min(1),
  /** Request rows written over every part. */
  requests: count,
  dropped: DroppedRecords,
  recorder: z.object({
    name: z.string(),
    version: z.string(),
    /** The runtime the recorder ran in, e.g. `deno 2.9.6` or `node v20.20.2`. */
    runtime: z.string(),
    buffer_rows: z.number().int().positive(),
    flush_ms: z.number().positive(),
    /**
     * How long after it ended a task's rows were built and handed to the writer, ms. Absent in recordings made before
     * the settle existed (every finished task was built at the next flush).
     */
    settle_ms: z.number().nonnegative().optional(),
    rotate_s: z.number().positive(),
    rotate_bytes: z.number().int().positive(),
    /**
     * Which thread wrote the log: `thread`, the recorder's writer thread (node:worker_threads), or `app`, the app's own
     * (no writer thread could be started, or the app asked for it; a writer thread that stopped hands over to the app's
     * for the rest of the recording). Absent in recordings made before the writer thread existed (written on the app's).
     */
    writer: z.enum(["thread", "app"]).optional(),
  }).strict(),
}).strict();
export type ProductionManifest = z.infer<typeof ProductionManifest>;

/** True for a production recording's manifest (any object whose `kind` is `production`). */
export function isProduction(m: unknown): m is ProductionManifest {
  return (m as { kind?: unknown } | null)?.kind === "production";
}
