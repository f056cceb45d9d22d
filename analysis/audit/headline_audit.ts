/**
 * Audit of a peer tool's published headline (issue 14): (1) recomputed from the imported per-request rows under the
 * TOOL's stated rules (its denominator, clock start, percentile method and window: analysis/audit/tool_rules.ts),
 * (2) moved to this toolkit's rules (offered denominator, schedule-based latency where the source has a schedule,
 * nearest-rank percentiles, accepted goodput under the SLO policy given), (3) the rule choices that reproduce it.
 * A summary-only source has no rows: the headline is checked against the tool's own other numbers only.
 * Rate and count headlines: headline_rate.ts; latency percentiles and means: headline_latency.ts.
 *
 * @module
 */
import type {
  HeadlineAudit,
  HeadlineChoice,
  HeadlineComparison,
  HeadlineRow,
  HeadlineSource,
  Tolerance,
} from "./headline_types.ts";
import { type HeadlineRecipe, headlineRecipe } from "./tool_rules.ts";
import { consistencyChecks, rateAudit } from "./headline_rate.ts";
import { latencyAudit } from "./headline_latency.ts";
import { findHeadline, missingHeadline } from "./headline_lookup.ts";
import { InputError } from "../../schema/errors.ts";
import { agreeAtCoarser, numberText, precisionOf, withinPrecision } from "../../lib/published_precision.ts";
import { sig } from "../../lib/number_format.ts";

export type {
  HeadlineAudit,
  HeadlineChoice,
  HeadlineComparison,
  HeadlineRow,
  HeadlineSource,
  HeadlineVerdict,
  Pick,
  Tolerance,
} from "./headline_types.ts";

/** The claim {@linkcode auditHeadline} checks: the tool's key, its stage, and the published value as text. */
export interface HeadlineClaimInput {
  headline: string;
  stage: string | null;
  /** The published value; absent = the value the import holds under the key. */
  value?: number;
  /** The value as the claim file writes it ("3833.39"): its precision is the publisher's. @default {String(value)} */
  value_text?: string;
  tolerance?: Tolerance;
  /** The claim file, for errors. @default {"the claim"} */
  file?: string;
}

/** The relative error a recomputation in doubles is trusted to: 12 significant digits. */
const ARITHMETIC = 1e-12;

/** Half a unit of `x`'s last digit relative to x (0 when x is absent or 0): how far a rounded input moves a ratio. */
const relativeHalfUnit = (x: number | null | undefined) => x ? precisionOf(numberText(x)).half_unit / Math.abs(x) : 0;

/** The rows' own window, first send → last response, ms (null without absolute times). */
function rowsWindowMs(rows: HeadlineRow[]): number | null {
  const starts = rows.map((r) => r.sent_ms).filter((x): x is number => x !== null);
  const ends = rows.map((r) => r.completed_ms).filter((x): x is number => x !== null);
  return starts.length && ends.length ? Math.max(...ends) - Math.min(...starts) : null;
}

/**
 * How far the recomputation may be off, in the headline's unit, and why: a latency from two times on a grid of g ms is
 * known to ±2g; a rate inherits that over its window, plus the rounding of the tool's printed duration or of the
 * other rate its window is implied by; a count is exact.
 */
