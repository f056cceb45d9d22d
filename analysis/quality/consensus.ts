import { type QualityRow, sourceKind } from "../../schema/quality.ts";

/** One item's human consensus (see {@linkcode humanConsensus}). */
export interface Consensus {
  /** The settled verdict; null when the raters disagree and nobody adjudicated. */
  pass: boolean | null;
  /** `adjudicated`: an `adjudicated:*` verdict settles it; `agreed`: every `human:*` verdict is the same; else `disagreed`. */
  status: "adjudicated" | "agreed" | "disagreed";
  /** The `human:*` raters of the item (names after the prefix), sorted. */
  raters: string[];
  /** Who adjudicated (name after `adjudicated:`); null when nobody did. */
  adjudicator: string | null;
}

/**
 * The human consensus of every item people rated: its `adjudicated:*` verdict when there is one; else the common
 * `pass` of its `human:*` verdicts when they all agree (one rater counts as agreed); else `disagreed` with `pass`
 * null (an unresolved disagreement: left out of calibration and of human acceptance, and counted in the disclosure).
 * Items with only `inline` or `judge:*` verdicts have no entry. Pure.
 *
 * @example Two raters agree, two disagree, an adjudication settles a third
 * ```ts
 * import assert from "node:assert/strict";
 * import { humanConsensus } from "./consensus.ts";
 * const v = (request_id: string, source: string, pass: boolean) => ({
 *   run_id: "r", request_id, source, rubric_id: "x", rubric_sha256: "0".repeat(64), scores: "{}", pass,
 *   rationale: null, time_spent_ms: null, judged_epoch_ms: 0, input_tokens: null, output_tokens: null, calls: null,
 * });
 * const c = humanConsensus([
 *   v("a", "human:ann", true), v("a", "human:bob", true),
 *   v("b", "human:ann", true), v("b", "human:bob", false),
 *   v("c", "human:ann", false), v("c", "human:bob", true), v("c", "adjudicated:lee", true),
 *   v("d", "judge:m", true),
 * ]);
 * assert.deepEqual(c.get("a"), { pass: true, status: "agreed", raters: ["ann", "bob"], adjudicator: null });
 * assert.deepEqual(c.get("b"), { pass: null, status: "disagreed", raters: ["ann", "bob"], adjudicator: null });
 * assert.deepEqual(c.get("c"), { pass: true, status: "adjudicated", raters: ["ann", "bob"], adjudicator: "lee" });
 * assert.equal(c.has("d"), false);
 * ```
 */
export function humanConsensus(rows: readonly QualityRow[]): Map<string, Consensus> {
  type Verdict = { name: string; pass: boolean };
  const items = new Map<string, { human: Verdict[]; adjudicated: Verdict[] }>();
  for (const r of rows) {
    const kind = sourceKind(r.source);
    if (kind !== "human" && kind !== "adjudicated") continue;
    const item = items.get(r.request_id) ?? { human: [], adjudicated: [] };
    item[kind].push({ name: r.source.slice(kind.length + 1), pass: r.pass });
    items.set(r.request_id, item);
  }
  const same = (vs: Verdict[]) => vs.every((v) => v.pass === vs[0]!.pass);
  const out = new Map<string, Consensus>();
  for (const [id, { human, adjudicated }] of items) {
    const raters = human.map((h) => h.name).sort();
    // Two adjudications of one item that agree settle it together (names joined by ","); that disagree settle nothing.
    if (adjudicated.length && same(adjudicated)) {
      const adjudicator = adjudicated.map((a) => a.name).sort().join(",");
      out.set(id, { pass: adjudicated[0]!.pass, status: "adjudicated", raters, adjudicator });
      continue;
    }
    const agreed = human.length > 0 && !adjudicated.length && same(human);
    out.set(id, {
      pass: agreed ? human[0]!.pass : null,
      status: agreed ? "agreed" : "disagreed",
      raters,
      adjudicator: null,
    });
  }
  return out;
}
