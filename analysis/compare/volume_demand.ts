/**
 * The planned demand a volume costing answers for: accepted tasks per second at peak, and either a monthly volume or
 * a daily profile (24 hourly fractions of the peak), with the redundancy the user states. The flags that give it, and
 * their parser: every problem is reported at once, each naming its flag.
 *
 * @module
 */
import { InputError } from "../../schema/errors.ts";

/** Hours in the month every monthly figure uses: 365 × 24 / 12 = 730 (an average month, not a calendar one). */
export const HOURS_PER_MONTH = 730;
/** Seconds in that month. */
export const SECONDS_PER_MONTH = HOURS_PER_MONTH * 3600;

/** A demand to cost: what the user plans, never measured. */
export interface PlannedDemand {
  /** Accepted tasks per second at the peak hour. */
  peak_accepted_rps: number;
  /** Accepted tasks per month ({@linkcode HOURS_PER_MONTH} hours): stated, or implied by the profile. */
  monthly_accepted: number;
  /** 24 hourly fractions of the peak (hour 0 first, max 1), or null when a monthly volume was stated instead. */
  profile: number[] | null;
  /** Which flag gave the monthly volume. */
  monthly_from: "--monthly" | "--profile";
  /** Spare replicas on every self-hosted route (N+1 = 1); null: each price sheet's `redundancy_replicas`. */
  redundancy: number | null;
  /** Cost a demand above every route's measured capacity anyway (marked EXTRAPOLATION). */
  extrapolate: boolean;
}

/** The flags of a volume costing as the CLI parser gives them (text, before any check). */
export interface VolumeFlagValues {
  demand?: string;
  monthly?: string;
  profile?: string;
  redundancy?: string;
  extrapolate?: boolean;
}

/** Flag declarations (lib/command.ts `FlagSpec`) of the volume costing, for the command that offers it. */
export const VOLUME_FLAGS = {
  demand: {
    type: "string",
    arg: "RATE",
    values: "accepted tasks per second at peak, > 0: `8`, `8/s`, or per minute `480/min`",
    description: "the planned peak demand: cost each route at this volume (replicas, quota, monthly cost)",
  },
  monthly: {
    type: "string",
    arg: "N",
    values: "accepted tasks per month (730 h), > 0, at most peak × 2 628 000 s: `10000000`, `10M`, `2.5k`, `1e7`",
    description: "the planned monthly volume (with `--demand`; or give `--profile`)",
  },
  profile: {
    type: "string",
    arg: "FRACTIONS|FILE",
    values: "24 hourly fractions of the peak (hour 0 first), each in [0, 1], the largest exactly 1, separated by " +
      "commas or white space (`#` starts a comment), or a JSON array of them; inline or a file holding them",
    description: "the planned daily profile (with `--demand`; instead of `--monthly`): gives the monthly volume and " +
      "the idle time of self-hosted replicas hour by hour",
  },
  redundancy: {
    type: "string",
    arg: "N",
    values: "a whole number ≥ 0 (N+1 = 1)",
    defaultText: "each price sheet's `redundancy_replicas`",
    description: "spare replicas kept on every self-hosted route, replacing the price sheet's `redundancy_replicas`",
  },
  extrapolate: {
    type: "boolean",
    description: "cost a demand above every route's measured capacity anyway; the answer says EXTRAPOLATION and " +
      "from what",
  },
} as const;

const SUFFIX: Record<string, number> = { "": 1, k: 1e3, K: 1e3, M: 1e6, G: 1e9, B: 1e9 };

/** A plain decimal (or exponent) number, else NaN: `Number("")` and `Number(" ")` are 0, not errors. */
function decimal(text: string): number {
  return /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(text) ? Number(text) : NaN;
}

/** `8`, `8/s`, `480/min` → accepted tasks/s; NaN when it is none of these. */
export function parseRate(text: string): number {
  const m = /^\s*([^/\s]+)\s*(?:\/\s*(s|sec|second|min|minute))?\s*$/.exec(text);
  if (!m) return NaN;
  const v = decimal(m[1]!);
  return m[2]?.startsWith("m") ? v / 60 : v;
}

/** `10000000`, `10M`, `2.5k`, `1e7` → the count; NaN when it is none of these. */
export function parseCount(text: string): number {
  const m = /^\s*([^a-zA-Z\s]+(?:[eE][+-]?\d+)?)\s*([kKMGB]?)\s*$/.exec(text);
  return m ? decimal(m[1]!) * SUFFIX[m[2]!]! : NaN;
}

/**
 * A daily profile's text: 24 numbers separated by commas or white space (`#` to the end of a line is a comment), or
 * a JSON array of numbers. Returns the numbers and every problem with them (`where` names the flag or the file).
 */
