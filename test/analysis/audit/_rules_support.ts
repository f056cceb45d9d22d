/**
 * For the tool-rule tests: a peer's files as read by its importer (importers/sources/), turned into what the headline
 * audit reads, and one headline recomputed under the rule entry for the version the files state — with the audit's own
 * rate and latency parts (headline_rate.ts, headline_latency.ts), so a test runs the same code as the audit.
 */
import type { SourceRun } from "../../../importers/source.ts";
import type { HeadlineChoice, HeadlineRow, HeadlineSource } from "../../../analysis/audit/headline_types.ts";
import { headlineRecipe } from "../../../analysis/audit/tool_rules.ts";
import { consistencyChecks, rateAudit } from "../../../analysis/audit/headline_rate.ts";
import { latencyAudit } from "../../../analysis/audit/headline_latency.ts";

/** The run's rows on its epoch clock (ms), its headlines and stages, as the audit reads an imported run. */
export function asHeadlineSource(run: SourceRun): HeadlineSource {
  const rows: HeadlineRow[] = run.requests.map((q) => ({
    stage: q.stage,
    ok: q.outcome === "ok",
    scheduled_ms: q.scheduled_epoch_ms ?? q.sent_epoch_ms,
    sent_ms: q.sent_epoch_ms,
    first_token_ms: q.first_token_epoch_ms,
    completed_ms: q.completed_epoch_ms,
    output_tokens: q.output_tokens,
  }));
  return {
    tool: run.tool as HeadlineSource["tool"],
    tool_version: run.tool_version,
    headlines: run.headlines.map((h) => ({
      key: h.key,
      stage: h.stage,
      value: h.value,
      unit: h.unit,
      definition: h.definition,
    })),
    stages: run.stages.map((s) => ({
      name: s.name,
      tool_duration_s: s.duration_s,
      totals: { ok: s.totals.ok, error: s.totals.error },
    })),
    rows: run.summary_only ? null : rows,
    scheduled_from: run.requests.some((q) => q.scheduled_epoch_ms !== null) ? "schedule" : "send",
    absolute_times: true,
    lacks: [],
  };
}

/** The published value of `key` in `stage`. */
export function published(src: HeadlineSource, key: string, stage: string): number {
  const h = src.headlines.find((x) => x.key === key && x.stage === stage);
  if (h?.value == null) throw new Error(`no headline ${key} in ${stage}`);
  return h.value;
}

/**
 * `key` (stage `stage`) recomputed from the rows under the rule entry for the file's version (or `version`): the
 * recipe, the value under the tool's rules, the tool's own consistency checks and every choice searched; a choice
 * matches within `relative` of the published value.
 */
export function recompute(src: HeadlineSource, key: string, stage: string, relative = 1e-6, version?: string | null) {
  const claimed = published(src, key, stage);
  const recipe = headlineRecipe(src.tool, key, version === undefined ? src.tool_version : version);
  if (!recipe) return { claimed, recipe, recomputed: null, consistency: [], choices: [] as HeadlineChoice[] };
  const pick = (choice: string, value: number | null, n: number | null): HeadlineChoice => ({
    choice,
    value,
    n,
    match: value !== null && Math.abs(value - claimed) <= relative * Math.abs(claimed),
  });
  const rows = (src.rows ?? []).filter((r) => r.stage === stage);
  const okRows = rows.filter((r) => r.ok);
  const st = src.stages.find((s) => s.name === stage) ?? null;
  const consistency = consistencyChecks(src, recipe, stage, st, pick);
  if (src.rows === null) return { claimed, recipe, recomputed: null, consistency, choices: [] as HeadlineChoice[] };
  const r = recipe.kind === "latency_percentile" || recipe.kind === "latency_mean"
    ? latencyAudit(recipe, rows, okRows, src.scheduled_from === "schedule", pick)
    : rateAudit(recipe, src, stage, rows, okRows, st?.tool_duration_s ?? null, pick, undefined);
  return { claimed, recipe, recomputed: r.recomputed, consistency, choices: r.choices };
}
