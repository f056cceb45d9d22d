/**
 * The files of a blinded review, as zod schemas: the sealed key written beside a packet (`PACKET.key.json`: which
 * run and request each opaque item is, the sample's design, who rates what), the ratings a rater's page exports, and
 * the adjudication file that settles the items raters disagreed on.
 *
 * @module
 */
import { z } from "zod";
import { Rubric } from "../../../schema/rubric.ts";

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/, "a hex sha256");

/** A rater's or adjudicator's name: it becomes the quality source `human:<name>` (no spaces, commas or colons). */
export const RaterName = z.string().regex(
  /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/,
  "a name of letters, digits, _ . - (at most 64, starting with a letter or digit)",
);

/** An item's opaque id in a packet: says nothing of its run, request, route or place in the sample. */
export const ItemId = z.string().regex(/^i-[0-9a-f]{8}$/, "an item id like i-0a1b2c3d");

/** What a sample is stratified by. */
export const STRATUM_KEYS = ["class", "route", "stage", "run"] as const;
export type StratumKey = typeof STRATUM_KEYS[number];

/** One stratum of the sample: its population (eligible answers) and how many were drawn. */
export const KeyStratum = z.object({
  name: z.string().min(1),
  values: z.record(z.string(), z.string()),
  population: z.number().int().nonnegative(),
  sampled: z.number().int().nonnegative(),
  /** total · N_h / N when the total was allocated in proportion; null for a size per stratum. */
  proportional: z.number().nonnegative().nullable(),
}).strict();

/** How the sample was drawn. */
export const SampleDesign = z.object({
  seed: z.number().int(),
  strata_keys: z.array(z.enum(STRATUM_KEYS)).min(1),
  /** The classes sampled (those with a rubric, narrowed by `--classes`). */
  classes: z.array(z.string()).min(1),
  sizing: z.object({
    mode: z.enum(["per_stratum", "total", "half_width"]),
    per_stratum: z.number().int().positive().nullable(),
    total: z.number().int().nonnegative().nullable(),
    half_width: z.number().positive().nullable(),
    level: z.number().positive().nullable(),
    min_per_stratum: z.number().int().nonnegative().nullable(),
    /** For a half-width: n₀/(1 + (n₀ − 1)/N) before rounding up. */
    n_exact: z.number().nonnegative().nullable(),
  }).strict(),
  population: z.number().int().nonnegative(),
  sampled: z.number().int().nonnegative(),
  strata: z.array(KeyStratum),
  /** The share of the sample asked to be rated by every rater. */
  double_share: z.number().min(0).max(1),
  /** The items every rater rates, for agreement. */
  double_rated: z.array(ItemId),
  /** The method in words. */
  method: z.string().min(1),
}).strict();
export type SampleDesign = z.infer<typeof SampleDesign>;

/** One run the packet draws from. */
export const KeyRun = z.object({
  /** The run folder, relative to the key file's folder. */
  dir: z.string().min(1),
  run_id: z.string().min(1),
  run_json_sha256: Sha256,
  /** The workload the prompts and rubrics came from. */
  workload_sha256: Sha256,
  outputs_sha256: Sha256,
  /** Requests answered (`ok`), of which with a saved output, of which with a rubric in the sampled classes. */
  answered: z.number().int().nonnegative(),
  with_output: z.number().int().nonnegative(),
  eligible: z.number().int().nonnegative(),
}).strict();
export type KeyRun = z.infer<typeof KeyRun>;

/** What an opaque item is. */
export const KeyItem = z.object({
  item: ItemId,
  /** Index into `runs`. */
  run: z.number().int().nonnegative(),
  request_id: z.string().min(1),
  case_id: z.string().min(1),
  class: z.string().min(1),
  route: z.string(),
  stage: z.string(),
  stratum: z.string().min(1),
  rubric_id: z.string().min(1),
  rubric_sha256: Sha256,
  /** Who rates it. */
  raters: z.array(RaterName).min(1),
}).strict();
export type KeyItem = z.infer<typeof KeyItem>;

/** `PACKET.key.json`: kept from the raters; the only link from the packet back to runs and requests. */
export const ReviewKey = z.object({
  kind: z.literal("review-key"),
  schema_version: z.literal(1),
  packet_id: z.string().regex(/^rv-[0-9a-f]{12}$/),
  /** sha256 of the packet's embedded data (canonical JSON); the page exports it with every ratings file. */
  packet_sha256: Sha256,
  /** The page's file name (beside the key) and the sha256 of its bytes. */
  packet_file: z.string().min(1),
  html_sha256: Sha256,
  created_iso: z.string().datetime(),
  design: SampleDesign,
  runs: z.array(KeyRun).min(1),
  rubrics: z.array(Rubric).min(1),
  raters: z.array(RaterName).min(1),
  items: z.array(KeyItem).min(1),
  /** Each rater's items in the order their page shows them. */
  assignments: z.record(z.string(), z.array(ItemId)),
}).strict();
export type ReviewKey = z.infer<typeof ReviewKey>;

/** One item's rating as the page exports it. */
export const ItemRating = z.object({
  item: z.string().min(1),
  /** Criterion id → score. */
  scores: z.record(z.string(), z.number()),
  notes: z.string(),
  /** Active time on the item measured by the page (visible, focused, not idle). */
  time_spent_ms: z.number().nonnegative(),
  /** When the item was last scored. */
  rated_iso: z.string().datetime(),
}).strict();
export type ItemRating = z.infer<typeof ItemRating>;

/** The file "Export ratings" downloads. */
export const RatingsFile = z.object({
  packet_id: z.string(),
  packet_sha256: z.string(),
  rater: z.string(),
  ratings: z.array(ItemRating),
}).strict();
export type RatingsFile = z.infer<typeof RatingsFile>;

/** One settled disagreement: empty in the template (adjudicator "", every score null), filled by the adjudicator. */
export const AdjudicationEntry = z.object({
  item: z.string().min(1),
  adjudicator: z.string(),
  scores: z.record(z.string(), z.number().nullable()),
  note: z.string(),
}).strict();
export type AdjudicationEntry = z.infer<typeof AdjudicationEntry>;

/** `PACKET.adjudication.json`: one entry per disagreement. */
export const AdjudicationFile = z.object({
  kind: z.literal("review-adjudication"),
  packet_id: z.string(),
  packet_sha256: z.string(),
  entries: z.array(AdjudicationEntry),
}).strict();
export type AdjudicationFile = z.infer<typeof AdjudicationFile>;