function resolutionOf(
  recipe: HeadlineRecipe | null,
  src: HeadlineSource,
  published: number,
  stageDuration: number | null,
  rows: HeadlineRow[],
  stage: string | null,
): { value: number; why: string[] } {
  if (recipe === null || src.rows === null || recipe.kind === "count") return { value: 0, why: [] };
  const grid = src.time_grid_ms ?? 0;
  const why: string[] = [];
  if (grid > 0) why.push(`the import's times resolve ${sig(grid, 3)} ms`);
  // Sums in another order, unit conversions: a float recomputation is trusted to 12 significant digits, not 17.
  const arithmetic = ARITHMETIC * Math.abs(published);
  why.push(`floating-point arithmetic: ${-Math.log10(ARITHMETIC)} significant digits`);
  if (recipe.kind === "latency_percentile" || recipe.kind === "latency_mean") {
    return { value: 2 * grid / recipe.rules.to_ms + arithmetic, why };
  }
  const w = src.absolute_times ? rowsWindowMs(rows) : null;
  const other = recipe.rules.window_key
    ? findHeadline(src.headlines, recipe.rules.window_key, stage)?.value ?? null
    : null;
  const rel = (w ? 2 * grid / w : 0) + relativeHalfUnit(stageDuration) + relativeHalfUnit(other);
  if (relativeHalfUnit(stageDuration) > 1e-12) why.push(`the tool's duration is printed as ${stageDuration} s`);
  if (relativeHalfUnit(other) > 1e-12) why.push(`${recipe.rules.window_key} is printed as ${other}`);
  return { value: rel * Math.abs(published) + arithmetic, why };
}

/**
 * Audits a tool's headline `key` (stage `stage`) against what the import holds. `claimed` defaults to the tool's
 * own value in the files. A recomputed value reproduces it when it lies within half a unit of the published text's
 * last digit, widened by the recomputation's own resolution ({@linkcode HeadlineComparison}); a stated tolerance
 * replaces that. `goodputUnder` (when an SLO policy is given) gives accepted goodput, req/s, of the stage under that
 * policy with the offered denominator (analysis/goodput), for a rate headline's move to ours. An InputError when
 * the import does not hold the headline and the claim gives no value, naming the headlines it holds.
 */
