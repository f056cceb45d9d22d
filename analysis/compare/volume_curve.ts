/**
 * The demand axis of a cost-vs-demand curve and the points where two routes' monthly costs cross on it.
 *
 * @module
 */

/** Where two routes' monthly costs cross as peak demand rises. */
export interface Crossing {
  /** The two routes: `cheaper_below` is the cheaper one just below the point, `cheaper_above` just above. */
  cheaper_below: string;
  cheaper_above: string;
  /** The peak demand (accepted tasks/s) where the order flips. */
  demand_rps: number;
  /** Each route's monthly cost at that demand (just above it for a step). */
  monthly: Record<string, number>;
  /** The flip is a replica step (a jump in cost), not two lines meeting. */
  at_step: boolean;
}

/** Points evenly spread over the axis. */
const POINTS = 240;

/**
 * 0 to `max` in {@linkcode POINTS} even steps, plus each multiple of each step width in `steps` (where a replica
 * count rises) and the point just above it, so a step function is drawn with its jumps; sorted, no duplicates.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { demandGrid } from "./volume_curve.ts";
 * const g = demandGrid(10, [4]);
 * assert.ok(g.includes(4) && g.includes(8) && g.some((x) => x > 4 && x < 4.0001));
 * assert.equal(g[0], 0);
 * assert.equal(g.at(-1), 10);
 * ```
 */
export function demandGrid(max: number, steps: number[]): number[] {
  // The point just above 0 draws the first step (the spares alone at 0, the first replica above it).
  const xs = [...Array.from({ length: POINTS + 1 }, (_, i) => (max * i) / POINTS), max * 1e-9];
  for (const w of steps) {
    if (!(w > 0) || !Number.isFinite(w)) continue;
    for (let k = 1; k * w < max && k <= 10_000; k++) xs.push(k * w, k * w * (1 + 1e-7));
  }
  return [...new Set(xs)].sort((a, b) => a - b);
}

/**
 * Every point on the grid's span where one route's monthly cost passes another's: a sign change of the difference
 * between two grid points, narrowed by bisection to 1e-9 of the span. A difference that only touches 0 is no
 * crossing.
 */
export function crossings(grid: number[], lines: { route: string; cost: (peak: number) => number }[]): Crossing[] {
  const out: Crossing[] = [];
  const span = (grid.at(-1) ?? 0) - (grid[0] ?? 0);
  for (let i = 0; i < lines.length; i++) {
    for (let j = i + 1; j < lines.length; j++) {
      const a = lines[i]!, b = lines[j]!;
      const diff = (x: number) => a.cost(x) - b.cost(x);
      let last = 0, lastX = grid[0] ?? 0;
      for (const x of grid) {
        const h = diff(x);
        const s = Math.sign(h);
        if (s !== 0 && last !== 0 && s !== last) {
          let lo = lastX, hi = x;
          while (hi - lo > 1e-9 * span) {
            const mid = (lo + hi) / 2;
            if (Math.sign(diff(mid)) === last) lo = mid;
            else hi = mid;
          }
          const ca = a.cost(hi), cb = b.cost(hi);
          const scale = Math.max(Math.abs(ca), Math.abs(cb), 1e-12);
          out.push({
            cheaper_below: last < 0 ? a.route : b.route,
            cheaper_above: last < 0 ? b.route : a.route,
            demand_rps: hi,
            monthly: { [a.route]: ca, [b.route]: cb },
            at_step: Math.abs(ca - cb) > 1e-6 * scale || Math.abs(diff(lo) - diff(hi)) > 1e-6 * scale,
          });
        }
        if (s !== 0) {
          last = s;
          lastX = x;
        } else if (last === 0) lastX = x;
      }
    }
  }
  return out.sort((p, q) => p.demand_rps - q.demand_rps);
}
