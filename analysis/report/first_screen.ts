/**
 * The first screen of the report and of every command, as MLPerf LoadGen's
 * summary reads: one verdict line, the headline numbers, then one line per
 * caveat (its severity, what it changes, where its detail is). The verdict is
 * `VALID` unless a caveat is INVALID; then it names each such status
 * (`INCOMPLETE RUN`, `NO CAPACITY`, `CLIENT-LIMITED`) and what it does to the
 * numbers. The long texts stay in the JSON and in the detail.
 *
 * @module
 */
import { sig } from "../../lib/number_format.ts";
import type { GoodputResult } from "../goodput/goodput.ts";
import { rateText } from "../knee/limit.ts";
import { type Caveat, verdictLineCaveat } from "./caveats.ts";
import { oneLine } from "./caveat_line.ts";

/** The verdict of a first screen: its status word(s) and its one line. */
export interface Verdict {
  /** `VALID`, or the INVALID caveats' labels joined by " + " (`INCOMPLETE RUN + CLIENT-LIMITED`). */
  status: string;
  /** At most {@linkcode VERDICT_MAX} characters, the status first. */
  line: string;
}

/** The longest verdict line, characters (it is set larger than the caveats' lines). */
export const VERDICT_MAX = 120;

/** What each INVALID status does to the numbers, in a few words. */
const CONSEQUENCE: Record<string, string> = {
  "INCOMPLETE RUN": "stopped early; windows end at the first censored request",
  "NO CAPACITY": "nothing was accepted: no capacity to derive",
  "CLIENT-LIMITED": "the load generator may have shaped these numbers",
};

/**
 * The verdict over a first screen's caveats: `VALID: no verdict against these numbers` (with how many caveats follow),
 * or each INVALID caveat's status and what it does to the numbers.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { verdictLineCaveat } from "./caveats.ts";
 * import { verdictOf } from "./first_screen.ts";
 * assert.equal(verdictOf([]).line, "VALID: no verdict against these numbers");
 * const v = verdictOf([verdictLineCaveat("NO CAPACITY: no capacity can be derived from this run: 0 of 40 offered")]);
 * assert.equal(v.line, "NO CAPACITY: nothing was accepted: no capacity to derive");
 * ```
 */
export function verdictOf(caveats: readonly Caveat[]): Verdict {
  const invalid = [...new Set(caveats.filter((c) => c.level === "INVALID").map((c) => c.label))];
  if (!invalid.length) {
    const n = caveats.length;
    return {
      status: "VALID",
      line: `VALID: no verdict against these numbers${n ? `; ${n} caveat${n === 1 ? "" : "s"} below` : ""}`,
    };
  }
  const status = invalid.join(" + ");
  const what = invalid.map((l) => CONSEQUENCE[l] ?? "see below").join("; ");
  return { status, line: oneLine(`${status}: ${what}`, VERDICT_MAX) };
}

/** A caveat's line for a terminal: severity, the line, the docs anchor. */
export function caveatText(c: Caveat): string {
  return `${c.level.padEnd(7)} ${c.line} [${c.docs}]`;
}

/**
 * A command's first screen: the verdict line, the headline lines, one line per caveat (severity, line, docs anchor).
 *
 * @example A valid run: the verdict, the numbers, nothing else
 * ```ts
 * import assert from "node:assert/strict";
 * import { firstScreenText } from "./first_screen.ts";
 * assert.deepEqual(firstScreenText([], ["accepted goodput 5 tasks/s"]), [
 *   "VALID: no verdict against these numbers",
 *   "accepted goodput 5 tasks/s",
 * ]);
 * ```
 */
export function firstScreenText(caveats: readonly Caveat[], headline: readonly string[]): string[] {
  return [verdictOf(caveats).line, ...headline, ...caveats.map(caveatText)];
}

/**
 * The whole text of each caveat whose line does not hold it (cut, or summed up): the end of a command's output, after
 * the numbers. Empty when every line said it all.
 */
export function caveatDetailText(caveats: readonly Caveat[]): string[] {
  const whole = (c: Caveat) => (c.text.startsWith(c.label) ? c.text : `${c.label}: ${c.text}`);
  const cut = caveats.filter((c) => c.line !== whole(c));
  return cut.length ? ["", "caveats in full:", ...cut.map((c) => `${c.level} ${whole(c)}`)] : [];
}

/** The caveats of a command's verdict lines (`runVerdicts(...).lines`, `kneeVerdicts`), INVALID first. */
export function linesCaveats(lines: readonly string[]): Caveat[] {
  const all = lines.map((l) => verdictLineCaveat(l));
  const rank = { INVALID: 0, WARNING: 1, NOTE: 2 } as const;
  return all.map((c, i) => ({ c, i })).sort((a, b) => rank[a.c.level] - rank[b.c.level] || a.i - b.i).map((x) => x.c);
}

/** The goodput headline in one line: the figure with its numerator, seconds, window, denominator and n. */
export function goodputHeadline(g: GoodputResult): string {
  const o = g.overall, d = g.disclosure, e = o.estimate;
  // An estimate (a class's quality known on a sample) carries its interval.
  const between = (lo: number | null, hi: number | null) => (e ? ` [${sig(lo)}, ${sig(hi)}]` : "");
  return `accepted goodput ${sig(o.accepted_goodput)}${
    between(e?.accepted_goodput_low ?? null, e?.accepted_goodput_high ?? null)
  } ` +
    `tasks/s = ${e ? `≈${sig(o.accepted)}` : o.accepted} accepted / ${sig(o.measurement_seconds)} s (window ${
      d.window.stages.join("+")
    }); acceptance ${sig(o.acceptance_rate)}${
      between(e?.acceptance_rate_low ?? null, e?.acceptance_rate_high ?? null)
    } of ${o.offered} offered (denominator ${d.denominator}${e ? `; ${e.level * 100} % interval` : ""})`;
}

/** The knee and the production limit in one line, rates rounded down as everywhere (`rateText`). */
export function kneeHeadline(
  knee: { offered_rps: number; signal: string | null } | null,
  limit: { headroom: number | null; limit_rps: number | null },
  none: string,
): string {
  if (!knee) return `knee: none (${none}); production limit: none`;
  const k = `knee ${rateText(knee.offered_rps)}${knee.signal ? ` (first degrading: ${knee.signal})` : ""}`;
  const l = limit.headroom === null
    ? "production limit: not applied (no --headroom)"
    : limit.limit_rps === null
    ? `production limit: none at headroom ${limit.headroom}`
    : `production limit ${rateText(limit.limit_rps)} = knee × (1 − ${limit.headroom})`;
  return `${k}; ${l}`;
}
