import { textTable } from "../../lib/text_table.ts";
import { type QualityRow, sourceKind } from "../../schema/quality.ts";
import type { Rubric } from "../../schema/rubric.ts";
import { type Consensus, humanConsensus } from "./consensus.ts";

/** One item two or more raters scored differently, read from the quality table. */
export interface RaterDisagreement {
  request_id: string;
  class: string;
  rubric_id: string;
  /** `pass` when the raters' verdicts differ, then each criterion whose scores differ, in the rubric's order. */
  differs_on: string[];
  /** Each rater's verdict, scores and rationale (their notes), by rater name. */
  ratings: { rater: string; pass: boolean; scores: Record<string, number>; rationale: string | null }[];
  /** The item's human consensus (`humanConsensus`): adjudicated, agreed (the verdicts agree) or disagreed. */
  consensus: Consensus;
}

/** The disagreement record of a run's quality table. */
export interface RaterDisagreementRecord {
  /** Items with verdicts of two or more raters. */
  compared: number;
  /** Of them, those whose raters' verdicts differ. */
  differ_on_pass: number;
  /** Of those, settled by an adjudication; the rest are unresolved (left out of calibration and human acceptance). */
  adjudicated: number;
  unresolved: number;
  /** Every item whose raters differ on the verdict or on any criterion, by class then request. */
  items: RaterDisagreement[];
}

/**
 * The disagreement record of a run's quality table: every item with two or more `human:*` verdicts whose raters differ
 * on the verdict or on a criterion's score, with each rater's verdict, scores and notes, and its human consensus
 * ({@linkcode humanConsensus}: adjudicated, or unresolved when the verdicts differ and nobody adjudicated). The table's
 * counterpart of the review's `PACKET.disagreements.json`, for any run whatever packets its verdicts came from. Pure.
 *
 * @example Two raters differ on one verdict, settled by an adjudication; on another item, on a criterion only
 * ```ts
 * import assert from "node:assert/strict";
 * import { raterDisagreements } from "./rater_disagreements.ts";
 * const v = (request_id: string, source: string, ok: number, style: number) => ({
 *   run_id: "r", request_id, source, rubric_id: "x", rubric_sha256: "0".repeat(64),
 *   scores: JSON.stringify({ ok, style }), pass: ok === 1, rationale: null, time_spent_ms: null, judged_epoch_ms: 0,
 *   input_tokens: null, output_tokens: null, calls: null,
 * });
 * const rows = [
 *   v("a", "human:ann", 1, 3), v("a", "human:bob", 0, 3), v("a", "adjudicated:cy", 1, 3),
 *   v("b", "human:ann", 1, 3), v("b", "human:bob", 1, 4),
 *   v("c", "human:ann", 1, 3), v("c", "human:bob", 1, 3),
 * ];
 * const d = raterDisagreements({ rows, class_of: new Map([["a", "qa"], ["b", "qa"], ["c", "qa"]]) });
 * assert.deepEqual([d.compared, d.differ_on_pass, d.adjudicated, d.unresolved], [3, 1, 1, 0]);
 * assert.deepEqual(d.items.map((i) => [i.request_id, i.differs_on, i.consensus.status]), [
 *   ["a", ["pass", "ok"], "adjudicated"],
 *   ["b", ["style"], "agreed"],
 * ]);
 * ```
 */
