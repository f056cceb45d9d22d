/**
 * The statistics of the wait breakdown over its per-task frame: per group (a population of one class, or of all),
 * each segment's n, mean and pooled share, mean, median and p95 ms, and the wait outside the model server. Read
 * column by column (typed arrays and index lists), never row objects: a million tasks stay cheap.
 *
 * @module
 */
import pl from "nodejs-polars";
import { selectPercentile } from "./percentile.ts";
import { WAIT_SEGMENTS, type WaitSegment } from "./_wait_intervals.ts";

/** The per-task frame's columns. */
export interface WaitColumns {
  cls: string[];
  accepted: boolean[];
  e2e: Float64Array;
  ms: Record<WaitSegment, Float64Array>;
  has: Record<WaitSegment, boolean[]>;
}

/** The columns of `waitBreakdown`'s per-task frame. */
export function waitColumns(perTask: pl.DataFrame): WaitColumns {
  // Typed arrays straight from polars: floats as Float64, booleans (null: false) as UInt8.
  const bools = ["accepted", ...WAIT_SEGMENTS.map((s) => `has_${s}`)];
  const typed = perTask.select(
    ...["e2e_ms", ...WAIT_SEGMENTS.map((s) => `${s}_ms`)].map((c) => pl.col(c).cast(pl.Float64).fillNull(0)),
    ...bools.map((c) => pl.col(c).fillNull(false).cast(pl.UInt8)),
  );
  const num = (c: string) => typed.getColumn(c).toTypedArray() as Float64Array;
  const bool = (c: string) => Array.from(typed.getColumn(c).toTypedArray() as Uint8Array, (v) => v === 1);
  return {
    cls: perTask.getColumn("class").toArray() as string[],
    accepted: bool("accepted"),
    e2e: num("e2e_ms"),
    ms: Object.fromEntries(WAIT_SEGMENTS.map((s) => [s, num(`${s}_ms`)])) as Record<WaitSegment, Float64Array>,
    has: Object.fromEntries(WAIT_SEGMENTS.map((s) => [s, bool(`has_${s}`)])) as Record<WaitSegment, boolean[]>,
  };
}

/** The statistics of one segment (or of e2e, or of the wait outside the model) over a group. */
export interface Stats {
  n: number;
  mean_share: number | null;
  pooled_share: number | null;
  mean_ms: number | null;
  median_ms: number | null;
  p95_ms: number | null;
}

/**
 * The statistics of `value(i)` over the group's tasks `idx` for which `counted(i)`: n, the mean of value / e2e over
 * those with e2e > 0, Σ value / Σ e2e over the whole group (`totalE2e`), mean, and nearest-rank median and p95.
 */
export function stats(
  idx: readonly number[],
  c: WaitColumns,
  value: (i: number) => number,
  counted: (i: number) => boolean,
  totalE2e: number,
): Stats {
  const xs = new Float64Array(idx.length);
  let n = 0, sum = 0, shares = 0, timed = 0;
  for (const i of idx) {
    if (!counted(i)) continue;
    const v = value(i);
    xs[n++] = v;
    sum += v;
    if (c.e2e[i]! > 0) {
      shares += v / c.e2e[i]!;
      timed++;
    }
  }
  const values = xs.subarray(0, n);
  return {
    n,
    mean_share: timed ? shares / timed : null,
    pooled_share: n && totalE2e > 0 ? sum / totalE2e : null,
    mean_ms: n ? sum / n : null,
    // Nearest rank by selection (a sort of a million values is the slowest step otherwise).
    median_ms: n ? selectPercentile(values, 0.5) : null,
    p95_ms: n ? selectPercentile(values, 0.95) : null,
  };
}
