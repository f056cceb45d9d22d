/**
 * The shapes of a headline audit ({@linkcode auditHeadline} in headline_audit.ts): the rows and the source it reads,
 * one value under a set of rule choices, and its result. Apart from the audit's code so that its rate and latency
 * parts (headline_rate.ts, headline_latency.ts) share them without importing the audit that calls them.
 *
 * @module
 */
import type { ImportedHeadline, ImportedLack, ImportedTool } from "../../schema/imported_manifest.ts";
import type { Precision } from "../../lib/published_precision.ts";

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
  /**
   * The grid the rows' times lie on, ms (the float that held them: epoch nanoseconds as a double resolve 2⁻¹² ms); a
   * latency from two of them is known to ±2 × this. 0 or absent: no grid coarser than the floats' own.
   */
  time_grid_ms?: number;
}

/** A value under one set of rule choices. */
export interface HeadlineChoice {
  choice: string;
  value: number | null;
  n: number | null;
  match: boolean;
}

/**
 * How a recomputed value is compared with the published one: at the precision the publisher printed (within half a
 * unit of its last digit, widened by the recomputation's own resolution), or within a tolerance the claim states.
 */
export interface HeadlineComparison {
  rule: "published_precision" | "stated_tolerance";
  /** The published value as text, its precision, and where the text was read. */
  published: Precision & { from: "claim" | "import" };
  /** How far the recomputation itself may be off (the rows' time grid, the tool's own rounded inputs), in the unit. */
  resolution: number;
  /** The widest |recomputed − published| that still reproduces (half unit + resolution, or the stated tolerance). */
  allowed: number;
  /** The rule in words. */
  text: string;
}

/** What the audit concludes: the tool's rule gives the published value, does not, or could not be applied. */
export type HeadlineVerdict = "reproduced" | "not_reproduced" | "not_recomputed";

/** The result of {@linkcode auditHeadline}. */
export interface HeadlineAudit {
  headline: string;
  stage: string | null;
  /** The stored key the headline was read under (the claim's key, or its documented short form resolved). */
  key: string;
  claimed: number;
  unit: string;
  definition: string | null;
  comparison: HeadlineComparison;
  verdict: HeadlineVerdict;
  /** Why the verdict is not_recomputed (the same as `why_not`, or the records kept being a sample). */
  verdict_reason: string | null;
  /** The tool's rules in words, or null when the key is not in the table. */
  tool_rules: string | null;
  /** (1) Recomputed under the tool's rules from the rows; null with `why_not`. */
  recomputed: HeadlineChoice | null;
  why_not: string | null;
  /** The headline against the tool's own other numbers (totals, durations). */
  consistency: HeadlineChoice[];
  /** (2) Under this toolkit's rules. */
  ours: HeadlineChoice[];
  /** (3) Every choice searched, and those whose value reproduces the headline. */
  searched: number;
  choices: HeadlineChoice[];
  reproducing: HeadlineChoice[];
  notes: string[];
}

/** A tolerance the claim states; absent, the published value's own precision decides. */
export type Tolerance = { absolute?: number; relative?: number } | undefined;

/** A choice's value and whether it reproduces the claim (at the published precision, or the stated tolerance). */
export type Pick = (choice: string, value: number | null, n: number | null) => HeadlineChoice;
