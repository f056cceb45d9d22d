/**
 * Reading a packet's sealed key (`PACKET.key.json`) back, checked against itself.
 *
 * @module
 */
import { InputError } from "../../../schema/errors.ts";
import { loadJsonFile } from "../../../schema/load.ts";
import { rubricSha256 } from "../../../schema/rubric.ts";
import { ReviewKey } from "./review_files.ts";

/**
 * Reads and checks a key: the schema, then that it holds together — every rubric hashes to its sha256, every item
 * names a listed run and rubric and is assigned to exactly the raters it lists, and every assignment names known
 * items once. Every problem at once, in one {@linkcode InputError} naming the file.
 *
 * @example A missing key is an input error naming it
 * ```ts
 * import assert from "node:assert/strict";
 * import { readReviewKey } from "./read_key.ts";
 * await assert.rejects(readReviewKey("/nonexistent.key.json"), /nonexistent\.key\.json: cannot read review key/);
 * ```
 */
export async function readReviewKey(file: string): Promise<ReviewKey> {
  const key = await loadJsonFile(file, ReviewKey, "review key");
  const problems: string[] = [];
  const rubrics = new Set<string>();
  key.rubrics.forEach((r, i) => {
    if (rubricSha256(r) !== r.sha256) {
      problems.push(`${file}: rubrics.${i}: rubric ${r.rubric_id} does not hash to its sha256`);
    }
    rubrics.add(r.sha256);
  });
  const raters = new Set(key.raters);
  const assigned = new Map<string, Set<string>>();
  for (const [rater, items] of Object.entries(key.assignments)) {
    if (!raters.has(rater)) problems.push(`${file}: assignments.${rater}: not a rater of the packet`);
    const seen = new Set<string>();
    for (const item of items) {
      if (seen.has(item)) problems.push(`${file}: assignments.${rater}: item ${item} twice`);
      seen.add(item);
      assigned.set(item, (assigned.get(item) ?? new Set()).add(rater));
    }
  }
  const ids = new Set<string>();
  key.items.forEach((it, i) => {
    const at = `${file}: items.${i} (${it.item})`;
    if (ids.has(it.item)) problems.push(`${at}: the item id repeats`);
    ids.add(it.item);
    if (it.run >= key.runs.length) problems.push(`${at}: run ${it.run} is not listed in runs`);
    if (!rubrics.has(it.rubric_sha256)) problems.push(`${at}: rubric ${it.rubric_sha256.slice(0, 12)} is not listed`);
    const to = [...assigned.get(it.item) ?? []].sort().join(",");
    if (to !== [...it.raters].sort().join(",")) {
      problems.push(`${at}: raters ${it.raters.join(",")} but assigned to ${to || "nobody"}`);
    }
  });
  for (const item of assigned.keys()) {
    if (!ids.has(item)) problems.push(`${file}: assignments name unknown item ${item}`);
  }
  if (problems.length) throw new InputError(`${file}: the review key does not hold together`, problems);
  return key;
}
