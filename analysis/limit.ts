/**
 * The production limit: the knee minus an explicit headroom,
 * limit = knee × (1 − headroom). The headroom is the user's choice; without
 * one, the limit is shown for several headrooms and none is picked.
 *
 * @module
 */
import { InputError } from "../schema/errors.ts";

/** Headrooms shown when none is given: a spread to choose from, not a recommendation. */
export const HEADROOM_CHOICES: readonly number[] = [0.1, 0.2, 0.3, 0.5];

/** Why no single headroom is applied when the user gave none; printed with every table of choices. */
export const HEADROOM_NOTE =
  "no headroom was given, so no limit is applied: choosing the headroom (the margin for bursts, drift and " +
  "failures you will not see in a test) is a business decision; pass --headroom H to apply one";

/** The production limit, or the choices when no headroom was given. */
export interface ProductionLimit {
  /** The knee's offered rate (req/s); null when no knee was found within the tested range. */
  knee_rps: number | null;
  /** The headroom given, or null when none was. */
  headroom: number | null;
  /** knee × (1 − headroom), only when a headroom was given and a knee found. */
  limit_rps: number | null;
  /** The limit at each of the shown headrooms (always: the reader sees what the choice costs). */
  choices: { headroom: number; limit_rps: number }[];
  /** The rule and the state in words. */
  note: string;
}

/**
 * limit = knee × (1 − headroom). `headroom` must be in [0, 1). Without a
 * headroom, `limit_rps` is null and `choices` lists the limit at
 * {@linkcode HEADROOM_CHOICES}, with {@linkcode HEADROOM_NOTE}: the margin is
 * never picked silently. Without a knee (no degradation in the tested
 * range) there is no limit, only a lower bound that the note states.
 *
 * @example A knee at 8 req/s with a 25 % headroom gives 6 req/s; without a headroom nothing is applied
 * ```ts
 * import assert from "node:assert/strict";
 * import { productionLimit } from "./limit.ts";
 * assert.equal(productionLimit(8, 0.25).limit_rps, 6);
 * const open = productionLimit(8);
 * assert.equal(open.limit_rps, null);
 * assert.deepEqual(open.choices.map((c) => c.limit_rps), [7.2, 6.4, 5.6, 4]);
 * ```
 */
export function productionLimit(
  kneeRps: number | null,
  headroom?: number,
  options: { highestTestedRps?: number } = {},
): ProductionLimit {
  if (headroom !== undefined && !(headroom >= 0 && headroom < 1)) {
    throw new InputError(`--headroom: expected a fraction in [0, 1) (0.3 = 30 %), got ${headroom}`);
  }
  const h = headroom ?? null;
  if (kneeRps === null) {
    const tested = options.highestTestedRps;
    return {
      knee_rps: null,
      headroom: h,
      limit_rps: null,
      choices: [],
      note: `no knee within the tested range${
        tested === undefined ? "" : ` (highest offered rate ${round(tested)} req/s)`
      }: no limit can be derived; the capacity is at least the highest rate tested — test higher rates`,
    };
  }
  const at = (x: number) => round(kneeRps * (1 - x));
  const choices = HEADROOM_CHOICES.map((x) => ({ headroom: x, limit_rps: at(x) }));
  if (h === null) return { knee_rps: kneeRps, headroom: null, limit_rps: null, choices, note: HEADROOM_NOTE };
  return {
    knee_rps: kneeRps,
    headroom: h,
    limit_rps: at(h),
    choices,
    note: `limit = knee × (1 − headroom) = ${round(kneeRps)} × (1 − ${h}) = ${at(h)} req/s; the headroom ${h} was ` +
      "given by the user",
  };
}

/** Rates to 4 significant digits: the knee itself is not known more finely. */
function round(x: number): number {
  return Number(x.toPrecision(4));
}
