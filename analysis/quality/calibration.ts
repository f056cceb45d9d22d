import { textTable } from "../../lib/text_table.ts";
import type { QualityRow } from "../../schema/quality.ts";
import { type ConfusionMatrix, confusionMatrix } from "./binary_rates.ts";
import { humanConsensus } from "./consensus.ts";

/** A judge against the people on one set of items: the counts, Se and Sp with Wilson intervals, kappa with its bootstrap. */
export interface CalibrationCell extends ConfusionMatrix {
  /** The class, or null for the calibration pooled over every class. */
  class: string | null;
}

/** A judge model measured against the human consensus, per class and pooled. */
export interface JudgeCalibration {
  /** The judge model (`judge:<model>` in the quality table). */
  judge: string;
  /** Per class with at least one calibration item, sorted by class. */
  by_class: CalibrationCell[];
  /** Every class's items together. */
  pooled: CalibrationCell;
  /** Items the judge scored whose raters disagree and nobody adjudicated: left out, per class. */
  unresolved: Record<string, number>;
  /** Two-sided level of every interval. */
  level: number;
}

/** Options of {@linkcode judgeCalibration}. */
export interface JudgeCalibrationOptions {
  /** Two-sided confidence level of the Wilson and bootstrap intervals. @default 0.95 */
  level?: number;
  /** Bootstrap resamples of kappa's interval. @default 2000 */
  resamples?: number;
  /** Seed of kappa's resamples. @default 1 */
  seed?: number;
}

/**
 * A judge calibrated against people: on every item of the run with both a human consensus that is settled (agreed or
 * adjudicated, `humanConsensus`) and a `judge:<judge>` verdict — whatever its latency or other gates: the judge's
 * error is a property of the judge on answers — the confusion matrix (truth = the consensus, pass = positive),
 * sensitivity and specificity with Wilson intervals, and Cohen's kappa with its seeded bootstrap interval
 * (`confusionMatrix`), per class and pooled. Items whose raters disagree unresolved are left out and counted.
 *
 * @example A judge that passes one failing answer of four
 * ```ts
 * import assert from "node:assert/strict";
 * import { judgeCalibration } from "./calibration.ts";
 * const v = (request_id: string, source: string, pass: boolean) => ({
 *   run_id: "r", request_id, source, rubric_id: "x", rubric_sha256: "0".repeat(64), scores: "{}", pass,
 *   rationale: null, time_spent_ms: null, judged_epoch_ms: 0, input_tokens: null, output_tokens: null, calls: null,
 * });
 * const truth = { a: true, b: true, c: false, d: false };
 * const judged = { a: true, b: true, c: true, d: false };
 * const rows = Object.keys(truth).flatMap((id) => [
 *   v(id, "human:ann", truth[id as keyof typeof truth]), v(id, "judge:m", judged[id as keyof typeof judged]),
 * ]);
 * const c = judgeCalibration({ rows, class_of: new Map(Object.keys(truth).map((id) => [id, "qa"])) }, "m");
 * // tp 2, fn 0, tn 1, fp 1: Se = 2/2, Sp = 1/2; p_o = 3/4, p_e = (2/4)(3/4) + (2/4)(1/4) = 1/2 → κ = 0.25/0.5 = 0.5
 * assert.deepEqual([c.pooled.tp, c.pooled.fn, c.pooled.tn, c.pooled.fp], [2, 0, 1, 1]);
 * assert.equal(c.pooled.specificity.estimate, 0.5);
 * assert.ok(Math.abs(c.pooled.kappa.kappa! - 0.5) < 1e-12);
 * ```
 */
