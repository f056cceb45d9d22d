/**
 * Quality verdicts (contract 1.8): their own table beside a run, in `RUN/quality/`, never in the run's files. Each
 * part file (`<name>.csv` or `<name>.parquet`) holds the verdicts of one writer (a judge pass, one import of human
 * ratings, an adjudication) and is listed with its sha256 in `RUN/quality/quality.json`, the table's own manifest.
 *
 * @module
 */
import { z } from "zod";
import { Rubric } from "./rubric.ts";

/** The folder of a run that holds its quality verdicts. */
export const QUALITY_DIR = "quality";
/** The quality table's manifest, inside {@linkcode QUALITY_DIR}. */
export const QUALITY_MANIFEST = "quality.json";
/** The contract minor version that added the quality table. */
export const QUALITY_SINCE_MINOR = 8;

/**
 * Who gave a verdict: `inline` (a check run with the request), `judge:<model>` (a model judge), `human:<rater>` (one
 * blinded rater) or `adjudicated:<rater>` (the settled verdict of an item the raters disagreed on).
 */
export const QualitySource = z.string().regex(
  /^(inline|(judge|human|adjudicated):[^\s,:][^\s,]{0,127})$/,
  "inline, judge:<model>, human:<rater> or adjudicated:<rater> (no spaces or commas)",
);

/** The kind of a source: its part before the `:`. */
export type SourceKind = "inline" | "judge" | "human" | "adjudicated";

/** The kind of `source` (`judge:gpt-x` → `judge`). */
export function sourceKind(source: string): SourceKind {
  return source.split(":", 1)[0] as SourceKind;
}

/** One verdict on one request's answer. */
export const QualityRow = z.object({
  run_id: z.string().min(1),
  request_id: z.string().min(1),
  source: QualitySource,
  rubric_id: z.string().min(1),
  /** The sha256 of the rubric the scores are on (schema/rubric.ts `rubricSha256`). */
  rubric_sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** Criterion id → score, as JSON text (`{"faithful":1,"coverage":4}`). */
  scores: z.string().min(2),
  /** The rubric's verdict on the scores: every criterion passes. */
  pass: z.boolean(),
  /** The judge's or rater's reasons, as given. */
  rationale: z.string().nullable(),
  /** How long the verdict took: a rater's time on the item, or the judge's call(s). */
  time_spent_ms: z.number().nonnegative().nullable(),
  /** When the verdict was given, ms since 1970-01-01T00:00:00Z. */
  judged_epoch_ms: z.number(),
  /** The judge's prompt and completion tokens over every call for this item (retries included); null for people. */
  input_tokens: z.number().int().nonnegative().nullable(),
  output_tokens: z.number().int().nonnegative().nullable(),
  /** The judge's calls for this item (retries included); null for people. */
  calls: z.number().int().nonnegative().nullable(),
}).strict();
export type QualityRow = z.infer<typeof QualityRow>;

/** The quality table's columns in file order. */
export const QUALITY_COLUMNS = Object.keys(QualityRow.shape) as (keyof QualityRow)[];

/** One part file of the quality table. */
export const QualityPart = z.object({
  /** The file's name inside `RUN/quality/`. */
  file: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}\.(csv|parquet)$/),
  format: z.enum(["csv", "parquet"]),
  rows: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** The sources whose verdicts it holds. */
  sources: z.array(QualitySource),
  /** What wrote it: `judge`, `review import`, `adjudication`, or a user's own tool. */
  written_by: z.string().min(1),
  created_iso: z.string().datetime(),
  /**
   * What a reader needs to weigh the part: for a judge, its model, endpoint, rate, calls, tokens and the items it could
   * not score; for a review, its packet, sample, raters and minutes.
   */
  details: z.record(z.string(), z.json()),
}).strict();
export type QualityPart = z.infer<typeof QualityPart>;

/** `RUN/quality/quality.json`. */
export const QualityManifest = z.object({
  schema_version: z.literal(1),
  schema_minor: z.number().int().min(QUALITY_SINCE_MINOR),
  kind: z.literal("quality"),
  run_id: z.string().min(1),
  /** The sha256 of the run's run.json when the first part was written: the verdicts are of that run. */
  run_json_sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /**
   * A copy of every rubric a part scores by, so the table stands alone (each is checked against its sha256 on read,
   * and against run.json `workload.rubric_hashes` when the run froze its rubrics).
   */
  rubrics: z.array(Rubric),
  parts: z.array(QualityPart),
}).strict();
export type QualityManifest = z.infer<typeof QualityManifest>;
