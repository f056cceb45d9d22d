/**
 * What would change the answer: for routes compared by cost per accepted task (one run per route, priced by the cost
 * ledger), the price of each line at which two routes' order flips (break-even), each line's effect over a stated
 * range (the tornado), and which lines are assumptions rather than quotes — with a caveat when an assumed line drives
 * the ranking.
 *
 * @module
 */
import { InputError } from "../../schema/errors.ts";
import type { OverheadSheet, PriceSheet } from "../../schema/prices.ts";
import type { SloPolicy } from "../../schema/slo.ts";
import { ledger, type LedgerResult } from "../cost/ledger.ts";
import { policyForRuns } from "../goodput/policy.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import { routeOf } from "./compare.ts";
import { type PriceLine, priceLines, type RangeSpec, resolveRangeLine, withPrice } from "./sensitivity_lines.ts";
import {
  type BreakEven,
  breakEven,
  type Dominant,
  dominantLines,
  type DrivenBy,
  drivenBy,
  type LineEffect,
  MAJORITY,
  sensitivityCaveats,
  type SensitivityLine,
  type SensitivityRoute,
} from "./sensitivity_verdict.ts";

export * from "./sensitivity_lines.ts";
export * from "./sensitivity_verdict.ts";

/** The default range of every line without a `--range`: ×0.5 to ×2 its price. */
export const DEFAULT_RANGE_FACTOR = { low: 0.5, high: 2 } as const;

/** Options of {@linkcode sensitivity}. */
export interface SensitivityOptions {
  /** The overheads sheet the routes are priced with. @default {null} */
  overheads?: OverheadSheet | null;
  /** Ranges of single lines (`--range LINE=LOW:HIGH`, {@linkcode parseRangeFlag}). @default {[]} */
  ranges?: readonly RangeSpec[];
  /** The range of every other line, as factors of its price (`--range-factor`). @default {DEFAULT_RANGE_FACTOR} */
  rangeFactor?: { low: number; high: number };
  /** Lines the caller knows are assumptions, by id, with why. @default {{}} */
  assumed?: Readonly<Record<string, string>>;
  /** Other assumptions the comparison rests on (an extrapolated volume, …): each is a caveat. @default {[]} */
  otherAssumptions?: readonly { name: string; reason: string }[];
}

/** One bar group of the tornado: a line over its range. */
export interface TornadoRow {
  line: string;
  low: number;
  high: number;
  effects: LineEffect[];
  /** The largest swing over the routes (the tornado's sort key). */
  max_swing: number;
}

/** The result of {@linkcode sensitivity}. */
export interface SensitivityResult {
  currency: string;
  prices: { name: string; as_of: string };
  overheads: { name: string; as_of: string } | null;
  disclosure: { denominator: string; window: string; rules: string[] };
  /** Cheapest first; routes without a cost last. */
  routes: SensitivityRoute[];
  lines: SensitivityLine[];
  /** Largest swing first. */
  tornado: TornadoRow[];
  /** Each pair of ranked routes × each line. */
  break_even: BreakEven[];
  driven_by: DrivenBy[];
  /** Assumed lines that make more than half of a route's cost per accepted task, whether or not they move the ranking. */
  dominant: Dominant[];
  other_assumptions: { name: string; reason: string }[];
  /** One line each, in words. */
  caveats: string[];
}

const RULES = [
  "cost per accepted task = the cost ledger's total / accepted tasks of each run (analysis/cost/ledger.ts), the run re-priced with one line's price changed and every other price as on the sheets",
  "each line's cost is proportional to its price (quantity × unit price), so a route's cost per accepted task is linear in it: slope = (cost at high − cost at low) / (high − low)",
  "break-even of two routes on a line: price now + (dearer − cheaper) / (slope of the cheaper − slope of the dearer); none when the slopes are equal (the line absent from both, or costing both the same per accepted task) or when it would be negative",
  "a null price on the sheet (cached input, reasoning, cache writes) follows the price it defaults to and moves with it; context tiers, service tiers' own prices, multipliers and discounts are not varied",
  "range: --range LINE=LOW:HIGH, else the --range-factor of the price (default ×0.5 to ×2); a line at 0 is not varied without a --range",
  "assumption: a line whose source says ILLUSTRATIVE, ASSUMPTION(S), ASSUMED or PLACEHOLDER (in capitals), or that the caller marks",
  `an assumed line makes most of a route's cost when slope × price > ${MAJORITY * 100} % of its cost per accepted task`,
  `an assumed line drives the ranking when, for a pair of ranked routes, their break-even on it lies within its range, or it makes more than ${
    MAJORITY * 100
  } % of their difference`,
];