export function judgeCalibration(
  quality: { rows: readonly QualityRow[]; class_of: ReadonlyMap<string, string> },
  judge: string,
  options: JudgeCalibrationOptions = {},
): JudgeCalibration {
  const level = options.level ?? 0.95;
  const opts = { level, resamples: options.resamples ?? 2000, seed: options.seed ?? 1 };
  const consensus = humanConsensus(quality.rows);
  const source = `judge:${judge}`;
  const pairs = new Map<string, { truth: boolean; judged: boolean }[]>();
  const unresolved: Record<string, number> = {};
  for (const r of quality.rows) {
    if (r.source !== source) continue;
    const c = consensus.get(r.request_id);
    const cls = quality.class_of.get(r.request_id) ?? "(unknown)";
    if (!c) continue;
    if (c.pass === null) {
      unresolved[cls] = (unresolved[cls] ?? 0) + 1;
      continue;
    }
    const list = pairs.get(cls) ?? [];
    list.push({ truth: c.pass, judged: r.pass });
    pairs.set(cls, list);
  }
  const classes = [...pairs.keys()].sort();
  const by_class = classes.map((cls) => ({ class: cls, ...confusionMatrix(pairs.get(cls)!, opts) }));
  // Items in class order, then table order: the bootstrap's draws depend on the order, so it is fixed.
  const pooled = { class: null, ...confusionMatrix(classes.flatMap((cls) => pairs.get(cls)!), opts) };
  return { judge, by_class, pooled, unresolved, level };
}

/**
 * A calibration as an aligned text table, one row per class and one pooled: the confusion matrix's counts (truth = the
 * human consensus, pass = positive), sensitivity and specificity with their Wilson intervals, Cohen's kappa with its
 * bootstrap interval, n; then the items left out as unresolved.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatJudgeCalibration, judgeCalibration } from "./calibration.ts";
 * const v = (request_id: string, source: string, pass: boolean) => ({
 *   run_id: "r", request_id, source, rubric_id: "x", rubric_sha256: "0".repeat(64), scores: "{}", pass,
 *   rationale: null, time_spent_ms: null, judged_epoch_ms: 0, input_tokens: null, output_tokens: null, calls: null,
 * });
 * const rows = [v("a", "human:ann", true), v("a", "judge:m", true), v("b", "human:ann", false), v("b", "judge:m", true)];
 * const text = formatJudgeCalibration(judgeCalibration({ rows, class_of: new Map([["a", "qa"], ["b", "qa"]]) }, "m", { resamples: 10 }));
 * // tp 1, fn 0, tn 0, fp 1: Se = 1/1, Sp = 0/1
 * assert.match(text, /qa\s+1\s+1\s+0\s+0\s+1\.000 \[/);
 * ```
 */
export function formatJudgeCalibration(c: JudgeCalibration): string {
  const f = (x: number | null) => (x === null ? "-" : x.toFixed(3));
  const rate = (r: { estimate: number | null; low: number; high: number }) =>
    r.estimate === null ? "- (no item)" : `${f(r.estimate)} [${f(r.low)}, ${f(r.high)}]`;
  const body = [...c.by_class, c.pooled].map((cell) => [
    cell.class ?? "pooled",
    String(cell.tp),
    String(cell.fp),
    String(cell.tn),
    String(cell.fn),
    rate(cell.sensitivity),
    rate(cell.specificity),
    cell.kappa.kappa === null
      ? "undefined"
      : `${f(cell.kappa.kappa)}${
        cell.kappa.ci.low === null ? "" : ` [${f(cell.kappa.ci.low)}, ${f(cell.kappa.ci.high)}]`
      }`,
    String(cell.n),
  ]);
  const left = Object.entries(c.unresolved).map(([cls, n]) => `${cls} ${n}`);
  return [
    `judge ${c.judge} against the human consensus (truth = the consensus, pass = positive; Se, Sp: Wilson; kappa: ` +
    `percentile bootstrap; ${c.level * 100} % intervals)`,
    ...textTable(["class", "tp", "fp", "tn", "fn", "sensitivity", "specificity", "kappa", "n"], body),
    `left out, the raters disagreeing unresolved: ${left.length ? left.join(", ") : "none"}`,
  ].join("\n");
}
