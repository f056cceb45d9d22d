/**
 * Who rates which item of a review packet, and in what order: a stated share of the sample goes to every rater (for
 * agreement), the rest to one rater each, every rater's list in its own seeded order.
 *
 * @module
 */
import { allocateSample } from "../stratified.ts";
import { byText, shuffled, stream } from "./_random.ts";

/** Options of {@linkcode assignRaters}. */
export interface AssignOptions {
  /** The share of the items every rater rates (0 with one rater). */
  double_share: number;
  seed: number;
}

/** The raters' lists. */
export interface Assignment {
  raters: string[];
  /** The items every rater rates, sorted. */
  double_rated: string[];
  /** Each rater's items in the order their page shows them. */
  by_rater: Record<string, string[]>;
  /** Each item's raters, in the order `raters` lists them. */
  raters_of: Map<string, string[]>;
}

/**
 * Assigns items to raters. m = round(double_share · n) items (at least 1 when the share is above 0 and there are
 * items; none with one rater) go to every rater; they are spread over the strata in proportion to the strata's sizes
 * in the sample (`allocateSample`, no minimum) and drawn at random within each. The other items, shuffled, are dealt
 * to the raters in turn, so that the loads differ by at most one. Each rater's list is then shuffled by a stream of
 * its own: no two raters see the items in the same order, and no order follows the sample's.
 *
 * @example 8 items, two raters, a quarter rated by both
 * ```ts
 * import assert from "node:assert/strict";
 * import { assignRaters } from "./assign_raters.ts";
 * const items = Array.from({ length: 8 }, (_, i) => ({ id: `i${i}`, stratum: i < 4 ? "a" : "b" }));
 * const a = assignRaters(items, ["ana", "bo"], { double_share: 0.25, seed: 1 });
 * assert.equal(a.double_rated.length, 2);
 * assert.deepEqual([a.by_rater.ana!.length, a.by_rater.bo!.length], [5, 5]);
 * for (const id of a.double_rated) assert.deepEqual(a.raters_of.get(id), ["ana", "bo"]);
 * ```
 */
export function assignRaters(
  items: readonly { id: string; stratum: string }[],
  raters: readonly string[],
  options: AssignOptions,
): Assignment {
  if (!raters.length) throw new RangeError("assignRaters: no rater");
  if (new Set(raters).size !== raters.length) throw new RangeError(`assignRaters: a rater is named twice`);
  if (!(options.double_share >= 0 && options.double_share <= 1)) {
    throw new RangeError(`assignRaters: double_share must be in [0, 1], got ${options.double_share}`);
  }
  const n = items.length;
  const m = raters.length < 2 || n === 0 || options.double_share === 0
    ? 0
    : Math.min(n, Math.max(1, Math.round(options.double_share * n)));
  const strata = new Map<string, string[]>();
  for (const it of items) strata.set(it.stratum, [...strata.get(it.stratum) ?? [], it.id]);
  const names = [...strata.keys()].sort(byText);
  const double = new Set<string>();
  if (m > 0) {
    const a = allocateSample(names.map((name) => ({ name, population: strata.get(name)!.length })), m, {
      min_per_stratum: 0,
    });
    for (const s of a.strata) {
      const ids = [...strata.get(s.name)!].sort(byText);
      for (const id of shuffled(ids, stream(options.seed, `double:${s.name}`)).slice(0, s.sampled)) double.add(id);
    }
  }
  const lists: Record<string, string[]> = Object.fromEntries(raters.map((r) => [r, [...double]]));
  const single = shuffled(
    items.map((i) => i.id).filter((id) => !double.has(id)).sort(byText),
    stream(options.seed, "deal"),
  );
  const ratersOf = new Map<string, string[]>();
  for (const id of double) ratersOf.set(id, [...raters]);
  single.forEach((id, i) => {
    const r = raters[i % raters.length]!;
    lists[r]!.push(id);
    ratersOf.set(id, [r]);
  });
  const by_rater: Record<string, string[]> = {};
  for (const r of raters) by_rater[r] = shuffled([...lists[r]!].sort(byText), stream(options.seed, `order:${r}`));
  return { raters: [...raters], double_rated: [...double].sort(byText), by_rater, raters_of: ratersOf };
}
