/**
 * "At the production limit": the knee level whose accepted goodput a ranked
 * verdict compares, and the requests the knee counted in it.
 *
 * The knee module measures accepted goodput per load level (accepted tasks of
 * the level's stages / their seconds); the limit (knee × (1 − headroom)) is a
 * rate, usually between levels. The goodput at the limit is therefore the
 * accepted goodput MEASURED at the highest level whose offered rate is at or
 * below the limit — never extrapolated to the limit's rate.
 *
 * @module
 */
import pl from "nodejs-polars";
import { InputError } from "../../schema/errors.ts";
import type { SloPolicy } from "../../schema/slo.ts";
import { classify } from "../goodput/classify.ts";
import { runWindow } from "../goodput/policy.ts";
import { knee, type KneeResult } from "../knee/knee.ts";
import { withoutBatchRoutes } from "../knee/levels.ts";
import { limitFromKnee, type ProductionLimit, rateText } from "../knee/limit.ts";
import type { Level } from "../knee/repeats.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import { isRunnerRun } from "../run/imported_run.ts";
import { isProduction } from "../run/production_run.ts";

/** The level a route's goodput at the limit is read at, and why that one. */
export interface LevelAtLimit {
  /**
   * `limit`: the highest level at or below knee × (1 − headroom); `knee`: no headroom was given, the knee's level
   * (no margin kept); `highest level`: no knee within the tested range, the highest level (a lower bound);
   * null: no level (no knee report, no capacity, or the limit below every level).
   */
  basis: "limit" | "knee" | "highest level" | null;
  /** The rate the level is at or below (the limit or the knee), req/s; null for the other bases. */
  rate_rps: number | null;
  level: Level | null;
  /** Why this level, or why none, in words; null when the limit's level needs no comment. */
  note: string | null;
}

/**
 * The knee of one run and its limit, as `compareRouteCosts` computes them (the highest offered rate tested passed
 * on); for a run with no load level (an imported or recorded run the knee refuses), null and the knee's reason.
 */
export function routeKnee(
  run: LoadedRun,
  policy: SloPolicy,
  headroom: number | undefined,
): { knee: KneeResult | null; limit: ProductionLimit | null; why: string | null } {
  try {
    const k = knee([run], policy);
    const tested = Math.max(...k.levels.map((l) => l.pooled.offered_rps));
    return { knee: k, limit: limitFromKnee(k, headroom, { highestTestedRps: tested }), why: null };
  } catch (e) {
    if (!(e instanceof InputError) || isRunnerRun(run.manifest)) throw e;
    return { knee: null, limit: null, why: e.message };
  }
}

/**
 * The level at or below the production limit ({@linkcode LevelAtLimit}); `why` is the reason a run has no knee report.
 *
 * @example A knee at 9 req/s, 30 % headroom: the limit 6.3 picks the 5 req/s level
 * ```ts ignore
 * const at = levelAtLimit(report, limitFromKnee(report, 0.3), null);
 * assert.equal(at.level?.planned_rps, 5);
 * ```
 */
export function levelAtLimit(k: KneeResult | null, limit: ProductionLimit | null, why: string | null): LevelAtLimit {
  if (!k || !limit) return { basis: null, rate_rps: null, level: null, note: `no knee report: ${why ?? "none given"}` };
  if (k.no_capacity) return { basis: null, rate_rps: null, level: null, note: k.no_capacity };
  const levels = [...k.levels].sort((a, b) => a.pooled.offered_rps - b.pooled.offered_rps);
  if (!levels.length) return { basis: null, rate_rps: null, level: null, note: "no load level" };
  if (!k.knee) {
    return {
      basis: "highest level",
      rate_rps: null,
      level: levels.at(-1)!,
      note: "no knee within the tested range: measured at the highest level tested, a lower bound of the goodput " +
        "the route sustains",
    };
  }
  const basis = limit.limit_rps === null ? "knee" : "limit";
  const rate = limit.limit_rps ?? k.knee.offered_rps;
  const at = levels.filter((l) => l.pooled.offered_rps <= rate * (1 + 1e-9)).at(-1) ?? null;
  if (!at) {
    return {
      basis: null,
      rate_rps: rate,
      level: null,
      note: `the ${basis} ${rateText(rate)} is below the lowest level tested (${
        rateText(levels[0]!.pooled.offered_rps)
      }): no level measured at or below it`,
    };
  }
  return {
    basis,
    rate_rps: rate,
    level: at,
    note: basis === "knee"
      ? "no headroom given: at the knee's level itself, no margin kept below it (--headroom H sets the limit)"
      : null,
  };
}

/**
 * The accepted requests the knee counted in `level` for `run`: its classification of the steady and burst stages (every stage
 * of a production recording), batch routes left out (`prepareRun`), in the level's stages of this run.
 */
export function levelRows(run: LoadedRun, policy: SloPolicy, level: Level): { request_id: string[] } {
  const recorded = isProduction(run.manifest);
  const window = runWindow(run, { exclude_stage_kinds: recorded ? [] : ["warmup", "drain"] });
  const rows = withoutBatchRoutes(run, classify(run, policy, window)).kept;
  const stages = level.pooled.parts.filter((p) => p.run_id === run.manifest.run_id).map((p) => p.stage);
  const kept = rows.filter(pl.col("stage").isIn(stages).and(pl.col("accepted")));
  return { request_id: kept.getColumn("request_id").toArray() as string[] };
}
