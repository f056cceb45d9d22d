/**
 * A test that does not take requests for independent: the non-overlapping
 * block bootstrap (Carlstein 1986) over one-second blocks of scheduled time.
 *
 * Requests close in time share a batch, a queue and any stall of the
 * target, so their outcomes and latencies are correlated: a 4 s stall
 * makes dozens of requests late together. The unit resampled is therefore
 * a block — the requests scheduled in one second of a stage (seconds
 * counted from the stage's start; blocks never span two stages or runs) —
 * never a request. A sample's statistic is Σ num / Σ den over its rows
 * (a rate, or a ratio such as tokens per accepted task) or the
 * nearest-rank p-quantile of its values. Each side is resampled by its
 * own blocks, drawn with replacement as many times as it has blocks,
 * {@linkcode BLOCK_RESAMPLES} times, from mulberry32 seeded
 * {@linkcode BASELINE_SEED} (baseline) and {@linkcode LEVEL_SEED} (level).
 * The one-sided p-value is the share of resamples in which the level's
 * statistic minus the baseline's is not worse than 0 (ties and undefined
 * ratios count as not worse).
 *
 * Correlation that lasts longer than a block (a stall of several seconds)
 * still spans several blocks; the knee's persistence rule, not this test,
 * is what keeps such a transient from moving the knee.
 *
 * @module
 */
import { mulberry32 } from "../../lib/prng.ts";
import { BLOCK_MS, MIN_BLOCKS } from "../../lib/percentile_support.ts";

/**
 * Block length ({@linkcode BLOCK_MS}: one second of scheduled time) and the fewest blocks a side needs
 * ({@linkcode MIN_BLOCKS}): defined in lib/percentile_support.ts, which the runner's plan-length check reads too.
 */
export { BLOCK_MS, MIN_BLOCKS };
/** Resamples of each side. */
export const BLOCK_RESAMPLES = 1000;
/** Seed of the baseline's resamples. */
export const BASELINE_SEED = 1;
/** Seed of the level's resamples (another stream, so equal block counts are not resampled in step). */
export const LEVEL_SEED = 2;

/** Where a block lies: the index of its part (a stage of a run) in its point, and its second from the stage start. */
export interface BlockAt {
  part: number;
  second: number;
}

/** A sample in blocks: sums per block (statistic Σ num / Σ den), or values per block (statistic: the p-quantile). */
export type Blocks = RatioBlocks | QuantileBlocks;
/** Sums per block: statistic Σ num / Σ den; `rows` keeps each row's own num and den (for {@linkcode singletons}). */
export type RatioBlocks = {
  kind: "ratio";
  at: BlockAt[];
  num: Float64Array;
  den: Float64Array;
  rows: { num: Float64Array; den: Float64Array };
};
/** Values per block: statistic the nearest-rank p-quantile of their union. */
export type QuantileBlocks = { kind: "quantile"; at: BlockAt[]; p: number; values: Float64Array[] };

/** Each row's block: its part and its second. */
export interface BlockRows {
  part: ArrayLike<number>;
  second: ArrayLike<number>;
}

function group(rows: BlockRows, keep: (i: number) => boolean): { at: BlockAt[]; of: Int32Array } {
  const ids = new Map<string, number>();
  const at: BlockAt[] = [];
  const of = new Int32Array(rows.part.length).fill(-1);
  for (let i = 0; i < rows.part.length; i++) {
    if (!keep(i)) continue;
    const key = `${rows.part[i]}:${rows.second[i]}`;
    let b = ids.get(key);
    if (b === undefined) {
      b = at.length;
      ids.set(key, b);
      at.push({ part: rows.part[i]!, second: rows.second[i]! });
    }
    of[i] = b;
  }
  return { at, of };
}

/**
 * Σ num and Σ den per block over the rows kept (every row when `keep` is
 * not given); a block exists when it holds a kept row.
 *
 * @example Two blocks: 1 of 2 in second 0, 2 of 2 in second 1
 * ```ts
 * import assert from "node:assert/strict";
 * import { blockStatistic, ratioBlocks } from "./block_bootstrap.ts";
 * const b = ratioBlocks({ part: [0, 0, 0, 0], second: [0, 0, 1, 1] }, { num: [1, 0, 1, 1], den: [1, 1, 1, 1] });
 * assert.deepEqual([...b.num], [1, 2]);
 * assert.equal(blockStatistic(b), 0.75);
 * ```
 */
