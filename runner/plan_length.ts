/**
 * Whether a plan's steps are long enough for the signals the knee will judge them on: for each load level (the
 * steady and burst stages of one planned rate), the n each percentile signal can expect at that rate, the n it needs
 * (lib/percentile_support.ts: the rule the knee's departure guard applies) and the step length that would give it.
 * A run prints one line for the whole plan on stderr before ms 0 (the percentiles the knee cannot test, at how many
 * levels, and the step length that would do) and keeps it in run.json `plan.warnings`; `deno task plan` prints that
 * line and one line per short level (the n expected and needed at each), and `--json` carries every figure.
 *
 * Definitions (docs/plans.md "Is the plan long enough?"):
 * - A level is every steady or burst stage with one planned rate (`offered_rps`, equal to 9 significant digits), as
 *   the knee groups them; the lowest level is the baseline every other level is judged against. A plan with fewer
 *   than two levels has no knee, and no check.
 * - Expected n of a signal at a level = ⌊planned rate × the level's seconds × the share of arrivals that count for
 *   it⌋: every arrival for `@all` e2e, the streamed classes' share for `@all` TTFT (when some class does not stream),
 *   the class's chance under the plan's mix for a class's signals (TTFT of a class that does not stream is not
 *   observable: no signal). It assumes every arrival completes: failed requests have no latency and lower it.
 * - The step length that would do for a p-percentile = max(⌈need / (rate × share)⌉, 5 s), divided among the level's
 *   stages (repeats), rounded up: for the `@all` signals and for every class's signals (the smallest share binds).
 *
 * @module
 */
import type { CaseMix, Stage } from "../schema/plan.ts";
import type { LoadedWorkload } from "../schema/workload_file.ts";
import { classShares } from "./plans/case_mix.ts";
import { DEFAULT_SUPPORT_CONFIDENCE } from "../lib/early_stopping.ts";
import { percent, sig } from "../lib/number_format.ts";
import { percentLabel } from "../lib/percentile_checks.ts";
import {
  BLOCK_MS,
  ceilCount,
  floorCount,
  KNEE_PERCENTILES,
  MIN_BLOCKS,
  percentileNeed,
  percentileNeedText,
  secondsForSamples,
} from "../lib/percentile_support.ts";

/** The arrivals that count for a signal scope: `all` (e2e), `all streamed` (TTFT over all classes), or a class. */
export interface ScopeN {
  scope: string;
  /** The share of the level's arrivals that count for it. */
  share: number;
  /** ⌊rate × seconds × share⌋. */
  expected_n: number;
}

/** One percentile at one level. */
export interface PercentileLength {
  p: number;
  /** The n each side needs (lib/percentile_support.ts `percentileNeed`). */
  need: number;
  /** Scopes whose expected n is below `need` (or whose level has too few one-second blocks). */
  short: string[];
  /** Seconds each stage of the level needs for the `@all` signals, and for every class's signals. */
  stage_s_all: number;
  stage_s_each_class: number;
}

/** One load level of the plan. */
export interface LevelLength {
  planned_rps: number;
  /** The level's stages (several when the plan repeats the rate). */
  stages: string[];
  /** Seconds of each of its stages, and their sum. */
  stage_seconds: number[];
  seconds: number;
  /** The lowest level: every other level is judged against it. */
  baseline: boolean;
  expected: ScopeN[];
  percentiles: PercentileLength[];
  /** Some percentile signal cannot be tested at this level. */
  too_short: boolean;
}

/** The check of a whole plan. */
export interface PlanLengthCheck {
  /** The rule, in words. */
  rule: string;
  confidence: number;
  levels: LevelLength[];
  /**
   * One line for the whole plan ({@linkcode summaryLine}: what the knee cannot test, at how many levels, the step
   * length that would do and the command that shows each level); empty when the plan is long enough (or has no knee).
   */
  warnings: string[];
  /** One line per level that is too short ({@linkcode warningLine}): the detail behind `warnings`. */
  level_warnings: string[];
}

/** Options of {@linkcode planLengthCheck}. */
export interface PlanLengthOptions {
  /** The plan file, named in the warning's pointer to `npx deno task plan`. @default {"FILE"} */
  planFile?: string;
}

/** What the plan's mix says about its arrivals. */
export interface MixShares {
  /** Class → the chance that an arrival is of it (runner/plans/case_mix.ts `classShares`). */
  classes: Record<string, number>;
  /** Whether a class's requests stream (class_defaults.json `stream`; true when not stated, as the runner sends). */
  streamed: (cls: string) => boolean;
}

const rateKey = (rps: number): number => Number(rps.toPrecision(9));
const LEVEL_KINDS: ReadonlySet<Stage["kind"]> = new Set(["steady", "burst"]);

export const PLAN_LENGTH_RULE = "a level (the steady and burst stages of one planned rate; the lowest is the " +
  "baseline) is long enough when every percentile signal the knee judges it on (p95 and p99 of e2e and TTFT, over " +
  "all classes and per class) can expect the n the knee needs to test it: expected n = ⌊planned rate × the level's " +
  "seconds × the share of arrivals that count⌋ (all arrivals; the streamed ones for TTFT; the class's chance under " +
  "the mix), assuming every arrival completes";

