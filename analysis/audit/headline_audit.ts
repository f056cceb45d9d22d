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
import type { HeadlineAudit, HeadlineChoice, HeadlineSource, Tolerance } from "./headline_types.ts";
import { headlineRecipe } from "./tool_rules.ts";
import { consistencyChecks, rateAudit } from "./headline_rate.ts";
import { latencyAudit } from "./headline_latency.ts";

export type { HeadlineAudit, HeadlineChoice, HeadlineRow, HeadlineSource, Pick, Tolerance } from "./headline_types.ts";

/**
 * Audits a tool's headline `key` (stage `stage`) against what the import holds. `claimed` defaults to the tool's
 * own value in the files. `goodputUnder` (when an SLO policy is given) gives accepted goodput, req/s, of the stage
 * under that policy with the offered denominator (analysis/goodput), for a rate headline's move to ours.
 */
export function auditHeadline(
  src: HeadlineSource,
  claim: { headline: string; stage: string | null; value?: number; tolerance?: Tolerance },
  goodputUnder?: { value: number | null; policy: string },
): HeadlineAudit {
  const notes: string[] = [];
  const stages = src.stages.map((s) => s.name);
  const stage = claim.stage ?? (stages.length === 1 ? stages[0]! : null);
  const h = src.headlines.find((x) => x.key === claim.headline && (x.stage === stage || x.stage === null)) ?? null;
  if (!h) notes.push(`the import holds no headline "${claim.headline}"${stage ? ` for stage ${stage}` : ""}`);
  const claimed = claim.value ?? h?.value ?? NaN;
  if (claim.value !== undefined && h?.value != null && Math.abs(claim.value - h.value) > 1e-9 * Math.abs(h.value)) {
    notes.push(`the claim's value ${claim.value} differs from the imported file's ${h.value}`);
  }
  const t = claim.tolerance;
  const absolute = t?.absolute ?? 0;
  const relative = t?.relative ?? (t ? 0 : 0.01);
  const allowed = Math.max(absolute, relative * Math.abs(claimed));
  const within = (v: number | null) =>
    v !== null && Number.isFinite(claimed) && Math.abs(v - claimed) <= allowed + 1e-9 * Math.max(1, Math.abs(claimed));
  const pick = (choice: string, value: number | null, n: number | null): HeadlineChoice => ({
    choice,
    value,
    n,
    match: within(value),
  });
  const recipe = headlineRecipe(src.tool, claim.headline);
  const st = src.stages.find((s) => s.name === stage) ?? null;
  const base = {
    headline: claim.headline,
    stage,
    claimed,
    unit: h?.unit ?? recipe?.rules.unit ?? "",
    definition: h?.definition ?? null,
    tolerance: { absolute, relative, allowed, stated: !!t },
    tool_rules: recipe?.rules.text ?? null,
  };
  const consistency = recipe ? consistencyChecks(src, recipe, stage, st, pick) : [];
  if (!recipe) {
    return {
      ...base,
      recomputed: null,
      why_not: `no rule of ${src.tool} is known for the key "${claim.headline}" (analysis/audit/tool_rules.ts): ` +
        "it is not recomputed (request rate, output-token rate, counts, TTFT/e2e percentiles and means are)",
      consistency,
      ours: [],
      searched: 0,
      reproducing: [],
      notes,
    };
  }
  if (src.rows === null) {
    return {
      ...base,
      recomputed: null,
      why_not: "a summary-only source has no per-request data: the headline cannot be recomputed under any rule; " +
        "it is compared with the tool's own other numbers only",
      consistency,
      ours: [],
      searched: 0,
      reproducing: [],
      notes,
    };
  }
  const rows = src.rows.filter((r) => stage === null || r.stage === stage);
  const okRows = rows.filter((r) => r.ok);
  const counted = st?.totals.ok ?? null;
  if (counted !== null && counted > okRows.length) {
    notes.push(
      `the file keeps ${okRows.length} successful record(s) of the ${counted} the tool counted: the tool's ` +
        "headline cannot be reproduced from the records kept (a sample); the tool's own totals are checked instead",
    );
  }
  const hasSchedule = src.scheduled_from === "schedule";
  if (!hasSchedule) notes.push("the source keeps no schedule: latency can only run from the send, as the tool's");
  const { recomputed, ours, choices } = recipe.kind !== "latency_percentile" && recipe.kind !== "latency_mean"
    ? rateAudit(recipe, src, stage, rows, okRows, st?.tool_duration_s ?? null, pick, goodputUnder)
    : latencyAudit(recipe, rows, okRows, hasSchedule, pick);
  return {
    ...base,
    recomputed,
    why_not: null,
    consistency,
    ours,
    searched: choices.length,
    reproducing: choices.filter((c) => c.match),
    notes,
  };
}
