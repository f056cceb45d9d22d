/**
 * The disagreement record of a packet: every item its raters scored differently — on the verdict or on any criterion —
 * with each rater's scores and notes; its readable form; and the adjudication template that settles the items.
 *
 * @module
 */
import type { AdjudicationFile, ReviewKey } from "./review_files.ts";
import { byText } from "./_random.ts";
import type { ValidRating } from "./validate_ratings.ts";

/** One item the raters differ on. */
export interface Disagreement {
  item: string;
  run_id: string;
  request_id: string;
  class: string;
  stratum: string;
  rubric_id: string;
  rubric_sha256: string;
  /** `pass` when the verdicts differ, then every criterion whose scores differ, in the rubric's order. */
  differs_on: string[];
  ratings: { rater: string; pass: boolean; scores: Record<string, number>; notes: string; time_spent_ms: number }[];
}

/** `PACKET.disagreements.json`. */
export interface DisagreementRecord {
  kind: "review-disagreements";
  packet_id: string;
  packet_sha256: string;
  /** Items rated by two or more raters. */
  compared: number;
  /** Of those, where the verdicts differ. */
  differ_on_pass: number;
  items: Disagreement[];
}

/**
 * Every item rated by two or more raters whose scores differ anywhere, in item order, each rater's rating in the
 * key's rater order.
 *
 * @example Two raters, one criterion apart, same verdict
 * ```ts
 * import assert from "node:assert/strict";
 * import { disagreementRecord } from "./disagreements.ts";
 * const rubric = { rubric_id: "r", sha256: "s", criteria: [{ id: "coverage", scale: { kind: "points", min: 1, max: 5, pass_at: 4 } }] };
 * const key = { packet_id: "rv-1", packet_sha256: "h", raters: ["ana", "bo"],
 *   items: [{ item: "i-1", run: 0, request_id: "q1", class: "c", stratum: "c", rubric_id: "r", rubric_sha256: "s" }],
 *   runs: [{ run_id: "run" }] } as never;
 * const v = (rater: string, coverage: number) =>
 *   ({ rater, item: "i-1", rubric, scores: { coverage }, pass: coverage >= 4, notes: "", time_spent_ms: 1 }) as never;
 * const rec = disagreementRecord(key, [v("ana", 4), v("bo", 5)]);
 * assert.deepEqual(rec.items.map((d) => d.differs_on), [["coverage"]]);
 * assert.equal(rec.differ_on_pass, 0);
 * ```
 */
export function disagreementRecord(
  key: Pick<ReviewKey, "packet_id" | "packet_sha256" | "raters" | "items" | "runs">,
  ratings: readonly ValidRating[],
): DisagreementRecord {
  const byItem = new Map<string, ValidRating[]>();
  for (const r of ratings) byItem.set(r.item, [...byItem.get(r.item) ?? [], r]);
  const keyItems = new Map(key.items.map((it) => [it.item, it]));
  const order = (r: ValidRating) => key.raters.indexOf(r.rater);
  const items: Disagreement[] = [];
  let compared = 0, differPass = 0;
  for (const [item, rs] of [...byItem.entries()].sort(([a], [b]) => byText(a, b))) {
    if (rs.length < 2) continue;
    compared++;
    const sorted = [...rs].sort((a, b) => order(a) - order(b));
    const differs: string[] = [];
    if (new Set(sorted.map((r) => r.pass)).size > 1) {
      differs.push("pass");
      differPass++;
    }
    for (const c of sorted[0]!.rubric.criteria) {
      if (new Set(sorted.map((r) => r.scores[c.id])).size > 1) differs.push(c.id);
    }
    if (!differs.length) continue;
    const it = keyItems.get(item)!;
    items.push({
      item,
      run_id: key.runs[it.run]!.run_id,
      request_id: it.request_id,
      class: it.class,
      stratum: it.stratum,
      rubric_id: it.rubric_id,
      rubric_sha256: it.rubric_sha256,
      differs_on: differs,
      ratings: sorted.map((r) => ({
        rater: r.rater,
        pass: r.pass,
        scores: r.scores,
        notes: r.notes,
        time_spent_ms: r.time_spent_ms,
      })),
    });
  }
  return {
    kind: "review-disagreements",
    packet_id: key.packet_id,
    packet_sha256: key.packet_sha256,
    compared,
    differ_on_pass: differPass,
    items,
  };
}