/**
 * Checks each load level of a plan's stages against the knee's percentile rule (see the module doc).
 *
 * @example Two steps of 20 s at 3 and 6 req/s, two equal classes: the baseline is too short for a p95 per class
 * ```ts
 * import assert from "node:assert/strict";
 * import { planLengthCheck } from "./plan_length.ts";
 * const st = (name: string, start: number, rps: number) =>
 *   ({ name, kind: "steady" as const, start_ms: start, end_ms: start + 20_000, offered_rps: rps });
 * const c = planLengthCheck([st("step-01", 0, 3), st("step-02", 20_000, 6)], {
 *   classes: { chat: 0.5, rag: 0.5 },
 *   streamed: () => true,
 * });
 * // 3 × 20 = 60 over all classes, 30 per class: p95 needs 90 → ⌈90 / 3⌉ = 30 s, ⌈90 / 1.5⌉ = 60 s
 * assert.deepEqual(c.levels[0]!.expected.map((e) => e.expected_n), [60, 30, 30]);
 * const p95 = c.levels[0]!.percentiles[0]!;
 * assert.deepEqual([p95.stage_s_all, p95.stage_s_each_class], [30, 60]);
 * assert.equal(c.warnings.length, 1); // one line for the plan; c.level_warnings has one per short level
 * ```
 */
export function planLengthCheck(
  stages: readonly Stage[],
  mix: MixShares,
  options: PlanLengthOptions = {},
): PlanLengthCheck {
  const groups = new Map<number, Stage[]>();
  for (const s of stages) {
    if (!LEVEL_KINDS.has(s.kind) || !(s.offered_rps > 0) || !(s.end_ms > s.start_ms)) continue;
    const key = rateKey(s.offered_rps);
    groups.set(key, [...(groups.get(key) ?? []), s]);
  }
  const rates = [...groups.keys()].sort((a, b) => a - b);
  const rule = `${PLAN_LENGTH_RULE}; ${percentileNeedText(KNEE_PERCENTILES)}`;
  const base = { rule, confidence: DEFAULT_SUPPORT_CONFIDENCE };
  if (rates.length < 2) return { ...base, levels: [], warnings: [], level_warnings: [] };
  const scopes = scopesOf(mix);
  const levels = rates.map((rate, i) => levelLength(rate, groups.get(rate)!, scopes, i === 0));
  const summary = summaryLine(levels, options.planFile ?? "FILE");
  return {
    ...base,
    levels,
    warnings: summary ? [summary] : [],
    level_warnings: levels.filter((l) => l.too_short).map(warningLine),
  };
}

/**
 * The check of a plan's stages over a loaded workload: the classes' chances under the plan's mix and whether each
 * class streams (class_defaults.json; true when not stated, as the runner sends).
 */
export function planLengthOf(
  stages: readonly Stage[],
  loaded: Pick<LoadedWorkload, "workload" | "classDefaults">,
  mix: CaseMix,
  planFile: string,
): PlanLengthCheck {
  return planLengthCheck(stages, {
    classes: classShares(loaded.workload, mix, planFile),
    streamed: (cls) => loaded.classDefaults.classes[cls]?.stream ?? true,
  }, { planFile });
}