export function ratioBlocks(
  rows: BlockRows,
  sums: { num: ArrayLike<number>; den: ArrayLike<number>; keep?: ArrayLike<boolean> },
): RatioBlocks {
  const { at, of } = group(rows, (i) => sums.keep?.[i] ?? true);
  const num = new Float64Array(at.length), den = new Float64Array(at.length);
  const rowNum: number[] = [], rowDen: number[] = [];
  for (let i = 0; i < of.length; i++) {
    if (of[i]! < 0) continue;
    num[of[i]!]! += sums.num[i]!;
    den[of[i]!]! += sums.den[i]!;
    rowNum.push(sums.num[i]!);
    rowDen.push(sums.den[i]!);
  }
  return { kind: "ratio", at, num, den, rows: { num: Float64Array.from(rowNum), den: Float64Array.from(rowDen) } };
}

/**
 * The same sample with every row its own block (`second` = the row's
 * index): the bootstrap that takes requests for independent.
 *
 * @example Two blocks of two rows become four blocks of one
 * ```ts
 * import assert from "node:assert/strict";
 * import { ratioBlocks, singletons } from "./block_bootstrap.ts";
 * const b = ratioBlocks({ part: [0, 0, 0, 0], second: [0, 0, 1, 1] }, { num: [1, 0, 1, 1], den: [1, 1, 1, 1] });
 * assert.equal(singletons(b).at.length, 4);
 * ```
 */
export function singletons(b: Blocks): Blocks {
  if (b.kind === "ratio") {
    const at = Array.from(b.rows.num, (_, second) => ({ part: 0, second }));
    return { kind: "ratio", at, num: b.rows.num, den: b.rows.den, rows: b.rows };
  }
  const values = b.values.flatMap((v) => Array.from(v, (x) => Float64Array.of(x)));
  return { kind: "quantile", at: values.map((_, second) => ({ part: 0, second })), p: b.p, values };
}

/** The values per block (null and NaN left out; a block exists when it holds a value), for the p-quantile. */
export function quantileBlocks(rows: BlockRows, values: ArrayLike<number | null>, p: number): QuantileBlocks {
  const ok = (i: number) => values[i] !== null && !Number.isNaN(values[i]);
  const { at, of } = group(rows, ok);
  const lists: number[][] = at.map(() => []);
  for (let i = 0; i < of.length; i++) if (of[i]! >= 0) lists[of[i]!]!.push(values[i]!);
  return { kind: "quantile", at, p, values: lists.map((l) => Float64Array.from(l)) };
}

/** ⌈p·n⌉ in [1, n], with float noise at whole numbers settled (0.95 · 20 is 19). */
function nearestRank(n: number, p: number): number {
  const exact = p * n;
  return Math.min(n, Math.max(1, Math.ceil(exact - 1e-9 * Math.max(1, exact))));
}

