/**
 * The shapes of a headline audit ({@linkcode auditHeadline} in headline_audit.ts): the rows and the source it reads,
 * one value under a set of rule choices, and its result. Apart from the audit's code so that its rate and latency
 * parts (headline_rate.ts, headline_latency.ts) share them without importing the audit that calls them.
 *
 * @module
 */
import type { ImportedHeadline, ImportedLack, ImportedTool } from "../../schema/imported_manifest.ts";

/** One request as the audit of a headline needs it (times in ms on the run's clock; null = not recorded). */
export interface HeadlineRow {
  stage: string;
  /** The tool counted it as successful (contract outcome "ok"). */
  ok: boolean;
  scheduled_ms: number | null;
  sent_ms: number | null;
  first_token_ms: number | null;
  completed_ms: number | null;
  output_tokens: number | null;
}

/** What the import holds about the tool's run: its headlines, stages, rows (null: summary only) and lacks. */
export interface HeadlineSource {
  tool: ImportedTool;
  tool_version: string | null;
  headlines: ImportedHeadline[];
  stages: { name: string; tool_duration_s: number | null; totals: { ok: number | null; error: number | null } }[];
  rows: HeadlineRow[] | null;
  /** Where the rows' scheduled_ms comes from: the tool's schedule, its send time, or nowhere. */
  scheduled_from: "schedule" | "send" | "none";
  /** The rows' times are on one clock; false for a source of durations only (every request placed at 0). */
  absolute_times: boolean;
  lacks: ImportedLack[];
}

/** A value under one set of rule choices. */
export interface HeadlineChoice {
  choice: string;
  value: number | null;
  n: number | null;
  match: boolean;
}

/** The result of {@linkcode auditHeadline}. */
export interface HeadlineAudit {
  headline: string;
  stage: string | null;
  claimed: number;
  unit: string;
  definition: string | null;
  tolerance: { absolute: number; relative: number; allowed: number; stated: boolean };
  /** The tool's rules in words, or null when the key is not in the table. */
  tool_rules: string | null;
  /** (1) Recomputed under the tool's rules from the rows; null with `why_not`. */
  recomputed: HeadlineChoice | null;
  why_not: string | null;
  /** The headline against the tool's own other numbers (totals, durations). */
  consistency: HeadlineChoice[];
  /** (2) Under this toolkit's rules. */
  ours: HeadlineChoice[];
  /** (3) Every choice searched whose value reproduces the headline. */
  searched: number;
  reproducing: HeadlineChoice[];
  notes: string[];
}

/** Tolerance as stated, else 1 % of the claimed value (as a metric claim's). */
export type Tolerance = { absolute?: number; relative?: number } | undefined;

/** A choice's value and whether it matches the claim (within the tolerance). */
export type Pick = (choice: string, value: number | null, n: number | null) => HeadlineChoice;