/**
 * The adjudication template: one entry per disagreement, adjudicator empty and every score null, to fill.
 *
 * @example One disagreement, two criteria to settle
 * ```ts
 * import assert from "node:assert/strict";
 * import { adjudicationTemplate } from "./disagreements.ts";
 * const record = { packet_id: "rv-1", packet_sha256: "h", items: [{ item: "i-1", rubric_sha256: "s" }] } as never;
 * const t = adjudicationTemplate(record, () => ["faithful", "coverage"]);
 * assert.deepEqual(t.entries, [{ item: "i-1", adjudicator: "", scores: { faithful: null, coverage: null }, note: "" }]);
 * ```
 */
export function adjudicationTemplate(
  record: DisagreementRecord,
  criteria: (rubricSha256: string) => readonly string[],
): AdjudicationFile {
  return {
    kind: "review-adjudication",
    packet_id: record.packet_id,
    packet_sha256: record.packet_sha256,
    entries: record.items.map((d) => ({
      item: d.item,
      adjudicator: "",
      scores: Object.fromEntries(criteria(d.rubric_sha256).map((c) => [c, null])),
      note: "",
    })),
  };
}

/**
 * The record as Markdown: a summary line, then one section per item with a table of the raters' scores and notes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { disagreementMarkdown } from "./disagreements.ts";
 * const md = disagreementMarkdown({ kind: "review-disagreements", packet_id: "rv-1", packet_sha256: "h", compared: 2,
 *   differ_on_pass: 1, items: [{ item: "i-1", run_id: "run", request_id: "q", class: "c", stratum: "c", rubric_id: "r",
 *   rubric_sha256: "s", differs_on: ["pass", "ok"], ratings: [
 *     { rater: "ana", pass: true, scores: { ok: 1 }, notes: "fine", time_spent_ms: 1 },
 *     { rater: "bo", pass: false, scores: { ok: 0 }, notes: "", time_spent_ms: 1 }] }] });
 * assert.match(md, /1 of 2 items rated by two or more raters differ \(1 on the verdict\)/);
 * assert.match(md, /\| bo \| fail \| 0 \| — \|/);
 * ```
 */
export function disagreementMarkdown(record: DisagreementRecord): string {
  const cell = (s: string) => s.replaceAll("|", "\\|").replaceAll("\n", " ");
  const out = [
    `# Disagreement record of review packet ${record.packet_id}`,
    "",
    `${record.items.length} of ${record.compared} items rated by two or more raters differ ` +
    `(${record.differ_on_pass} on the verdict). Settle them in the adjudication file (one entry per item: the ` +
    "adjudicator's name, every criterion's score, a note) and import again with `--adjudication FILE`.",
  ];
  for (const d of record.items) {
    const criteria = Object.keys(d.ratings[0]!.scores);
    out.push(
      "",
      `## ${d.item}`,
      "",
      `Run ${d.run_id}, request ${d.request_id}, class ${d.class}, stratum ${d.stratum}, rubric ${d.rubric_id}. ` +
        `Differ on: ${d.differs_on.join(", ")}.`,
      "",
      `| rater | verdict | ${criteria.join(" | ")} | notes |`,
      `| --- | --- | ${criteria.map(() => "---").join(" | ")} | --- |`,
      ...d.ratings.map((r) =>
        `| ${r.rater} | ${r.pass ? "pass" : "fail"} | ${criteria.map((c) => String(r.scores[c])).join(" | ")} | ${
          cell(r.notes) || "—"
        } |`
      ),
    );
  }
  return out.join("\n") + "\n";
}