export function parseProfileText(text: string, where: string): { values: number[]; problems: string[] } {
  const t = text.trim();
  let cells: unknown[];
  if (t.startsWith("[")) {
    try {
      const v = JSON.parse(t);
      cells = Array.isArray(v) ? v : [v];
    } catch (e) {
      return { values: [], problems: [`${where}: not a JSON array (${(e as Error).message})`] };
    }
  } else {
    cells = t.split("\n").map((l) => l.replace(/#.*$/, "")).join(" ").split(/[\s,]+/).filter((c) => c !== "");
  }
  const problems: string[] = [];
  const values = cells.map((c, i) => {
    const v = typeof c === "number" ? c : typeof c === "string" ? decimal(c) : NaN;
    if (!Number.isFinite(v)) problems.push(`${where}: hour ${i} is not a number: ${JSON.stringify(c)}`);
    else if (v < 0 || v > 1) problems.push(`${where}: hour ${i} is ${v}, expected a fraction of the peak in [0, 1]`);
    return v;
  });
  if (cells.length !== 24) problems.push(`${where}: expected 24 hourly fractions, got ${cells.length}`);
  else if (!problems.length && Math.max(...values) !== 1) {
    problems.push(
      `${where}: the largest hourly fraction is ${Math.max(...values)}; the peak hour must be 1 (the fractions are ` +
        `of the peak --demand)`,
    );
  }
  return { values, problems };
}

/**
 * The planned demand from the flags' text. `--demand` is required with exactly one of `--monthly` and `--profile`;
 * a `--profile` value that is not a list of numbers is read as a file with `readText`. Throws one
 * {@linkcode InputError} listing every problem, each naming its flag.
 *
 * @example Ten million tasks a month at a peak of 8 tasks/s, N+1
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseVolumeFlags } from "./volume_demand.ts";
 * const d = parseVolumeFlags({ demand: "8/s", monthly: "10M", redundancy: "1" });
 * assert.equal(d.peak_accepted_rps, 8);
 * assert.equal(d.monthly_accepted, 1e7);
 * assert.equal(d.redundancy, 1);
 * assert.throws(() => parseVolumeFlags({ demand: "0", monthly: "10M" }), /--demand/);
 * ```
 */
export function parseVolumeFlags(
  flags: VolumeFlagValues,
  readText: (path: string) => string = (p) => Deno.readTextFileSync(p),
): PlannedDemand {
  const problems: string[] = [];
  const peak = flags.demand === undefined ? NaN : parseRate(flags.demand);
  if (flags.demand === undefined) problems.push("--demand: required (accepted tasks per second at peak, e.g. 8/s)");
  else if (!(peak > 0) || !Number.isFinite(peak)) {
    problems.push(
      `--demand: expected accepted tasks per second at peak > 0 (8, 8/s or 480/min), got "${flags.demand}"`,
    );
  }
  let redundancy: number | null = null;
  if (flags.redundancy !== undefined) {
    const r = decimal(flags.redundancy.trim());
    if (!Number.isInteger(r) || r < 0) {
      problems.push(`--redundancy: expected a whole number of spare replicas ≥ 0, got "${flags.redundancy}"`);
    } else redundancy = r;
  }
  let profile: number[] | null = null;
  let monthly = NaN;
  if ((flags.monthly === undefined) === (flags.profile === undefined)) {
    problems.push(
      flags.monthly === undefined
        ? "--monthly or --profile: one is required (the monthly volume, or the daily profile that implies it)"
        : "--monthly and --profile: give one, not both (the profile implies the monthly volume)",
    );
  } else if (flags.monthly !== undefined) {
    monthly = parseCount(flags.monthly);
    if (!(monthly > 0) || !Number.isFinite(monthly)) {
      problems.push(`--monthly: expected accepted tasks per month > 0 (10000000, 10M, 1e7), got "${flags.monthly}"`);
    } else if (peak > 0 && monthly > peak * SECONDS_PER_MONTH * (1 + 1e-12)) {
      problems.push(
        `--monthly: ${monthly} accepted tasks a month is more than the peak (--demand ${peak}/s) held all month ` +
          `(${peak} × ${SECONDS_PER_MONTH} s = ${peak * SECONDS_PER_MONTH})`,
      );
    }
  } else {
    const value = flags.profile!;
    const inline = /^[\s\d.,eE+\-#[\]]*$/.test(value) && /\d/.test(value);
    let text = value, where = "--profile";
    if (!inline) {
      where = `--profile ${value}`;
      try {
        text = readText(value);
      } catch (e) {
        problems.push(`${where}: cannot read the file (${(e as Error).message})`);
        text = "";
      }
    }
    if (text !== "" || inline) {
      const p = parseProfileText(text, where);
      problems.push(...p.problems);
      if (!p.problems.length) profile = p.values;
    }
  }
  if (problems.length) throw new InputError("bad planned demand", problems);
  if (profile) monthly = peak * 3600 * profile.reduce((s, f) => s + f, 0) * HOURS_PER_MONTH / 24;
  return {
    peak_accepted_rps: peak,
    monthly_accepted: monthly,
    profile,
    monthly_from: profile ? "--profile" : "--monthly",
    redundancy,
    extrapolate: flags.extrapolate ?? false,
  };
}
