/**
 * The knee: where each signal departs from its low-load baseline as offered
 * load rises, and a Kneedle knee of accepted goodput against offered load.
 *
 * The departure rule and its guards are in `departure.ts`, the persistence
 * rule in `persistence.ts`; the knee is the lower of the first departure that
 * persists and the Kneedle knee (of the curve without dips that did not persist).
 *
 * @module
 */
import { InputError } from "../../schema/errors.ts";
import type { OverheadSheet, PriceSheet } from "../../schema/prices.ts";
import { DEFAULT_TOLERANCES, type Departure, departure, type Tolerance } from "./departure.ts";
import { sig } from "../../lib/number_format.ts";
import type { SloPolicy } from "../../schema/slo.ts";
import { kneedle, type KneedleResult } from "./kneedle.ts";
import { COST_GUARD_NOTE } from "./level_cost.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import {
  type LevelPoint,
  pointSignals,
  type PreparedRun,
  prepareRun,
  signalFamily,
  SIGNALS,
  type SignalSample,
} from "./levels.ts";
import { type GoodputDip, goodputDips, persist, type Transient, transientsOf } from "./persistence.ts";
import { classSlo, policyForRuns } from "../goodput/policy.ts";
import { checkRepeatRuns, groupLevels, type Level, type SkippedStage, spreadOf, straddles } from "./repeats.ts";
import { type ExcludedLevel, excludeLevels } from "./client_limit.ts";
import type { RunEnd } from "../run/run_end.ts";
import { isProduction } from "../run/production_run.ts";
import { kneeVerdicts, noCapacity } from "./verdicts.ts";

/** Options of {@linkcode knee}. */
/** The defaults of {@linkcode KneeOptions} the `knee` command states in its help. */
export const KNEE_DEFAULTS = { alpha: 0.05, baselineLevels: 1 } as const;

export interface KneeOptions {
  /** Per-family overrides of {@linkcode DEFAULT_TOLERANCES}. @default {} */
  tolerances?: Record<string, Tolerance>;
  /** How many of the lowest levels are pooled into the baseline. @default 1 */
  baselineLevels?: number;
  /** Significance level of the guards (one-sided). @default 0.05 */
  alpha?: number;
  /** Kneedle sensitivity S. @default 1 */
  S?: number;
  /** An acceptance floor to judge each level against (not set: not judged). */
  acceptanceFloor?: number;
  /** A price sheet: adds `cost_per_accepted` per level, priced by the cost ledger. @default null */
  prices?: PriceSheet | null;
  /** An overheads sheet for that ledger (only with `prices`). @default null */
  overheads?: OverheadSheet | null;
}

/** Which signal stands for unit cost, and what priced it. */
export interface UnitCost {
  signal: "cost_per_accepted" | "tokens_per_accepted";
  /** The price sheet's currency (null without one). */
  currency: string | null;
  /** "name (as of date)" of each sheet used. */
  price_sheet: string | null;
  overheads: string | null;
  /** How it is computed and guarded, in words. */
  note: string;
}

/** Everything the knee analysis found, with its evidence. */
export interface KneeResult {
  /** What is said before any number: incomplete runs, no capacity, client-limited runs and excluded levels. */
  verdicts: string[];
  /** "no capacity can be derived from this run: …" when no tested level accepted anything; else null. */
  no_capacity: string | null;
  /** Levels left out of the knee (client-limited, or cut by the end of a run), with why. */
  excluded: ExcludedLevel[];
  /** How each run ended (`RunEnd`): where an incomplete run's log ends, and what that left out. */
  run_ends: { run_id: string; end: RunEnd }[];
  runs: { run_id: string; dir: string }[];
  /**
   * What a level's rate is: `planned` (run.json stages offered_rps of a runner's or an imported run), or `observed`
   * when every run is a production recording: its stage windows' observed rates (`OBSERVED_LEVELS_RULE`).
   */
  level_basis: "planned" | "observed";
  repeat_basis: string;
  warnings: string[];
  skipped: SkippedStage[];
  levels: Level[];
  /** The baseline: the lowest levels pooled. */
  baseline: { planned_rps: number[]; point: LevelPoint };
  alpha: number;
  tolerances: Record<string, Tolerance>;
  /** Signal key → its departures at each level above the baseline. */
  signals: Record<string, { worse: "higher" | "lower"; unit: string; definition: string; departures: Departure[] }>;
  /** The lowest level where some signal degraded and the departure persists (confirmed or last_level), and which did. */
  first_degrading: { planned_rps: number; offered_rps: number; signals: string[] } | null;
  /** Degraded departures that did not persist (not counted for the knee), lowest level first. */
  transients: Transient[];
  /** Undecidable departures at or below the first degrading level (or anywhere, if none degraded). */
  undecidable: { signal: string; planned_rps: number; why: string }[];
  /** The Kneedle curve (without `excluded`: dips that did not persist), its result and why none. */
  kneedle: { x: number[]; y: number[]; excluded: GoodputDip[]; result: KneedleResult | null; note: string | null };
  kneedle_by_run: { run_id: string; knee: number | null; note: string | null }[];
  /** The knee: the lower of the first persistent departure and the Kneedle knee; null when neither exists. */
  knee: { offered_rps: number; source: "departure" | "kneedle"; signal: string | null } | null;
  acceptance_floor: { floor: number; levels: { planned_rps: number; meets: boolean | null; why: string }[] } | null;
  unit_cost: UnitCost;
}

