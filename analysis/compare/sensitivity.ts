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

export * from "./sensitivity_lines.ts";

/** The default range of every line without a `--range`: ×0.5 to ×2 its price. */
export const DEFAULT_RANGE_FACTOR = { low: 0.5, high: 2 } as const;

/** Share of the difference between two routes above which one line is said to make it. */
export const MAJORITY = 0.5;

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

/** One route (one run) and its cost per accepted task at the sheets' prices. */
export interface SensitivityRoute {
  route: string;
  run_id: string;
  offered: number;
  accepted: number;
  /** The ledger's total / accepted tasks (null: no task accepted). */
  cost_per_accepted_task: number | null;
  /** 1 = cheapest; null: no cost per accepted task. */
  rank: number | null;
  /** The assumed lines in its cost (priced above 0, with a slope on this route), by id. */
  assumed_lines: string[];
}

/** A line with the range it is varied over. */
export interface SensitivityLine extends PriceLine {
  /** null: not varied (its price is 0 and no `--range` gave it a range). */
  range: { low: number; high: number; from: "--range" | "--range-factor" } | null;
}

/** One line's effect on one route's cost per accepted task. */
export interface LineEffect {
  route: string;
  /** Change of cost per accepted task per unit of the line's price (null: no task accepted). */
  slope: number | null;
  at_low: number | null;
  at_high: number | null;
  /** |at_high − at_low|. */
  swing: number | null;
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

/** Where two routes' order by cost per accepted task flips as one line's price moves, the others fixed. */
export interface BreakEven {
  line: string;
  /** The route cheaper at the sheets' prices, and the other. */
  cheaper: string;
  dearer: string;
  /** dearer − cheaper at the sheets' prices (≥ 0). */
  gap: number;
  slope_cheaper: number;
  slope_dearer: number;
  /** The price at which the two cost the same (null: no break-even, `reason` says why). */
  price: number | null;
  /** price / the sheet's price (null when either is 0 or there is no break-even). */
  factor: number | null;
  /** Which side of `price` the dearer route becomes the cheaper: above or below it. */
  dearer_wins: "above" | "below" | null;
  /** No break-even: the line is absent from both, costs both the same, or the flip needs a negative price. */
  reason: string | null;
  /** The break-even lies in the line's range (null: the line has no range). */
  within_range: boolean | null;
  /** (slope_dearer − slope_cheaper) × price now / gap: the line's share of the difference (null when gap = 0). */
  share_of_gap: number | null;
}

/** An assumed line that drives the ranking, with the pairs it drives. */
export interface DrivenBy {
  line: string;
  label: string;
  why: string;
  pairs: BreakEven[];
}

/** An assumed line that makes most of a route's cost per accepted task. */
export interface Dominant {
  line: string;
  route: string;
  /** slope × price now / cost per accepted task now. */
  share: number;
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
  const dominant: Dominant[] = [];
  for (const l of lines.filter((x) => x.assumed && x.value > 0)) {
    for (const r of ranked) {
      const slope = effects.get(l.id)!.find((e) => e.route === r.route)!.slope!;
      const share = r.cost_per_accepted_task! > 0 ? (slope * l.value) / r.cost_per_accepted_task! : 0;
      if (share > MAJORITY) dominant.push({ line: l.id, route: r.route, share });
    }
  }
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
    caveats: caveats(lines, routes, driven_by, dominant, other_assumptions),
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

/** Slopes closer than this, relative to the larger, are equal (the ledger's sums differ in their last bits). */
const SAME_SLOPE = 1e-9;

/** The break-even of two routes (`a` cheaper now) on one line. */
export function breakEven(
  line: SensitivityLine,
  a: SensitivityRoute,
  b: SensitivityRoute,
  slopeA: number,
  slopeB: number,
): BreakEven {
  const gap = b.cost_per_accepted_task! - a.cost_per_accepted_task!;
  const d = slopeA - slopeB;
  const share_of_gap = gap > 0 ? ((slopeB - slopeA) * line.value) / gap : null;
  const out: BreakEven = {
    line: line.id,
    cheaper: a.route,
    dearer: b.route,
    gap,
    slope_cheaper: slopeA,
    slope_dearer: slopeB,
    price: null,
    factor: null,
    dearer_wins: null,
    reason: null,
    within_range: null,
    share_of_gap,
  };
  if (Math.abs(d) <= SAME_SLOPE * Math.max(Math.abs(slopeA), Math.abs(slopeB))) {
    out.reason = slopeA === 0 && slopeB === 0
      ? "absent from both routes"
      : "costs both routes the same per accepted task";
    return out;
  }
  const price = line.value + gap / d;
  if (price < 0) {
    out.reason = `the flip needs a negative price (${price.toPrecision(4)})`;
    return out;
  }
  out.price = price;
  out.factor = line.value > 0 && price > 0 ? price / line.value : null;
  out.dearer_wins = d > 0 ? "above" : "below";
  out.within_range = line.range ? price >= line.range.low && price <= line.range.high : null;
  return out;
}

/** Assumed lines that flip a pair within their range or make most of its difference. */
function drivenBy(lines: SensitivityLine[], breakEvens: BreakEven[]): DrivenBy[] {
  const out: DrivenBy[] = [];
  for (const l of lines.filter((x) => x.assumed)) {
    const pairs = breakEvens.filter((b) =>
      b.line === l.id && (b.within_range === true || (b.share_of_gap ?? 0) > MAJORITY)
    );
    if (pairs.length) out.push({ line: l.id, label: l.label, why: l.assumed!, pairs });
  }
  return out;
}

function caveats(
  lines: SensitivityLine[],
  routes: SensitivityRoute[],
  driven: DrivenBy[],
  dominant: Dominant[],
  others: { name: string; reason: string }[],
): string[] {
  const out: string[] = [];
  const num = (v: number) => String(Number(v.toPrecision(4)));
  for (const d of driven) {
    const line = lines.find((l) => l.id === d.line)!;
    const parts = d.pairs.map((b) => {
      const flip = b.within_range
        ? `flips at ${num(b.price!)}, inside its range ${num(line.range!.low)}–${num(line.range!.high)}`
        : null;
      const share = (b.share_of_gap ?? 0) > MAJORITY
        ? `it makes ${num(b.share_of_gap! * 100)} % of the difference`
        : null;
      return `${b.cheaper} vs ${b.dearer}: ${[flip, share].filter(Boolean).join("; ")}`;
    });
    out.push(
      `the ranking is driven by an assumed ${d.label} cost (${d.line} = ${num(line.value)} ${line.unit}, ${d.why}): ${
        parts.join("; ")
      }`,
    );
  }
  const assumed = lines.filter((l) => l.assumed);
  if (assumed.length && !driven.length) {
    out.push(
      `no assumed line drives the ranking (${
        assumed.map((l) => l.id).join(", ")
      }): none flips a pair within its range or makes more than ${MAJORITY * 100} % of a difference`,
    );
  }
  for (const id of new Set(dominant.map((d) => d.line))) {
    const line = lines.find((l) => l.id === id)!;
    const shares = dominant.filter((d) => d.line === id).map((d) => `${d.route} ${num(d.share * 100)} %`);
    out.push(
      `an assumed ${line.label} cost (${id} = ${
        num(line.value)
      } ${line.unit}, ${line.assumed}) makes most of the cost per accepted task: ${shares.join(", ")}`,
    );
  }
  for (const a of others) out.push(`assumed: ${a.name}: ${a.reason}`);
  const zero = lines.filter((l) => l.value === 0 && !l.range);
  if (zero.length) {
    out.push(
      `priced at 0 on the sheets (they add nothing to any cost; not varied without --range LINE=0:HIGH): ${
        zero.map((l) => l.id).join(", ")
      }`,
    );
  }
  for (const r of routes.filter((x) => x.rank === null)) {
    out.push(`route ${r.route} accepted no task: it has no cost per accepted task and no break-even`);
  }
  return out;
}