const costOf = (l: LedgerResult) => l.overall.cost_per_accepted_task;

/** The price-sheet keys a run's attempts are priced by (a route's own entry, else `*`). */
function routeKeys(run: LoadedRun, prices: PriceSheet): Set<string> {
  const routes = run.attempts.height ? (run.attempts.getColumn("route").unique().toArray() as string[]) : [];
  return new Set(routes.map((r) => (Object.hasOwn(prices.routes, r) ? r : "*")).filter((k) => prices.routes[k]));
}

/**
 * Routes compared by cost per accepted task, and what would change their order: break-even prices of every line for
 * every pair, each line varied over its range (the tornado, largest swing first), the assumed lines marked, and a
 * caveat for each assumed line that drives the ranking. Every cost is the cost ledger's, re-run on the same run with
 * a sheet that differs in one price (built and validated by the sheet's schema).
 *
 * A `--range` that names no line, names several, or does not contain the line's price is an {@linkcode InputError}
 * naming the flag.
 *
 * @example Two routes, one self-hosted price
 * ```ts ignore
 * const s = sensitivity([hostedRun, selfRun], policy, prices, { overheads, ranges: [parseRangeFlag("gpu_hour=1:6")] });
 * console.log(s.break_even.find((b) => b.line === "routes.selfhosted.gpu_hour")?.price);
 * ```
 */
export function sensitivity(
  runs: readonly LoadedRun[],
  policyInput: SloPolicy,
  prices: PriceSheet,
  options: SensitivityOptions = {},
): SensitivityResult {
  if (runs.length < 2) throw new InputError(`a sensitivity analysis needs at least two runs, got ${runs.length}`);
  const policy = policyForRuns(policyInput, runs, "sensitivity() policy");
  const overheads = options.overheads ?? null;
  const factor = options.rangeFactor ?? DEFAULT_RANGE_FACTOR;
  const keys = runs.map((r) => routeKeys(r, prices));
  const lines = rangedLines(
    priceLines(prices, overheads, [...new Set(keys.flatMap((k) => [...k]))], options.assumed),
    options.ranges ?? [],
    factor,
  );
  const labels = routeLabels(runs);
  const cost = (run: LoadedRun, p: PriceSheet, o: OverheadSheet | null) => ledger(run, policy, p, { overheads: o });
  const base = runs.map((r) => cost(r, prices, overheads));

  const effects = new Map<string, LineEffect[]>();
  for (const line of lines) {
    effects.set(
      line.id,
      runs.map((run, i): LineEffect => {
        const c0 = costOf(base[i]!);
        const route = labels[i]!;
        const at = (x: number) => {
          if (x === line.value) return c0;
          const s = withPrice(line, x, prices, overheads);
          return costOf(cost(run, s.prices, s.overheads));
        };
        const affects = line.sheet === "overheads" || keys[i]!.has(line.path[1]!);
        if (c0 === null) return { route, slope: null, at_low: null, at_high: null, swing: null };
        if (!affects) {
          const ends = line.range ? c0 : null;
          return { route, slope: 0, at_low: ends, at_high: ends, swing: line.range ? 0 : null };
        }
        if (line.range && line.range.high > line.range.low) {
          const lo = at(line.range.low)!, hi = at(line.range.high)!;
          return {
            route,
            slope: (hi - lo) / (line.range.high - line.range.low),
            at_low: lo,
            at_high: hi,
            swing: Math.abs(hi - lo),
          };
        }
        // No range to read the slope from: one more price, 1 unit above.
        const slope = at(line.value + 1)! - c0;
        return {
          route,
          slope,
          at_low: line.range ? c0 : null,
          at_high: line.range ? c0 : null,
          swing: line.range ? 0 : null,
        };
      }),
    );
  }

  const routes = rankRoutes(runs, base, labels);
  for (const r of routes) {
    r.assumed_lines = lines.filter((l) =>
      l.assumed && l.value > 0 && (effects.get(l.id)!.find((e) => e.route === r.route)!.slope ?? 0) !== 0
    ).map((l) => l.id);
  }
  const tornado = lines.filter((l) => l.range).map((l): TornadoRow => {
    const e = effects.get(l.id)!;
    return {
      line: l.id,
      low: l.range!.low,
      high: l.range!.high,
      effects: e,
      max_swing: Math.max(0, ...e.map((x) => x.swing ?? 0)),
    };
  }).sort((a, b) => b.max_swing - a.max_swing || (a.line < b.line ? -1 : 1));

  const ranked = routes.filter((r) => r.rank !== null);
  const break_even: BreakEven[] = [];
  for (let i = 0; i < ranked.length; i++) {
    for (let j = i + 1; j < ranked.length; j++) {
      for (const line of lines) {
        const e = effects.get(line.id)!;
        const slope = (route: string) => e.find((x) => x.route === route)!.slope!;
        break_even.push(breakEven(line, ranked[i]!, ranked[j]!, slope(ranked[i]!.route), slope(ranked[j]!.route)));
      }
    }
  }
  const driven_by = drivenBy(lines, break_even);
  const dominant = dominantLines(lines, ranked, effects);
  const other_assumptions = (options.otherAssumptions ?? []).map((a) => ({ ...a }));
  const d = base[0]!.disclosure;
  return {
    currency: prices.currency,
    prices: { name: prices.name, as_of: prices.as_of },
    overheads: overheads ? { name: overheads.name, as_of: overheads.as_of } : null,
    disclosure: { denominator: d.denominator, window: d.window.description, rules: RULES },
    routes,
    lines,
    tornado,
    break_even,
    driven_by,
    dominant,
    other_assumptions,
    caveats: sensitivityCaveats(lines, routes, driven_by, dominant, other_assumptions),
  };
}

