/**
 * claims.json: what `deno task import` writes for a summary-only source (a tool's aggregate file, no per-request
 * records) instead of a run. Each of the tool's headlines is kept under its own key, value, unit and definition;
 * one that maps onto an audit metric (a TTFT, TPOT or e2e percentile) also carries the audit claim
 * (schema/claim.ts) written beside it as its own file, for `deno task audit RUN --claim FILE`.
 *
 * @module
 */
import { z } from "zod";
import { Claim } from "./claim.ts";
import { ImportedHeadline, ImportedLack, ImportedSource, Importer } from "./imported_manifest.ts";

/** A stage as the tool describes it in its summary: its load setting, duration and own totals. */
export const ClaimsStage = z.object({
  name: z.string().min(1),
  rate_rps: z.number().nonnegative().nullable(),
  concurrency: z.number().nonnegative().nullable(),
  duration_s: z.number().nonnegative().nullable(),
  totals: z.object({
    ok: z.number().nullable(),
    error: z.number().nullable(),
    cancelled: z.number().nullable(),
    incomplete: z.number().nullable(),
  }).strict(),
}).strict();

/** One headline of the tool and, when it maps onto an audit metric, the claim written for it. */
export const ClaimedHeadline = ImportedHeadline.extend({
  /** The audit claim and its file (relative to claims.json), or null with `why_not`. */
  claim: z.object({ file: z.string().min(1), claim: Claim }).strict().nullable(),
  why_not: z.string().nullable(),
}).strict();
export type ClaimedHeadline = z.infer<typeof ClaimedHeadline>;

/** claims.json of a summary-only source. */
export const ImportedClaims = z.object({
  schema_version: z.literal(1),
  schema_minor: z.number().int().min(4),
  kind: z.literal("imported-claims"),
  source: ImportedSource.omit({ headlines: true }),
  stages: z.array(ClaimsStage),
  lacks: z.array(ImportedLack),
  /** How a headline became a claim, in words. */
  mapping: z.array(z.string().min(1)),
  headlines: z.array(ClaimedHeadline),
  importer: Importer,
}).strict();
export type ImportedClaims = z.infer<typeof ImportedClaims>;