/** The scopes of the percentile signals and their shares: `all`, `all streamed` when it differs, each class. */
function scopesOf(mix: MixShares): { scope: string; share: number; all: boolean }[] {
  const classes = Object.entries(mix.classes).filter(([, p]) => p > 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const streamed = classes.filter(([c]) => mix.streamed(c)).reduce((s, [, p]) => s + p, 0);
  const out = [{ scope: "all", share: 1, all: true }];
  // Some classes stream and some do not: TTFT over all classes counts only the streamed ones.
  if (streamed > 0 && classes.some(([c]) => !mix.streamed(c))) {
    out.push({ scope: "all streamed", share: streamed, all: true });
  }
  for (const [c, p] of classes) out.push({ scope: c, share: p, all: false });
  return out;
}

function levelLength(
  rate: number,
  stages: Stage[],
  scopes: { scope: string; share: number; all: boolean }[],
  baseline: boolean,
): LevelLength {
  const stageSeconds = stages.map((s) => (s.end_ms - s.start_ms) / 1000);
  const seconds = stageSeconds.reduce((a, b) => a + b, 0);
  const expected = scopes.map((s) => ({
    scope: s.scope,
    share: s.share,
    expected_n: floorCount(rate * seconds * s.share),
  }));
  // The block bootstrap needs MIN_BLOCKS one-second blocks on each side: a shorter level is not tested at all.
  const blocksOk = floorCount(seconds) >= (MIN_BLOCKS * BLOCK_MS) / 1000;
  const perStage = (levelSeconds: number) => ceilCount(levelSeconds / stages.length);
  const percentiles = KNEE_PERCENTILES.map((p) => {
    const need = percentileNeed(p);
    const short = expected.filter((e) => !blocksOk || e.expected_n < need).map((e) => e.scope);
    // The seconds the scopes need: the smallest share binds.
    const longest = (of: typeof scopes) => Math.max(...of.map((s) => secondsForSamples(need, rate * s.share)));
    return {
      p,
      need,
      short,
      stage_s_all: perStage(longest(scopes.filter((s) => s.all))),
      stage_s_each_class: perStage(longest(scopes)),
    };
  });
  return {
    planned_rps: rate,
    stages: stages.map((s) => s.name),
    stage_seconds: stageSeconds,
    seconds,
    baseline,
    expected,
    percentiles,
    too_short: percentiles.some((p) => p.short.length > 0),
  };
}

/** Why the n matters, in words: the end of every warning. */
const TEST_RULE = `The knee tests a percentile only with that n on each side and ≥ ${MIN_BLOCKS} one-second blocks ` +
  `(MLPerf LoadGen's early-stopping rule at ${percent(DEFAULT_SUPPORT_CONFIDENCE)} one-sided confidence); ` +
  `else its departure is "undecidable"`;

/** The scopes over all classes (the others are classes). */
const ALL_SCOPES: ReadonlySet<string> = new Set(["all", "all streamed"]);

/** The warning of a level that is too short: the stage(s), the expected n, the n each percentile needs, the length. */
export function warningLine(l: LevelLength): string {
  const s = (x: number) => (x === Infinity ? "∞" : `${sig(x, 6)} s`);
  const what = l.stages.length === 1
    ? `stage ${l.stages[0]} (${sig(l.planned_rps, 6)} req/s for ${s(l.stage_seconds[0]!)}`
    : `stages ${l.stages.join(", ")} (one level: ${sig(l.planned_rps, 6)} req/s for ${
      l.stage_seconds.map(s).join(" + ")
    }`;
  const role = l.baseline ? "; the baseline every level is judged against" : "";
  const all = l.expected.filter((e) => ALL_SCOPES.has(e.scope));
  const classes = l.expected.filter((e) => !ALL_SCOPES.has(e.scope));
  const n = all.map((e) => `${e.expected_n} ${e.scope === "all" ? "over all classes" : "streamed (TTFT)"}`).join(", ") +
    (classes.length > 1 ? ` (${classes.map((e) => `${e.scope} ${e.expected_n}`).join(", ")})` : "");
  const step = l.stages.length === 1 ? "a step" : "each stage";
  const needs = l.percentiles.map((p) => {
    const head = `${percentLabel(p.p)} needs n ≥ ${p.need}`;
    const allShort = p.short.some((scope) => ALL_SCOPES.has(scope));
    if (!p.short.length) return `${head}: met`;
    if (!allShort) {
      return `${head}: met over all classes; every class's signals need ${step} ≥ ${s(p.stage_s_each_class)}`;
    }
    const each = p.stage_s_each_class !== p.stage_s_all
      ? ` for the all-class signals, ${s(p.stage_s_each_class)} for every class's`
      : "";
    return `${head}: ${step} ≥ ${s(p.stage_s_all)}${each}`;
  });
  return `plan too short for the knee: ${what}${role}): expected n = ${n}; ${needs.join("; ")}. ${TEST_RULE}`;
}

/**
 * The plan's one warning line: per percentile the knee cannot test somewhere, at how many levels, and the step length
 * that would make every level testable (the longest any level needs; over all classes, then per class), then where the
 * detail is. Null when every level is long enough.
 *
 * E.g. `plan too short for the knee: p95 untestable at 7 of 7 levels (make steps ≥ 27 s over all classes, 135 s per
 * class), p99 at 7 of 7 (≥ 138 s, 689 s); each level: npx deno task plan --plan data/plans/demo-timeline.json`.
 */
export function summaryLine(levels: readonly LevelLength[], planFile: string): string | null {
  const parts: string[] = [];
  for (const [i, p] of KNEE_PERCENTILES.entries()) {
    const at = levels.map((l) => l.percentiles[i]!);
    const allShort = at.filter((x) => x.short.some((scope) => ALL_SCOPES.has(scope))).length;
    const anyShort = at.filter((x) => x.short.length > 0).length;
    if (!anyShort) continue;
    const s = (x: number) => (x === Infinity ? "∞" : `${sig(x, 6)} s`);
    const stepAll = Math.max(...at.map((x) => x.stage_s_all));
    const stepEach = Math.max(...at.map((x) => x.stage_s_each_class));
    const first = !parts.length;
    const steps = allShort
      ? `${first ? "make steps ≥ " : "≥ "}${s(stepAll)}${first ? " over all classes" : ""}${
        stepEach > stepAll ? `, ${s(stepEach)}${first ? " per class" : ""}` : ""
      }`
      : `${first ? "make steps ≥ " : "≥ "}${s(stepEach)} per class`;
    parts.push(
      `${percentLabel(p)}${first ? " untestable" : ""} at ${anyShort} of ${levels.length}${
        first ? " levels" : ""
      } (${steps})`,
    );
  }
  if (!parts.length) return null;
  return `plan too short for the knee: ${parts.join(", ")}; each level: npx deno task plan --plan ${planFile}`;
}
