/**
 * The verdict side of a sensitivity analysis: the break-even of two routes on one line, the assumed lines that drive
 * the ranking or make most of a route's cost, and the caveats in words.
 *
 * @module
 */
import type { PriceLine } from "./sensitivity_lines.ts";

/** Share of the difference between two routes above which one line is said to make it. */
export const MAJORITY = 0.5;

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
export function drivenBy(lines: SensitivityLine[], breakEvens: BreakEven[]): DrivenBy[] {
  const out: DrivenBy[] = [];
  for (const l of lines.filter((x) => x.assumed)) {
    const pairs = breakEvens.filter((b) =>
      b.line === l.id && (b.within_range === true || (b.share_of_gap ?? 0) > MAJORITY)
    );
    if (pairs.length) out.push({ line: l.id, label: l.label, why: l.assumed!, pairs });
  }
  return out;
}

/** Assumed lines that make more than half of a ranked route's cost per accepted task: slope × price / cost. */
export function dominantLines(
  lines: readonly SensitivityLine[],
  ranked: readonly SensitivityRoute[],
  effects: ReadonlyMap<string, readonly LineEffect[]>,
): Dominant[] {
  const out: Dominant[] = [];
  for (const l of lines.filter((x) => x.assumed && x.value > 0)) {
    for (const r of ranked) {
      const slope = effects.get(l.id)!.find((e) => e.route === r.route)!.slope!;
      const share = r.cost_per_accepted_task! > 0 ? (slope * l.value) / r.cost_per_accepted_task! : 0;
      if (share > MAJORITY) out.push({ line: l.id, route: r.route, share });
    }
  }
  return out;
}

/** The caveats of a sensitivity analysis, one line each: driven-by, dominant, other assumptions, lines at 0. */
export function sensitivityCaveats(
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
