/**
 * Checking a filled adjudication file against the packet's key and its disagreement record.
 *
 * @module
 */
import { describeIssues } from "../../../schema/load.ts";
import { type Rubric, rubricVerdict } from "../../../schema/rubric.ts";
import type { DisagreementRecord } from "./disagreements.ts";
import { AdjudicationFile, type KeyItem, RaterName, type ReviewKey } from "./review_files.ts";

/** A settled item. */
export interface SettledItem {
  item: string;
  key: KeyItem;
  rubric: Rubric;
  adjudicator: string;
  scores: Record<string, number>;
  pass: boolean;
  note: string;
}

/** What {@linkcode validateAdjudication} found. */
export interface ValidatedAdjudication {
  settled: SettledItem[];
  /** Entries left as the template wrote them (no adjudicator, no score, no note): not settled yet. */
  open: string[];
  problems: string[];
}

/**
 * Checks an adjudication file: JSON of the template's shape (zod); the key's packet_id and packet_sha256; each entry an
 * item of the disagreement record, once; an entry left empty is open (not settled yet); any other names its
 * adjudicator (a rater name) and scores every criterion of the item's rubric on its scale.
 *
 * @example An entry with a score missing is refused, naming the item
 * ```ts
 * import assert from "node:assert/strict";
 * import { validateAdjudication } from "./adjudication.ts";
 * const rubric = { rubric_id: "r", sha256: "s", criteria: [
 *   { id: "a", scale: { kind: "pass_fail" } }, { id: "b", scale: { kind: "pass_fail" } }] };
 * const key = { packet_id: "rv-1", packet_sha256: "h", rubrics: [rubric],
 *   items: [{ item: "i-1", rubric_sha256: "s" }] } as never;
 * const record = { items: [{ item: "i-1" }] } as never;
 * const file = { kind: "review-adjudication", packet_id: "rv-1", packet_sha256: "h",
 *   entries: [{ item: "i-1", adjudicator: "cy", scores: { a: 1, b: null }, note: "" }] };
 * const v = validateAdjudication(key, record, "adj.json", new TextEncoder().encode(JSON.stringify(file)));
 * assert.deepEqual(v.problems, ['adj.json: entries.0 (item i-1): no score for criterion "b"']);
 * ```
 */
export function validateAdjudication(
  key: Pick<ReviewKey, "packet_id" | "packet_sha256" | "rubrics" | "items">,
  record: Pick<DisagreementRecord, "items">,
  file: string,
  bytes: Uint8Array,
): ValidatedAdjudication {
  const problems: string[] = [];
  const settled: SettledItem[] = [];
  const open: string[] = [];
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch (e) {
    return { settled, open, problems: [`${file}: not an adjudication file (UTF-8 JSON): ${(e as Error).message}`] };
  }
  const parsed = AdjudicationFile.safeParse(value);
  if (!parsed.success) return { settled, open, problems: describeIssues(file, parsed.error) };
  const a = parsed.data;
  if (a.packet_id !== key.packet_id) {
    problems.push(`${file}: packet_id ${a.packet_id} is not this packet's (${key.packet_id})`);
  } else if (a.packet_sha256 !== key.packet_sha256) problems.push(`${file}: packet_sha256 is not this packet's`);
  if (problems.length) return { settled, open, problems };
  const disputed = new Set(record.items.map((d) => d.item));
  const items = new Map(key.items.map((it) => [it.item, it]));
  const rubrics = new Map(key.rubrics.map((r) => [r.sha256, r]));
  const seen = new Set<string>();
  a.entries.forEach((e, i) => {
    const at = `${file}: entries.${i} (item ${e.item})`;
    if (!disputed.has(e.item)) return void problems.push(`${at}: not an item the raters disagree on`);
    if (seen.has(e.item)) return void problems.push(`${at}: the item is settled twice`);
    seen.add(e.item);
    const scored = Object.fromEntries(Object.entries(e.scores).filter(([, v]) => v !== null)) as Record<string, number>;
    if (e.adjudicator === "" && !Object.keys(scored).length && e.note === "") return void open.push(e.item);
    const name = RaterName.safeParse(e.adjudicator);
    if (!name.success) {
      problems.push(`${at}: adjudicator ${JSON.stringify(e.adjudicator)}: ${name.error.issues[0]!.message}`);
    }
    const it = items.get(e.item)!;
    const rubric = rubrics.get(it.rubric_sha256)!;
    const verdict = rubricVerdict(rubric, scored);
    for (const p of verdict.problems) problems.push(`${at}: ${p}`);
    if (verdict.pass === null || !name.success) return;
    settled.push({
      item: e.item,
      key: it,
      rubric,
      adjudicator: e.adjudicator,
      scores: Object.fromEntries(rubric.criteria.map((c) => [c.id, scored[c.id]!])),
      pass: verdict.pass,
      note: e.note,
    });
  });
  return { settled, open, problems };
}