export function auditHeadline(
  src: HeadlineSource,
  claim: HeadlineClaimInput,
  goodputUnder?: { value: number | null; policy: string },
): HeadlineAudit {
  const notes: string[] = [];
  const where = claim.file ?? "the claim";
  const stages = src.stages.map((s) => s.name);
  let stage = claim.stage ?? (stages.length === 1 ? stages[0]! : null);
  const h = findHeadline(src.headlines, claim.headline, stage);
  if (h && stage === null && h.stage !== null) stage = h.stage;
  const key = h?.key ?? claim.headline;
  const recipe = headlineRecipe(src.tool, key, src.tool_version);
  // Nothing to audit: no value to compare and none the import holds, or a key neither held nor recomputable.
  if (!h && (claim.value === undefined || !recipe)) throw missingHeadline(src.headlines, claim.headline, stage, where);
  if (h && h.key !== claim.headline) notes.push(`the key "${claim.headline}" is the import's "${h.key}"`);
  if (!h) notes.push(`the import holds no headline "${claim.headline}": the claim's value is audited alone`);
  if (recipe?.rules.caveat) notes.push(recipe.rules.caveat);
  const claimed = claim.value ?? h?.value ?? null;
  if (claimed === null) {
    throw new InputError(
      `${where}: headline "${key}" is ${h?.text === undefined ? "empty" : `text ("${h.text}")`}, not a number: ` +
        "nothing to recompute",
    );
  }
  const fromClaim = claim.value !== undefined;
  const published = {
    ...precisionOf(claim.value_text ?? (fromClaim ? numberText(claimed) : h?.text ?? numberText(claimed))),
    from: fromClaim ? "claim" as const : "import" as const,
  };
  if (fromClaim && h?.value != null && !agreeAtCoarser(published.text, numberText(h.value))) {
    notes.push(`the claim's value ${published.text} differs from the imported file's ${h.value}`);
  }
  const st = src.stages.find((s) => s.name === stage) ?? null;
  const rows = src.rows?.filter((r) => stage === null || r.stage === stage) ?? [];
  const resolution = resolutionOf(recipe, src, claimed, st?.tool_duration_s ?? null, rows, stage);
  const t = claim.tolerance;
  const comparison: HeadlineComparison = t
    ? {
      rule: "stated_tolerance",
      published,
      resolution: resolution.value,
      allowed: Math.max(t.absolute ?? 0, (t.relative ?? 0) * Math.abs(claimed)),
      text: "",
    }
    : {
      rule: "published_precision",
      published,
      resolution: resolution.value,
      allowed: published.half_unit + resolution.value,
      text: "",
    };
  comparison.text = t
    ? `within the tolerance the claim states: ±${sig(comparison.allowed, 3)} = max(absolute ${t.absolute ?? 0}, ` +
      `relative ${t.relative ?? 0} × |published|)`
    : `at the published precision: ${published.text} (${published.significant} significant digits, read from the ` +
      `${published.from === "claim" ? "claim file" : "import"}) stands for ±${sig(published.half_unit, 3)}` +
      (resolution.value > 0
        ? `, widened by ±${sig(resolution.value, 3)}: how far the recomputation itself may be off (${
          resolution.why.join("; ")
        })`
        : "");
  const slack = 1e-12 * Math.max(1, Math.abs(claimed));
  const within = (v: number | null) =>
    v !== null &&
    (t ? Math.abs(v - claimed) <= comparison.allowed + slack : withinPrecision(v, published, resolution.value));
  const pick = (choice: string, value: number | null, n: number | null): HeadlineChoice => ({
    choice,
    value,
    n,
    match: within(value),
  });
  const base = {
    headline: claim.headline,
    key,
    stage,
    claimed,
    unit: h?.unit ?? recipe?.rules.unit ?? "",
    definition: h?.definition ?? null,
    comparison,
    tool_rules: recipe?.rules.text ?? null,
  };
  const notRecomputed = (why: string, consistency: HeadlineChoice[]): HeadlineAudit => ({
    ...base,
    verdict: "not_recomputed",
    verdict_reason: why,
    recomputed: null,
    why_not: why,
    consistency,
    ours: [],
    searched: 0,
    choices: [],
    reproducing: [],
    notes,
  });
  const consistency = recipe ? consistencyChecks(src, recipe, stage, st, pick) : [];
  const against = consistency.length
    ? "; it is checked against the tool's own other numbers only"
    : "; the tool writes no other number it can be checked against";
  if (!recipe) {
    return notRecomputed(
      `no rule of ${src.tool} is known for the key "${key}" (analysis/audit/tool_rules.ts): it is read, not ` +
        "recomputed (request rate, output-token rate, counts, TTFT/e2e percentiles and means are)",
      consistency,
    );
  }
  if (src.rows === null) {
    return notRecomputed(
      `a summary-only source has no per-request data: the headline cannot be recomputed under any rule${against}`,
      consistency,
    );
  }
  const okRows = rows.filter((r) => r.ok);
  const counted = st?.totals.ok ?? null;
  const sample = counted !== null && counted > okRows.length
    ? `the file keeps ${okRows.length} successful record(s) of the ${counted} the tool counted (a sample): the ` +
      `headline cannot be recomputed from the records kept${against}`
    : null;
  const hasSchedule = src.scheduled_from === "schedule";
  if (!hasSchedule) notes.push("the source keeps no schedule: latency can only run from the send, as the tool's");
  const { recomputed, ours, choices } = recipe.kind !== "latency_percentile" && recipe.kind !== "latency_mean"
    ? rateAudit(recipe, src, stage, rows, okRows, st?.tool_duration_s ?? null, pick, goodputUnder)
    : latencyAudit(recipe, rows, okRows, hasSchedule, pick);
  const why = sample ??
    (recomputed.value === null ? `under the tool's rules there is no value: ${recomputed.choice}` : null);
  return {
    ...base,
    verdict: why ? "not_recomputed" : recomputed.match ? "reproduced" : "not_reproduced",
    verdict_reason: why,
    recomputed,
    why_not: null,
    consistency,
    ours,
    searched: sample ? 0 : choices.length,
    choices: sample ? [] : choices,
    reproducing: sample ? [] : choices.filter((c) => c.match),
    notes,
  };
}
