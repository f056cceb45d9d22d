/**
 * The production limit: the knee minus an explicit headroom,
 * limit = knee × (1 − headroom). The headroom is the user's choice; without
 * one, the limit is shown for several headrooms and none is picked.
 *
 * Rounding: the result carries the exact values; text shows a limit or a
 * knee rounded down to 4 significant digits (never up: 6.7875 shows as
 * 6.787) and says "(rounded down)" when the shown value is below the exact one.
 *
 * @module
 */
import { InputError } from "../../schema/errors.ts";
import type { KneeResult } from "./knee.ts";
import { roundDown } from "../latency/round_display.ts";

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
  /** knee × (1 − headroom), exact (not rounded), only when a headroom was given and a knee found. */
  limit_rps: number | null;
  /** The exact limit at each of the shown headrooms (always: the reader sees what the choice costs). */
  choices: { headroom: number; limit_rps: number }[];
  /** The rule and the state in words (rates rounded down, see {@linkcode rateText}). */
  note: string;
}

/**
 * A capacity figure (knee, limit, highest rate tested) as text: rounded down
 * to 4 significant digits, with "(rounded down)" when that is below the
 * exact value; the unit (none when "") follows the number.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rateText } from "./limit.ts";
 * assert.equal(rateText(6.7875), "6.787 req/s (rounded down)");
 * assert.equal(rateText(6), "6 req/s");
 * ```
 */
export function rateText(rps: number, unit = "req/s"): string {
  const shown = roundDown(rps);
  return `${shown}${unit ? ` ${unit}` : ""}${shown < rps ? " (rounded down)" : ""}`;
}

/** A finite double as the decimal its shortest text denotes: value = digits × 10^exp. */
function decimalOf(x: number): { digits: bigint; exp: number } {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(x));
  if (!m) throw new RangeError(`not a finite number: ${x}`);
  const frac = m[3] ?? "";
  const digits = BigInt(`${m[1]}${m[2]}${frac}`);
  return { digits, exp: Number(m[4] ?? 0) - frac.length };
}

/**
 * knee × (1 − headroom) on the decimals the two numbers print as (and JSON
 * carries), then the double nearest that exact product: 7.5 × (1 − 0.095)
 * gives 6.7875, where the float product is 6.7875000000000005.
 */
function decimalLimit(knee: number, headroom: number): number {
  const k = decimalOf(knee);
  const h = decimalOf(headroom);
  const scale = BigInt(Math.max(0, -h.exp));
  const one = 10n ** scale; // 1 at the headroom's scale
  const keep = one - h.digits * 10n ** (BigInt(h.exp) + scale); // (1 − h) × 10^scale
  return Number(`${k.digits * keep}e${k.exp - Number(scale)}`);
}

/**
 * limit = knee × (1 − headroom), exact on the decimal values (see {@linkcode rateText} for its display). `headroom` must be in [0, 1). Without a
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
 * // Exact in the result, rounded down in the text: 7.5 × (1 − 0.095) = 6.7875
 * const odd = productionLimit(7.5, 0.095);
 * assert.equal(odd.limit_rps, 6.7875);
 * assert.match(odd.note, /= 6\.787 req\/s \(rounded down\)/);
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
        tested === undefined ? "" : ` (highest offered rate ${rateText(tested)})`
      }: no limit can be derived; the capacity is at least the highest rate tested — test higher rates`,
    };
  }
  const at = (x: number) => decimalLimit(kneeRps, x);
  const choices = HEADROOM_CHOICES.map((x) => ({ headroom: x, limit_rps: at(x) }));
  if (h === null) return { knee_rps: kneeRps, headroom: null, limit_rps: null, choices, note: HEADROOM_NOTE };
  return {
    knee_rps: kneeRps,
    headroom: h,
    limit_rps: at(h),
    choices,
    note: `limit = knee × (1 − headroom) = ${rateText(kneeRps, "")} × (1 − ${h}) = ${rateText(at(h))}; the headroom ` +
      `${h} was given by the user`,
  };
}

/**
 * The production limit of a knee report: {@linkcode productionLimit}, except
 * that a report with no capacity gives no limit and says why (not "the
 * capacity is at least the highest rate tested").
 */
export function limitFromKnee(
  report: Pick<KneeResult, "knee" | "no_capacity">,
  headroom?: number,
  options: { highestTestedRps?: number } = {},
): ProductionLimit {
  const limit = productionLimit(report.knee?.offered_rps ?? null, headroom, options);
  return report.no_capacity ? { ...limit, note: report.no_capacity } : limit;
}