export function raterDisagreements(quality: {
  rows: readonly QualityRow[];
  class_of: ReadonlyMap<string, string>;
  /** The table's rubrics by sha256 (`RunQuality.table.rubrics`): the criteria's order. Absent: the scores' order. */
  rubrics?: ReadonlyMap<string, Rubric>;
}): RaterDisagreementRecord {
  const consensus = humanConsensus(quality.rows);
  const byItem = new Map<string, QualityRow[]>();
  for (const r of quality.rows) {
    if (sourceKind(r.source) !== "human") continue;
    byItem.set(r.request_id, [...byItem.get(r.request_id) ?? [], r]);
  }
  let compared = 0, differPass = 0, adjudicated = 0;
  const items: RaterDisagreement[] = [];
  for (const [id, rows] of byItem) {
    if (rows.length < 2) continue;
    compared++;
    const ratings = rows.map((r) => ({
      rater: r.source.slice("human:".length),
      pass: r.pass,
      scores: JSON.parse(r.scores) as Record<string, number>,
      rationale: r.rationale,
    })).sort((a, b) => (a.rater < b.rater ? -1 : a.rater > b.rater ? 1 : 0));
    const criteria = quality.rubrics?.get(rows[0]!.rubric_sha256)?.criteria.map((c) => c.id) ??
      Object.keys(ratings[0]!.scores);
    const differs = criteria.filter((c) => new Set(ratings.map((r) => r.scores[c])).size > 1);
    const c = consensus.get(id)!;
    if (new Set(ratings.map((r) => r.pass)).size > 1) {
      differs.unshift("pass");
      differPass++;
      if (c.status === "adjudicated") adjudicated++;
    }
    if (!differs.length) continue;
    items.push({
      request_id: id,
      class: quality.class_of.get(id) ?? "(unknown)",
      rubric_id: rows[0]!.rubric_id,
      differs_on: differs,
      ratings,
      consensus: c,
    });
  }
  items.sort((a, b) => (a.class + "\0" + a.request_id < b.class + "\0" + b.request_id ? -1 : 1));
  return { compared, differ_on_pass: differPass, adjudicated, unresolved: differPass - adjudicated, items };
}

/**
 * The record as text: a summary line, then one row per item — class, request, what differs, each rater's verdict and
 * scores, and how it stands (adjudicated with the adjudicator's verdict, unresolved, or the verdicts agree).
 *
 * @example Nothing rated twice
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatRaterDisagreements } from "./rater_disagreements.ts";
 * assert.equal(
 *   formatRaterDisagreements({ compared: 0, differ_on_pass: 0, adjudicated: 0, unresolved: 0, items: [] }),
 *   "disagreement record: no item has verdicts of two or more raters",
 * );
 * ```
 */
export function formatRaterDisagreements(d: RaterDisagreementRecord): string {
  if (!d.compared) return "disagreement record: no item has verdicts of two or more raters";
  const head = `disagreement record: ${d.items.length} of ${d.compared} items rated by two or more raters differ ` +
    `(${d.differ_on_pass} on the verdict: ${d.adjudicated} adjudicated, ${d.unresolved} unresolved — left out of ` +
    "calibration and of human acceptance)";
  if (!d.items.length) return head;
  const verdict = (p: boolean | null) => (p === null ? "-" : p ? "pass" : "fail");
  const body = d.items.map((i) => [
    i.class,
    i.request_id,
    i.differs_on.join(", "),
    i.ratings.map((r) => `${r.rater} ${verdict(r.pass)} ${JSON.stringify(r.scores)}`).join("; "),
    consensusStanding(i.consensus),
  ]);
  return [head, ...textTable(["class", "request", "differ on", "raters", "standing"], body, { lastLeft: true })]
    .join("\n");
}

/**
 * How an item stands: adjudicated (by whom, to what), unresolved, or agreed on the verdict.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { consensusStanding } from "./rater_disagreements.ts";
 * const c = { pass: false, status: "adjudicated" as const, raters: ["ann", "bob"], adjudicator: "cy" };
 * assert.equal(consensusStanding(c), "adjudicated by cy: fail");
 * assert.equal(consensusStanding({ ...c, pass: null, status: "disagreed", adjudicator: null }), "UNRESOLVED");
 * ```
 */
export function consensusStanding(c: Consensus): string {
  if (c.status === "adjudicated") return `adjudicated by ${c.adjudicator}: ${c.pass ? "pass" : "fail"}`;
  return c.status === "disagreed" ? "UNRESOLVED" : `verdicts agree: ${c.pass ? "pass" : "fail"}`;
}