/** Kneedle of accepted goodput against measured offered rate (concave, increasing), dips that did not persist left out. */
function goodputKnee(levels: Level[], S: number): KneeResult["kneedle"] {
  const pts = levels.map((l) => [l.pooled.offered_rps, l.pooled.accepted_goodput] as const).sort((a, b) => a[0] - b[0]);
  const all = { x: pts.map((p) => p[0]), y: pts.map((p) => p[1]) };
  for (let i = 1; i < all.x.length; i++) {
    if (!(all.x[i]! > all.x[i - 1]!)) {
      const note = `two levels were measured at the same offered rate (${all.x[i]} req/s)`;
      return { ...all, excluded: [], result: null, note };
    }
  }
  const dips = goodputDips(all.x, all.y);
  const kept = (_: number, i: number) => !dips.some((d) => d.index === i);
  const x = all.x.filter(kept), y = all.y.filter(kept);
  const excluded = dips.map(({ index: _, ...d }) => d);
  const result = kneedle(x, y, {
    curve: "concave",
    direction: "increasing",
    S,
    yRange: risingRange(y),
    interior: true,
  });
  return { x, y, excluded, result, note: result.note };
}

/**
 * The range Kneedle normalises accepted goodput over: from the lowest to the highest goodput among the levels up to
 * the last one at the peak. A fall past the peak (a collapse: most requests miss the SLO) stays on the curve, below 0
 * once normalised, so a knee at the peak is still found; but its depth no longer sets the scale. Scaled by the whole
 * curve, a collapse to 0 lifts the lowest level's normalised goodput to its share of the peak, and when goodput rose in
 * proportion to the offered rate, the difference curve falls from the first point on and the knee is the lowest level
 * tested (goodput = offered up to 2.5 req/s, then a collapse at 2.75 and 3: a knee at 1 req/s; with this range, at 2.5;
 * docs/knee.md). For a curve that does not fall after its peak this is the curve's own range, as in the paper; when
 * the levels up to the peak all have the same goodput (undefined here), Kneedle falls back to the whole curve's.
 */
function risingRange(y: number[]): { min: number; max: number } | undefined {
  const max = Math.max(...y);
  const min = Math.min(...y.slice(0, y.lastIndexOf(max) + 1));
  return max > min ? { min, max } : undefined;
}

/**
 * Runs the knee analysis over one run, or several repeats of one plan
 * (checked by {@linkcode checkRepeatRuns}): signals per level, departures
 * from the baseline with their evidence and persistence, the first degrading
 * signal that persists, the transients that do not, the Kneedle knee of
 * accepted goodput, and the knee (the lower of the two).
 * With `prices` (and optionally `overheads`), each level's unit cost is the
 * ledger's cost per accepted task; without, tokens per accepted task.
 */
