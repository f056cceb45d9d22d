/**
 * A departure must persist to count for the knee, and a goodput dip that
 * does not persist stays off the Kneedle curve: what a transient (a stall
 * of a few seconds in one step) cannot do is move the knee.
 *
 * @module
 */
import { sig } from "../../lib/number_format.ts";
import { blocksBeyond, secondSpans } from "./block_bootstrap.ts";
import type { Departure, Persistence } from "./departure.ts";
import type { Level } from "./repeats.ts";

export type { Persistence };

/** The rule, in words, for the disclosure and the docs. */
export const PERSISTENCE_RULE =
  "a degraded departure counts for the knee only when it persists: the next higher level where the signal has data " +
  "also departs on it (degraded), or at least two repeats of the level each depart on their own; a departure at the " +
  "highest level with data, which nothing can confirm, counts (the conservative choice: it can only lower the knee " +
  "to the highest rate tested, never below it) and is marked last_level, unless the level's repeats could have " +
  "confirmed it and did not; any other degraded departure is a transient: reported with its level, stage times and " +
  "the seconds where the signal was out of line, and not counted";

/** A degraded departure that did not persist. */
export interface Transient {
  signal: string;
  planned_rps: number;
  offered_rps: number;
  value: number | null;
  baseline: number | null;
  threshold: number | null;
  /** The departure's own evidence. */
  evidence: string;
  /** Why it is not confirmed. */
  why: string;
  /** Each stage of the level: its span (run ms) and the seconds from its start where the signal was out of line. */
  where: {
    run_id: string;
    stage: string;
    start_ms: number;
    end_ms: number;
    /** [from_s, to_s) spans whose own one-second value is beyond the threshold; null for a signal without blocks. */
    out_of_line_s: [number, number][] | null;
  }[];
}

/**
 * Each departure with its {@linkcode Persistence} when degraded (see
 * {@linkcode PERSISTENCE_RULE}); `levels` are the levels the departures
 * belong to, in order, and `repeatsAt(i)` the departures of level i's
 * repeats judged one by one (asked only for degraded levels with repeats).
 */
export function persist(
  departures: Departure[],
  levels: Level[],
  repeatsAt: (i: number) => Departure[],
): Departure[] {
  return departures.map((d, i) => {
    if (d.verdict !== "degraded") return d;
    const j = departures.findIndex((x, k) => k > i && x.verdict !== "no data");
    const next = j < 0 ? null : departures[j]!;
    if (next?.verdict === "degraded") {
      const why = `the next level with data (${sig(next.planned_rps)} req/s) also departs`;
      return { ...d, persistence: { status: "confirmed", by: "next_level", why } };
    }
    const repeats = levels[i]!.repeats.length;
    let own = 0;
    if (repeats > 1) {
      own = repeatsAt(i).filter((r) => r.verdict === "degraded").length;
      if (own >= 2) {
        const why = `${own} of ${repeats} repeats of the level each depart on their own`;
        return { ...d, persistence: { status: "confirmed", by: "repeats", why } };
      }
    }
    const alone = repeats > 1 ? `; ${own} of ${repeats} repeats depart on their own (2 would confirm it)` : "";
    if (!next && repeats < 2) {
      const why = "the highest level with data for this signal: no level above can confirm it, so it counts " +
        "(conservative); a repeat of this level or a higher level would confirm or clear it";
      return { ...d, persistence: { status: "last_level", by: null, why } };
    }
    const why = next
      ? `the next level with data (${
        sig(next.planned_rps)
      } req/s) does not depart (${next.verdict}: ${next.why})${alone}`
      : `no level above has data for this signal${alone}`;
    return { ...d, persistence: { status: "transient", by: null, why } };
  });
}

/** The transients among a signal's departures, with where they happened. */
export function transientsOf(signal: string, departures: Departure[], levels: Level[]): Transient[] {
  return departures.flatMap((d, i) => {
    if (d.persistence?.status !== "transient") return [];
    const point = levels[i]!.pooled;
    const blocks = point.blocks[signal];
    const beyond = blocks && d.threshold !== null ? blocksBeyond(blocks, d.threshold, worseOf(d)) : null;
    const spans = beyond ? secondSpans(beyond) : null;
    return [{
      signal,
      planned_rps: d.planned_rps,
      offered_rps: d.offered_rps,
      value: d.value,
      baseline: d.baseline,
      threshold: d.threshold,
      evidence: d.why,
      why: d.persistence.why,
      where: point.parts.map((p, k) => ({
        run_id: p.run_id,
        stage: p.stage,
        start_ms: p.start_ms,
        end_ms: p.end_ms,
        out_of_line_s: spans
          ? spans.filter((s) => s.part === k).map((s) => [s.from_s, s.to_s] as [number, number])
          : null,
      })),
    }];
  });
}

/** A degraded departure is beyond its threshold on the worse side: above it when its value is. */
const worseOf = (d: Departure): "higher" | "lower" => (d.value! > d.threshold! ? "higher" : "lower");

/** A level left off the Kneedle curve. */
export interface GoodputDip {
  offered_rps: number;
  accepted_goodput: number;
  why: string;
}

/**
 * The points of an accepted-goodput curve (ascending x) that dip without
 * persisting: a level whose goodput is below that of some lower level,
 * while some higher level is back at least at that lower level's goodput.
 * The service delivered more at a higher load, so the dip was not its
 * capacity (a stall, a burst of errors); Kneedle reads the curve without
 * it. A drop that lasts to the highest level is kept: that is a collapse.
 *
 * @example (4, 3.2) dips below (2, 2)? No; (6, 1.5) does, and (8, 8) is back above 3.2
 * ```ts
 * import assert from "node:assert/strict";
 * import { goodputDips } from "./persistence.ts";
 * assert.deepEqual(goodputDips([2, 4, 6, 8], [2, 3.2, 1.5, 8]).map((d) => d.index), [2]);
 * assert.deepEqual(goodputDips([2, 4, 6], [2, 3.2, 1.5]), []);
 * ```
 */
export function goodputDips(x: number[], y: number[]): (GoodputDip & { index: number })[] {
  const out: (GoodputDip & { index: number })[] = [];
  for (let i = 1; i < y.length - 1; i++) {
    const before = Math.max(...y.slice(0, i)), after = Math.max(...y.slice(i + 1));
    if (!(y[i]! < before && after >= before)) continue;
    out.push({
      index: i,
      offered_rps: x[i]!,
      accepted_goodput: y[i]!,
      why: `accepted goodput ${sig(y[i]!)} /s is below ${sig(before)} /s at ${sig(x[y.indexOf(before)]!)} req/s, ` +
        `and ${sig(after)} /s at ${sig(x[y.indexOf(after, i + 1)]!)} req/s is back at or above it: a dip that did ` +
        "not persist",
    });
  }
  return out;
}
