/**
 * The seeded, stratified sample of a review: strata by class, route, stage or run; a size per stratum, or a total
 * split over the strata in proportion to their populations, or the total that a target interval half-width needs.
 *
 * @module
 */
import { allocateSample, sampleSizeForWidth } from "../stratified.ts";
import { byText, shuffled, stream } from "./_random.ts";
import type { StratumKey } from "./review_files.ts";

/** How many to draw. */
export type SampleSizing =
  | { mode: "per_stratum"; per_stratum: number }
  | { mode: "total"; total: number; min_per_stratum: number }
  | { mode: "half_width"; half_width: number; level: number; min_per_stratum: number };

/** What a sample is drawn from: anything with the stratum keys and a request to order by. */
export interface Sampleable {
  run_id: string;
  request_id: string;
  class: string;
  route: string;
  stage: string;
}

/** Options of {@linkcode drawSample}. */
export interface DrawSampleOptions {
  strata: readonly StratumKey[];
  sizing: SampleSizing;
  seed: number;
}

/** One stratum of a drawn sample. */
export interface DrawnStratum {
  /** Its values joined by ` / ` in key order (`long_summary / hosted / steady`). */
  name: string;
  values: Record<string, string>;
  population: number;
  sampled: number;
  /** total · N_h / N for an allocated total; null for a size per stratum. */
  proportional: number | null;
}

/** A drawn sample: its strata (sorted by name) and the items drawn, stratum by stratum in draw order. */
export interface DrawnSample<T> {
  strata: DrawnStratum[];
  items: { stratum: string; item: T }[];
  population: number;
  /** The total drawn, and for a half-width the exact size before rounding up. */
  total: number;
  n_exact: number | null;
}

/** The value of a stratum key for an item (`run` is its run_id). */
function valueOf(item: Sampleable, key: StratumKey): string {
  return key === "run" ? item.run_id : item[key];
}

/**
 * Draws without replacement in every stratum: the stratum's items in run_id, request_id order, shuffled by a
 * mulberry32 stream seeded from `seed` and the stratum's name (a stratum's draw does not depend on the others), the
 * first n kept. Sizes: `per_stratum` takes min(n, N_h) from each; `total` is split by `allocateSample`
 * (proportional, largest remainder, at least `min_per_stratum`); `half_width` takes the total
 * `sampleSizeForWidth(N, {half_width, level})` gives for the whole population and splits it the same way (a
 * proportional stratified sample is at least as precise as a simple one of that size, up to the strata raised to
 * their minimum). A total that cannot be allocated is a RangeError.
 *
 * @example 2 per stratum from two classes, the same seed giving the same draw
 * ```ts
 * import assert from "node:assert/strict";
 * import { drawSample } from "./draw_sample.ts";
 * const pop = Array.from({ length: 10 }, (_, i) => ({
 *   run_id: "r", request_id: `q${i}`, class: i < 6 ? "a" : "b", route: "x", stage: "s",
 * }));
 * const o = { strata: ["class"] as const, sizing: { mode: "per_stratum", per_stratum: 2 } as const, seed: 7 };
 * const s = drawSample(pop, o);
 * assert.deepEqual(s.strata.map((x) => [x.name, x.population, x.sampled]), [["a", 6, 2], ["b", 4, 2]]);
 * assert.deepEqual(drawSample(pop, o).items, s.items);
 * ```
 */
export function drawSample<T extends Sampleable>(population: readonly T[], options: DrawSampleOptions): DrawnSample<T> {
  const groups = new Map<string, { values: Record<string, string>; items: T[] }>();
  for (const item of population) {
    const values = Object.fromEntries(options.strata.map((k) => [k, valueOf(item, k)]));
    const name = options.strata.map((k) => values[k]).join(" / ");
    let g = groups.get(name);
    if (!g) groups.set(name, g = { values, items: [] });
    g.items.push(item);
  }
  const names = [...groups.keys()].sort(byText);
  const sizes = new Map<string, { sampled: number; proportional: number | null }>();
  let nExact: number | null = null;
  const s = options.sizing;
  if (s.mode === "per_stratum") {
    for (const n of names) {
      sizes.set(n, { sampled: Math.min(s.per_stratum, groups.get(n)!.items.length), proportional: null });
    }
  } else {
    let total: number;
    if (s.mode === "total") total = s.total;
    else {
      const size = sampleSizeForWidth(population.length, { half_width: s.half_width, level: s.level });
      total = size.n;
      nExact = size.n_exact;
    }
    const a = allocateSample(names.map((name) => ({ name, population: groups.get(name)!.items.length })), total, {
      min_per_stratum: s.min_per_stratum,
    });
    for (const st of a.strata) sizes.set(st.name, { sampled: st.sampled, proportional: st.proportional });
  }
  const strata: DrawnStratum[] = [];
  const items: { stratum: string; item: T }[] = [];
  for (const name of names) {
    const g = groups.get(name)!;
    const { sampled, proportional } = sizes.get(name)!;
    const ordered = [...g.items].sort((a, b) => byText(a.run_id, b.run_id) || byText(a.request_id, b.request_id));
    for (const item of shuffled(ordered, stream(options.seed, `stratum:${name}`)).slice(0, sampled)) {
      items.push({ stratum: name, item });
    }
    strata.push({ name, values: g.values, population: g.items.length, sampled, proportional });
  }
  return { strata, items, population: population.length, total: items.length, n_exact: nExact };
}
