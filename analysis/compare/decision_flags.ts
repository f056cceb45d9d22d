/**
 * The flags of the ranked verdict (analysis/compare/decision.ts): how many
 * resamples, from which seed, of what unit, at which interval level, paired
 * or not; and their parser, whose errors name the flag.
 *
 * @module
 */
import { InputError } from "../../schema/errors.ts";
import type { FlagSpec } from "../../lib/command.ts";

/** How the intervals are resampled: the options {@linkcode decision} takes. */
export interface ResampleOptions {
  /** Bootstrap resamples. @default 2000 */
  resamples?: number;
  /** Seed of mulberry32. @default 1 */
  seed?: number;
  /** `blocks`: moving blocks of the schedule's time; `requests`: each arrival alone. @default "blocks" */
  unit?: "blocks" | "requests";
  /** Block length in whole seconds (blocks only). @default 2 */
  blockSeconds?: number;
  /** Two-sided level of every interval. @default 0.95 */
  level?: number;
  /** Resample every route on the same draws (they must share a schedule). @default true */
  paired?: boolean;
}

/** The defaults of {@linkcode ResampleOptions}. */
export const RESAMPLE_DEFAULTS = {
  resamples: 2000,
  seed: 1,
  unit: "blocks",
  blockSeconds: 2,
  level: 0.95,
  paired: true,
} as const satisfies Required<ResampleOptions>;

/** The flags, for a command's spec (lib/command.ts). */
export const DECISION_FLAGS = {
  resamples: {
    type: "number",
    arg: "B",
    rule: { min: 100, integer: true },
    default: RESAMPLE_DEFAULTS.resamples,
    description: "bootstrap resamples behind every interval of the ranked verdict",
  },
  seed: {
    type: "number",
    arg: "N",
    rule: { min: 0, integer: true },
    default: RESAMPLE_DEFAULTS.seed,
    description: "seed of the resamples (mulberry32): the same seed gives the same intervals",
  },
  resample: {
    type: "string",
    arg: "UNIT",
    default: `blocks:${RESAMPLE_DEFAULTS.blockSeconds}s`,
    values: "`blocks:Ns` (moving blocks of N whole seconds of the schedule) or `requests` (each arrival alone)",
    description: "what the bootstrap draws within each stage, the same draws for every route (docs/routes.md)",
  },
  "interval-level": {
    type: "number",
    arg: "L",
    rule: { above: 0.5, below: 1 },
    default: RESAMPLE_DEFAULTS.level,
    description: "two-sided level of every interval of the ranked verdict",
  },
  unpaired: {
    type: "boolean",
    description: "resample each route on its own draws (runs on different schedules): differences are not paired",
  },
} as const satisfies Record<string, FlagSpec>;

/**
 * `--resample` as options: `blocks:Ns` (N ≥ 1 whole seconds) or `requests`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseResampleFlag } from "./decision_flags.ts";
 * assert.deepEqual(parseResampleFlag("blocks:3s"), { unit: "blocks", blockSeconds: 3 });
 * assert.deepEqual(parseResampleFlag("requests"), { unit: "requests" });
 * assert.throws(() => parseResampleFlag("blocks:0.5s"), /--resample/);
 * ```
 */
export function parseResampleFlag(text: string): Pick<ResampleOptions, "unit" | "blockSeconds"> {
  if (text === "requests") return { unit: "requests" };
  const m = /^blocks:(\d+)s$/.exec(text);
  if (!m || Number(m[1]) < 1) {
    throw new InputError(
      `--resample: expected blocks:Ns (N a whole number of seconds, at least 1) or requests, got "${text}"`,
    );
  }
  return { unit: "blocks", blockSeconds: Number(m[1]) };
}

/** The flag values as {@linkcode ResampleOptions}, every problem named by its flag at once. */
export function decisionOptions(values: {
  resamples?: number;
  seed?: number;
  resample?: string;
  "interval-level"?: number;
  unpaired?: boolean;
}): Required<ResampleOptions> {
  const problems: string[] = [];
  let unit: Pick<ResampleOptions, "unit" | "blockSeconds"> = {};
  if (values.resample !== undefined) {
    try {
      unit = parseResampleFlag(values.resample);
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      problems.push(e.message);
    }
  }
  const out = resampleOptions({
    ...(values.resamples === undefined ? {} : { resamples: values.resamples }),
    ...(values.seed === undefined ? {} : { seed: values.seed }),
    ...(values["interval-level"] === undefined ? {} : { level: values["interval-level"] }),
    ...unit,
    paired: !values.unpaired,
  }, problems);
  if (problems.length) throw new InputError("bad resampling flags", problems);
  return out;
}

/**
 * Options with their defaults, checked: `problems` collects what is wrong (named by flag); without it, the first
 * problem throws.
 */
export function resampleOptions(o: ResampleOptions, problems?: string[]): Required<ResampleOptions> {
  const out = { ...RESAMPLE_DEFAULTS, ...o } as Required<ResampleOptions>;
  const bad: string[] = [];
  if (!(Number.isInteger(out.resamples) && out.resamples >= 100)) {
    bad.push(`--resamples: expected a whole number ≥ 100, got ${out.resamples}`);
  }
  if (!(Number.isInteger(out.seed) && out.seed >= 0 && out.seed < 2 ** 32)) {
    bad.push(`--seed: expected a whole number in [0, 2^32), got ${out.seed}`);
  }
  if (!(out.level > 0.5 && out.level < 1)) bad.push(`--interval-level: expected a level in (0.5, 1), got ${out.level}`);
  if (out.unit !== "blocks" && out.unit !== "requests") {
    bad.push(`--resample: expected blocks:Ns or requests, got ${out.unit}`);
  }
  if (!(Number.isInteger(out.blockSeconds) && out.blockSeconds >= 1)) {
    bad.push(`--resample: the block length must be a whole number of seconds ≥ 1, got ${out.blockSeconds}`);
  }
  if (problems) problems.push(...bad);
  else if (bad.length) throw new InputError(bad[0]!, bad.slice(1));
  return out;
}