export function knee(runs: LoadedRun[], policy: SloPolicy, options: KneeOptions = {}): KneeResult {
  policy = policyForRuns(policy, runs, "knee() policy");
  const alpha = options.alpha ?? KNEE_DEFAULTS.alpha;
  const S = options.S ?? 1;
  const prices = options.prices ?? null;
  if (!prices && options.overheads) throw new RangeError("an overheads sheet needs a price sheet (prices)");
  const tolerances = { ...DEFAULT_TOLERANCES, ...options.tolerances };
  // Without prices the cost signal is absent, and so is its tolerance.
  if (!prices) delete tolerances.cost_per_accepted;
  const check = checkRepeatRuns(runs);
  const pricing = prices ? { prices, overheads: options.overheads ?? null } : null;
  const prepared = runs.map((r) => prepareRun(r, policy, pricing));
  const grouped = groupLevels(prepared);
  const skipped = grouped.skipped;
  // Client-limited and cut levels are left out; if every level is, they stay as evidence but give no knee.
  const { tested, excluded } = excludeLevels(grouped.levels, prepared, runs);
  const levels = tested.length ? tested : grouped.levels;
  const no_capacity = grouped.levels.length ? noCapacity(tested, excluded) : null;
  if (!levels.length) {
    throw new InputError(`${runs.map((r) => r.dir).join(", ")}: no steady or burst stage offered any request`);
  }
  const nBase = options.baselineLevels ?? KNEE_DEFAULTS.baselineLevels;
  if (!(Number.isInteger(nBase) && nBase >= 1 && nBase < Math.max(2, levels.length))) {
    throw new RangeError(`baselineLevels must be an integer in [1, ${levels.length - 1}], got ${nBase}`);
  }
  const baseLevels = levels.slice(0, nBase);
  const basePoint = nBase === 1 ? baseLevels[0]!.pooled : pointSignalsOf(baseLevels, prepared);
  const above = levels.slice(nBase);

  const signals: KneeResult["signals"] = {};
  const keys = new Set(levels.flatMap((l) => Object.keys(l.pooled.signals)));
  for (const key of [...keys].sort(bySpecOrder)) {
    const family = signalFamily(key);
    const spec = SIGNALS[family]!;
    const tol = tolerances[family] ?? { rel: 0, abs: 0 };
    const base = basePoint.signals[key];
    const judge = (l: Level) => departure(key, base ?? noData(), l, spec.worse, tol, alpha, basePoint.blocks[key]);
    const departures = above.map(judge);
    const cls = key.includes("@") ? key.slice(key.indexOf("@") + 1) : null;
    const limit = cls && cls !== "all"
      ? (family.startsWith("e2e") ? classSlo(policy, cls).e2e_ms : classSlo(policy, cls).ttft_ms)
      : undefined;
    if (limit !== undefined) {
      for (const d of departures) {
        d.slo_limit_ms = limit;
        d.slo_undecidable = d.spread !== null && straddles(d.spread, limit);
      }
    }
    // A repeat judged alone: a level of one repeat.
    const repeatsAt = (i: number) =>
      above[i]!.repeats.map((r) => judge({ planned_rps: r.planned_rps, pooled: r, repeats: [r] }));
    signals[key] = { ...spec, departures: persist(departures, above, repeatsAt) };
  }

  const counts = (d: Departure) => d.verdict === "degraded" && d.persistence?.status !== "transient";
  let first: KneeResult["first_degrading"] = null;
  for (const [i, l] of above.entries()) {
    const degraded = Object.keys(signals).filter((k) => counts(signals[k]!.departures[i]!));
    if (degraded.length) {
      first = { planned_rps: l.planned_rps, offered_rps: l.pooled.offered_rps, signals: degraded };
      break;
    }
  }
  const transients = Object.entries(signals).flatMap(([signal, s]) => transientsOf(signal, s.departures, above))
    .sort((a, b) => a.planned_rps - b.planned_rps);
  const undecidable = Object.entries(signals).flatMap(([signal, s]) =>
    s.departures.filter((d) => d.verdict === "undecidable" && (!first || d.planned_rps <= first.planned_rps))
      .map((d) => ({ signal, planned_rps: d.planned_rps, why: d.why }))
  );

  const kn = goodputKnee(levels, S);
  const out = new Set(excluded.map((e) => e.planned_rps));
  const kneedle_by_run = runs.length < 2 ? [] : prepared.map((p) => {
    const own = goodputKnee(groupLevels([p]).levels.filter((l) => !out.has(l.planned_rps)), S);
    return { run_id: p.run_id, knee: own.result?.knee ?? null, note: own.note };
  });
  const candidates: NonNullable<KneeResult["knee"]>[] = [];
  if (first) candidates.push({ offered_rps: first.offered_rps, source: "departure", signal: first.signals[0]! });
  if (kn.result?.knee != null) candidates.push({ offered_rps: kn.result.knee, source: "kneedle", signal: null });
  const chosen = no_capacity ? null : candidates.sort((a, b) => a.offered_rps - b.offered_rps)[0] ?? null;

  const floor = options.acceptanceFloor;
  const acceptance_floor = floor === undefined ? null : {
    floor,
    levels: levels.map((l) => {
      const v = l.pooled.signals.acceptance_rate?.value ?? null;
      const sp = spreadOf(l.repeats.map((r) => r.signals.acceptance_rate?.value ?? null));
      if (v === null) return { planned_rps: l.planned_rps, meets: null, why: "no data" };
      if (l.repeats.length > 1 && straddles(sp, floor)) {
        return {
          planned_rps: l.planned_rps,
          meets: null,
          why: `undecidable: repeats ${sig(sp.min, 4, "∞")}–${sig(sp.max, 4, "∞")} straddle ${floor}`,
        };
      }
      return {
        planned_rps: l.planned_rps,
        meets: v >= floor,
        why: `acceptance ${sig(v)} ${v >= floor ? "≥" : "<"} ${floor}`,
      };
    }),
  };

  return {
    verdicts: kneeVerdicts(runs, excluded, no_capacity, policy),
    no_capacity,
    excluded,
    run_ends: runs.map((r) => ({ run_id: r.manifest.run_id, end: r.end })),
    runs: runs.map((r) => ({ run_id: r.manifest.run_id, dir: r.dir })),
    level_basis: runs.every((r) => isProduction(r.manifest)) ? "observed" : "planned",
    repeat_basis: check.basis,
    warnings: [
      ...check.warnings,
      ...runs.flatMap((r) => r.warnings),
      ...prepared.flatMap((p) => p.coster?.warnings ?? []),
      ...prepared.flatMap((p) => p.disclosures),
    ],
    skipped,
    levels,
    baseline: { planned_rps: baseLevels.map((l) => l.planned_rps), point: basePoint },
    alpha,
    tolerances,
    signals,
    first_degrading: first,
    transients,
    undecidable,
    kneedle: kn,
    kneedle_by_run,
    knee: chosen,
    acceptance_floor,
    unit_cost: unitCost(prices, options.overheads ?? null),
  };
}