/** The k-th smallest (0-based) of buf[0, n), by Hoare selection; reorders buf. */
function select(buf: Float64Array, n: number, k: number): number {
  let lo = 0, hi = n - 1;
  while (lo < hi) {
    const pivot = buf[(lo + hi) >>> 1]!;
    let i = lo, j = hi;
    while (i <= j) {
      while (buf[i]! < pivot) i++;
      while (buf[j]! > pivot) j--;
      if (i <= j) {
        const t = buf[i]!;
        buf[i++] = buf[j]!;
        buf[j--] = t;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return buf[k]!;
  }
  return buf[k]!;
}

/**
 * The statistic of the blocks picked (each index once per pick; every block
 * once when `picks` is not given): Σ num / Σ den (±Infinity or NaN when
 * Σ den = 0), or the nearest-rank p-quantile of the picked values.
 */
export function blockStatistic(b: Blocks, picks?: ArrayLike<number>, buf?: Float64Array): number {
  const chosen = picks ?? Array.from({ length: b.at.length }, (_, i) => i);
  if (b.kind === "ratio") {
    let num = 0, den = 0;
    for (let j = 0; j < chosen.length; j++) {
      num += b.num[chosen[j]!]!;
      den += b.den[chosen[j]!]!;
    }
    return num / den;
  }
  let n = 0;
  for (let j = 0; j < chosen.length; j++) n += b.values[chosen[j]!]!.length;
  const out = buf && buf.length >= n ? buf : new Float64Array(n);
  let w = 0;
  for (let j = 0; j < chosen.length; j++) {
    const v = b.values[chosen[j]!]!;
    out.set(v, w);
    w += v.length;
  }
  return n ? select(out, n, nearestRank(n, b.p) - 1) : NaN;
}

/** `BLOCK_RESAMPLES` statistics of `b`, each from as many blocks as it has, drawn with replacement. */
export function resampleBlocks(b: Blocks, seed: number): Float64Array {
  const rand = mulberry32(seed);
  const B = b.at.length;
  const picks = new Int32Array(B);
  const longest = b.kind === "quantile" ? Math.max(0, ...b.values.map((v) => v.length)) : 0;
  const buf = new Float64Array(B * longest);
  const out = new Float64Array(BLOCK_RESAMPLES);
  for (let r = 0; r < BLOCK_RESAMPLES; r++) {
    for (let j = 0; j < B; j++) picks[j] = Math.floor(rand() * B);
    out[r] = blockStatistic(b, picks, buf);
  }
  return out;
}

/** The 95 % percentile interval of resampled statistics (NaN left out; a non-finite end is null). */
export function percentileInterval(stats: Float64Array): [number | null, number | null] {
  const s = stats.filter((v) => !Number.isNaN(v)).sort();
  if (!s.length) return [null, null];
  const lo = s[Math.floor(0.025 * s.length)]!, hi = s[Math.ceil(0.975 * s.length) - 1]!;
  return [Number.isFinite(lo) ? lo : null, Number.isFinite(hi) ? hi : null];
}

/** The result of {@linkcode blockBootstrapTest}. */
export interface BlockTest {
  /** Share of resamples in which level − baseline is not worse than 0. */
  p_value: number;
  /** 95 % percentile intervals of each side's resampled statistic. */
  level_ci: [number | null, number | null];
  baseline_ci: [number | null, number | null];
  blocks: { level: number; baseline: number };
}

/**
 * One-sided block-bootstrap test that the level is worse than the baseline
 * (see the module doc); null when either side has fewer than
 * {@linkcode MIN_BLOCKS} blocks.
 */
export function blockBootstrapTest(base: Blocks, level: Blocks, worse: "higher" | "lower"): BlockTest | null {
  if (base.at.length < MIN_BLOCKS || level.at.length < MIN_BLOCKS) return null;
  const b = resampleBlocks(base, BASELINE_SEED), l = resampleBlocks(level, LEVEL_SEED);
  let notWorse = 0;
  for (let r = 0; r < BLOCK_RESAMPLES; r++) {
    const d = l[r]! - b[r]!;
    if (!(worse === "higher" ? d > 0 : d < 0)) notWorse++;
  }
  return {
    p_value: notWorse / BLOCK_RESAMPLES,
    level_ci: percentileInterval(l),
    baseline_ci: percentileInterval(b),
    blocks: { level: level.at.length, baseline: base.at.length },
  };
}

/** The blocks whose own statistic lies beyond `threshold` on the worse side, in part then second order. */
export function blocksBeyond(b: Blocks, threshold: number, worse: "higher" | "lower"): BlockAt[] {
  const out = b.at.filter((_, i) => {
    const v = blockStatistic(b, [i]);
    return worse === "higher" ? v > threshold : v < threshold;
  });
  return out.sort((x, y) => x.part - y.part || x.second - y.second);
}

/**
 * Consecutive seconds merged into spans [from_s, to_s) per part.
 *
 * @example Seconds 3, 4, 5 and 9 of one stage
 * ```ts
 * import assert from "node:assert/strict";
 * import { secondSpans } from "./block_bootstrap.ts";
 * const at = [3, 4, 5, 9].map((second) => ({ part: 0, second }));
 * assert.deepEqual(secondSpans(at), [{ part: 0, from_s: 3, to_s: 6 }, { part: 0, from_s: 9, to_s: 10 }]);
 * ```
 */
export function secondSpans(at: BlockAt[]): { part: number; from_s: number; to_s: number }[] {
  const out: { part: number; from_s: number; to_s: number }[] = [];
  for (const a of at) {
    const last = out.at(-1);
    if (last && last.part === a.part && last.to_s === a.second) last.to_s++;
    else out.push({ part: a.part, from_s: a.second, to_s: a.second + 1 });
  }
  return out;
}
