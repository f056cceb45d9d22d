/**
 * Checking the ratings files raters send back against the packet's key, every problem of every file at once.
 *
 * @module
 */
import { describeIssues } from "../../../schema/load.ts";
import { sha256Hex } from "../../../schema/quality_file.ts";
import { type Rubric, rubricVerdict } from "../../../schema/rubric.ts";
import { type KeyItem, RatingsFile, type ReviewKey } from "./review_files.ts";

/** One rating that passed every check. */
export interface ValidRating {
  rater: string;
  item: string;
  key: KeyItem;
  rubric: Rubric;
  /** Every criterion's score, in the rubric's order. */
  scores: Record<string, number>;
  /** The rubric's verdict on the scores. */
  pass: boolean;
  notes: string;
  time_spent_ms: number;
  rated_iso: string;
  /** The ratings file it came from. */
  file: string;
}

/** A ratings file as read: its name, rater and hash. */
export interface RatingsFileRead {
  file: string;
  rater: string | null;
  sha256: string;
  ratings: number;
}

/** What {@linkcode validateRatings} found. */
export interface ValidatedRatings {
  ratings: ValidRating[];
  files: RatingsFileRead[];
  /** One line per problem, naming file and item; empty when every rating is good. */
  problems: string[];
}

/**
 * Checks ratings files (their bytes, by file name) against the key: each is JSON of the export's shape (zod); its
 * packet_id and packet_sha256 are the key's; its rater is one of the packet's; each rated item is in the packet and
 * assigned to that rater; its scores name every criterion of the item's rubric once, each on its scale, and nothing
 * else; no rater rates an item twice (in one file or across files). Good ratings come back with the rubric's verdict.
 *
 * @example A file for another packet is refused, naming the file
 * ```ts
 * import assert from "node:assert/strict";
 * import { validateRatings } from "./validate_ratings.ts";
 * const key = { packet_id: "rv-aaaaaaaaaaaa", packet_sha256: "h", raters: ["bo"], items: [], rubrics: [] } as never;
 * const file = { packet_id: "rv-bbbbbbbbbbbb", packet_sha256: "h", rater: "bo", ratings: [] };
 * const bytes = new TextEncoder().encode(JSON.stringify(file));
 * const { problems } = validateRatings(key, [{ file: "bo.json", bytes }]);
 * assert.deepEqual(problems, ["bo.json: packet_id rv-bbbbbbbbbbbb is not this packet's (rv-aaaaaaaaaaaa)"]);
 * ```
 */
export function validateRatings(
  key: ReviewKey,
  files: readonly { file: string; bytes: Uint8Array }[],
): ValidatedRatings {
  const problems: string[] = [];
  const ratings: ValidRating[] = [];
  const read: RatingsFileRead[] = [];
  const items = new Map(key.items.map((it) => [it.item, it]));
  const rubrics = new Map(key.rubrics.map((r) => [r.sha256, r]));
  const first = new Map<string, string>();
  for (const { file, bytes } of files) {
    const entry: RatingsFileRead = { file, rater: null, sha256: sha256Hex(bytes), ratings: 0 };
    read.push(entry);
    let value: unknown;
    try {
      value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
    } catch (e) {
      problems.push(`${file}: not a ratings file (UTF-8 JSON): ${(e as Error).message}`);
      continue;
    }
    const parsed = RatingsFile.safeParse(value);
    if (!parsed.success) {
      problems.push(...describeIssues(file, parsed.error));
      continue;
    }
    const r = parsed.data;
    entry.rater = r.rater;
    entry.ratings = r.ratings.length;
    const before = problems.length;
    if (r.packet_id !== key.packet_id) {
      problems.push(`${file}: packet_id ${r.packet_id} is not this packet's (${key.packet_id})`);
    } else if (r.packet_sha256 !== key.packet_sha256) {
      problems.push(
        `${file}: packet_sha256 ${r.packet_sha256.slice(0, 12)}… is not this packet's (the page was edited?)`,
      );
    }
    if (!key.raters.includes(r.rater)) {
      problems.push(`${file}: rater "${r.rater}" is not a rater of the packet (${key.raters.join(", ")})`);
    }
    if (problems.length > before) continue;
    const mine = new Set(key.assignments[r.rater] ?? []);
    r.ratings.forEach((x, i) => {
      const at = `${file}: ratings.${i} (item ${x.item})`;
      const it = items.get(x.item);
      if (!it) return void problems.push(`${at}: not an item of the packet`);
      if (!mine.has(x.item)) return void problems.push(`${at}: not assigned to ${r.rater}`);
      const seen = `${r.rater}\u0000${x.item}`;
      const earlier = first.get(seen);
      if (earlier) return void problems.push(`${at}: ${r.rater} rated it already (${earlier})`);
      first.set(seen, at);
      const rubric = rubrics.get(it.rubric_sha256)!;
      const verdict = rubricVerdict(rubric, x.scores);
      if (verdict.pass === null) {
        for (const p of verdict.problems) problems.push(`${at}: ${p}`);
        return;
      }
      ratings.push({
        rater: r.rater,
        item: x.item,
        key: it,
        rubric,
        scores: Object.fromEntries(rubric.criteria.map((c) => [c.id, x.scores[c.id]!])),
        pass: verdict.pass,
        notes: x.notes,
        time_spent_ms: x.time_spent_ms,
        rated_iso: x.rated_iso,
        file,
      });
    });
  }
  return { ratings, files: read, problems };
}