function rangedLines(
  lines: PriceLine[],
  ranges: readonly RangeSpec[],
  factor: { low: number; high: number },
): SensitivityLine[] {
  const given = new Map<string, RangeSpec>();
  for (const spec of ranges) {
    const line = resolveRangeLine(spec, lines);
    const before = given.get(line.id);
    if (before) throw new InputError(`${spec.flag}: ${line.id} already has a range (${before.flag})`);
    if (spec.low > line.value || spec.high < line.value) {
      throw new InputError(
        `${spec.flag}: the range ${spec.low}–${spec.high} does not contain ${line.id}'s price on the sheet, ${line.value} ${line.unit}; a range must contain it`,
      );
    }
    given.set(line.id, spec);
  }
  return lines.map((l): SensitivityLine => {
    const g = given.get(l.id);
    if (g) return { ...l, range: { low: g.low, high: g.high, from: "--range" } };
    if (l.value === 0) return { ...l, range: null };
    return { ...l, range: { low: l.value * factor.low, high: l.value * factor.high, from: "--range-factor" } };
  });
}

function routeLabels(runs: readonly LoadedRun[]): string[] {
  const names = runs.map(routeOf);
  return names.map((n, i) => (names.filter((m) => m === n).length > 1 ? `${n} (${runs[i]!.manifest.run_id})` : n));
}

function rankRoutes(runs: readonly LoadedRun[], base: LedgerResult[], labels: string[]): SensitivityRoute[] {
  const rows = runs.map((run, i): SensitivityRoute => ({
    route: labels[i]!,
    run_id: run.manifest.run_id,
    offered: base[i]!.overall.offered,
    accepted: base[i]!.overall.accepted,
    cost_per_accepted_task: costOf(base[i]!),
    rank: null,
    assumed_lines: [],
  }));
  const order = [...rows].sort((a, b) =>
    a.cost_per_accepted_task === null
      ? 1
      : b.cost_per_accepted_task === null
      ? -1
      : a.cost_per_accepted_task - b.cost_per_accepted_task
  );
  let rank = 0;
  for (const r of order) if (r.cost_per_accepted_task !== null) r.rank = ++rank;
  return order;
}