const sheetName = (s: { name: string; as_of: string }) => `${s.name} (as of ${s.as_of})`;

function unitCost(prices: PriceSheet | null, overheads: OverheadSheet | null): UnitCost {
  if (!prices) {
    return {
      signal: "tokens_per_accepted",
      currency: null,
      price_sheet: null,
      overheads: null,
      note: "no price sheet given: tokens per accepted task stand for unit cost (--prices FILE [--overheads FILE] " +
        "adds cost_per_accepted from the cost ledger)",
    };
  }
  return {
    signal: "cost_per_accepted",
    currency: prices.currency,
    price_sheet: sheetName(prices),
    overheads: overheads ? sheetName(overheads) : null,
    note: `${prices.currency} per accepted task = the cost ledger's total over each level's stages / its accepted ` +
      `tasks${overheads ? "" : " (overheads not priced: no overheads sheet)"}; ${COST_GUARD_NOTE}`,
  };
}

const noData = (): SignalSample => ({ test: "none", value: null, n: 0 });

const ORDER = Object.keys(SIGNALS);
function bySpecOrder(a: string, b: string): number {
  const d = ORDER.indexOf(signalFamily(a)) - ORDER.indexOf(signalFamily(b));
  return d || (a < b ? -1 : a > b ? 1 : 0);
}

/** The pooled point of several baseline levels: every part of every level together. */
function pointSignalsOf(levels: Level[], prepared: PreparedRun[]): LevelPoint {
  const byId = new Map(prepared.map((p) => [p.run_id, p]));
  const parts = levels.flatMap((l) =>
    l.pooled.parts.map((pt) => {
      const run = byId.get(pt.run_id)!;
      return { run, stage: run.stages.find((s) => s.name === pt.stage)! };
    })
  );
  return pointSignals(parts);
}
