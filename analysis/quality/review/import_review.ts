/**
 * `review import`: the ratings of a packet checked against its key, written into each run's quality table, the
 * raters' agreement computed, the disagreement record and its adjudication template written, and a filled
 * adjudication file written as the settled verdicts.
 *
 * @module
 */
import { basename, dirname, join, resolve } from "node:path";
import { InputError } from "../../../schema/errors.ts";
import type { QualityRow } from "../../../schema/quality.ts";
import { readQuality, readQualityManifest, sha256Hex, writeQualityPart } from "../../../schema/quality_file.ts";
import { readInputFile } from "../../../schema/read_input.ts";
import { runnerManifest } from "../../run/imported_run.ts";
import { loadRun } from "../../run/load_run.ts";
import { validateAdjudication, type ValidatedAdjudication } from "./adjudication.ts";
import { type ReviewAgreement, reviewAgreement } from "./agreement.ts";
import {
  adjudicationTemplate,
  disagreementMarkdown,
  type DisagreementRecord,
  disagreementRecord,
} from "./disagreements.ts";
import { readReviewKey } from "./read_key.ts";
import type { ReviewKey } from "./review_files.ts";
import { validateRatings, type ValidRating } from "./validate_ratings.ts";
import { agreementDetails, holdsSettledEntry, minutesPerRater, stagedProblems, verdictRow } from "./_review_parts.ts";

/** Options of {@linkcode importReview}. */
export interface ImportReviewOptions {
  /** A filled adjudication file (`PACKET.adjudication.json`). */
  adjudication?: string;
  /** Bootstrap resamples of the agreement intervals. @default {2000} */
  resamples?: number;
  /** The time an adjudication is dated when its file's time cannot be read. @default {Date.now} */
  now?: () => number;
}

/** What {@linkcode importReview} did. */
export interface ImportReviewResult {
  key: ReviewKey;
  ratings: ValidRating[];
  agreement: ReviewAgreement;
  record: DisagreementRecord;
  adjudication: ValidatedAdjudication | null;
  /** The quality parts written, per run folder. */
  parts: { run: string; file: string; rows: number }[];
  /** Minutes of active time per rater over the packet. */
  minutes: Record<string, number>;
  files: { disagreements: string; markdown: string; template: string; template_written: boolean };
}

/**
 * The files of a packet beside its key: `PACKET.key.json` → `PACKET.disagreements.json`, …
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { packetFiles } from "./import_review.ts";
 * assert.equal(packetFiles("out/p.key.json").template, "out/p.adjudication.json");
 * assert.equal(packetFiles("out/p.key.json").markdown, "out/p.disagreements.md");
 * ```
 */
export function packetFiles(keyFile: string): { disagreements: string; markdown: string; template: string } {
  const stem = keyFile.replace(/\.key\.json$/i, "");
  return {
    disagreements: `${stem}.disagreements.json`,
    markdown: `${stem}.disagreements.md`,
    template: `${stem}.adjudication.json`,
  };
}

/**
 * Imports ratings files. Nothing is written unless every file passes every check ({@linkcode validateRatings}, and
 * {@linkcode validateAdjudication} for `adjudication`), every run of the key is where the key says with the run.json
 * it had, and no other part of a run's quality table already holds a verdict of the same rater on the same request;
 * otherwise one {@linkcode InputError} names every problem. Each run gets the part `review-<packet_id>.csv` (source
 * `human:<rater>`; re-importing replaces it) and, with an adjudication, `adjudication-<packet_id>.csv` (source
 * `adjudicated:<who>`); each table is read back with its checks. The disagreement record is rewritten; the adjudication
 * template is written unless a file of that name already holds a settled entry.
 *
 * @example A missing key is an input error, and nothing is written
 * ```ts
 * import assert from "node:assert/strict";
 * import { importReview } from "./import_review.ts";
 * await assert.rejects(importReview("/nonexistent.key.json", ["ratings.json"]), /cannot read review key/);
 * ```
 */
export async function importReview(
  keyFile: string,
  ratingFiles: readonly string[],
  options: ImportReviewOptions = {},
): Promise<ImportReviewResult> {
  const key = await readReviewKey(keyFile);
  const problems: string[] = [];
  const inputs: { file: string; bytes: Uint8Array }[] = [];
  for (const file of ratingFiles) {
    try {
      inputs.push({ file, bytes: await readInputFile(file, "ratings") });
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      problems.push(e.message);
    }
  }
  const checked = validateRatings(key, inputs);
  problems.push(...checked.problems);
  const record = disagreementRecord(key, checked.ratings);
  let adjudication: ValidatedAdjudication | null = null;
  let adjudicatedMs = (options.now ?? Date.now)();
  if (options.adjudication) {
    try {
      const bytes = await readInputFile(options.adjudication, "adjudication");
      adjudicatedMs = (await Deno.stat(options.adjudication)).mtime?.getTime() ?? adjudicatedMs;
      adjudication = validateAdjudication(key, record, options.adjudication, bytes);
      problems.push(...adjudication.problems);
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      problems.push(e.message);
    }
  }
  const keyDir = dirname(resolve(keyFile));
  const runs: { dir: string; requestIds: Set<string>; rubricHashes?: Record<string, string> }[] = [];
  for (const r of key.runs) {
    const dir = resolve(keyDir, r.dir);
    try {
      const run = await loadRun(dir);
      const m = runnerManifest(run, "a review import");
      const sha = sha256Hex(await Deno.readFile(join(dir, "run.json")));
      if (m.run_id !== r.run_id) problems.push(`${dir}: run_id ${m.run_id} is not the key's ${r.run_id}`);
      else if (sha !== r.run_json_sha256) problems.push(`${dir}: run.json changed since the packet was drawn`);
      runs.push({
        dir,
        requestIds: new Set(run.requests.getColumn("request_id").toArray() as string[]),
        rubricHashes: m.workload.rubric_hashes,
      });
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      problems.push(`${keyFile}: run ${r.run_id} (${r.dir}): ${e.message}`);
    }
  }
  if (problems.length) throw refused(problems);

  const rowsOf = (run: number) => {
    const human: QualityRow[] = checked.ratings.filter((x) => x.key.run === run).map((x) =>
      verdictRow(key, x.key.run, x.key.request_id, `human:${x.rater}`, x.rubric, x.scores, x.pass, {
        rationale: x.notes,
        time_spent_ms: x.time_spent_ms,
        judged_epoch_ms: Date.parse(x.rated_iso),
      })
    );
    const settled: QualityRow[] = (adjudication?.settled ?? []).filter((s) => s.key.run === run).map((s) =>
      verdictRow(key, s.key.run, s.key.request_id, `adjudicated:${s.adjudicator}`, s.rubric, s.scores, s.pass, {
        rationale: s.note,
        time_spent_ms: null,
        judged_epoch_ms: adjudicatedMs,
      })
    );
    return { human, settled };
  };
  const reviewPart = `review-${key.packet_id}.csv`;
  const adjudicationPart = `adjudication-${key.packet_id}.csv`;
  // Every write is tried first on a copy of the run's quality table and read back with the reader's checks: a verdict
  // of the same rater on the same request in another part (another packet) would make the table unreadable.
  const writes = runs.map((run, i) => {
    const { human, settled } = rowsOf(i);
    return { run, i, human, settled };
  });
  for (const w of writes) {
    const staged = [
      { file: reviewPart, rows: w.human },
      ...(adjudication ? [{ file: adjudicationPart, rows: w.settled }] : []),
    ];
    problems.push(
      ...await stagedProblems(w.run.dir, staged, key.rubrics, {
        runId: key.runs[w.i]!.run_id,
        requestIds: w.run.requestIds,
        ...(w.run.rubricHashes ? { rubricHashes: w.run.rubricHashes } : {}),
      }),
    );
  }
  if (problems.length) throw refused(problems);

  const minutes = minutesPerRater(key.raters, checked.ratings);
  const parts: ImportReviewResult["parts"] = [];
  const agreement = reviewAgreement(checked.ratings, {
    raters: key.raters,
    seed: key.design.seed,
    ...(options.resamples !== undefined ? { resamples: options.resamples } : {}),
  });
  for (const { run, i, human, settled } of writes) {
    const had = new Set((await readQualityManifest(run.dir))?.parts.map((p) => p.file) ?? []);
    const rubrics = key.rubrics;
    if (human.length || had.has(reviewPart)) {
      await writeQualityPart(run.dir, human, {
        file: reviewPart,
        written_by: "review import",
        rubrics,
        details: {
          packet_id: key.packet_id,
          packet_sha256: key.packet_sha256,
          packet_file: key.packet_file,
          design: key.design,
          raters: key.raters,
          ratings_files: checked.files.map((f) => ({ ...f, file: basename(f.file) })),
          n: human.length,
          items: new Set(human.map((r) => r.request_id)).size,
          minutes_per_rater: minutesPerRater(key.raters, checked.ratings.filter((x) => x.key.run === i)),
          packet_n: checked.ratings.length,
          packet_minutes_per_rater: minutes,
          agreement: agreementDetails(agreement),
          disagreements: {
            compared: record.compared,
            differ: record.items.length,
            differ_on_pass: record.differ_on_pass,
          },
        },
      });
      parts.push({ run: run.dir, file: reviewPart, rows: human.length });
    }
    if (adjudication && (settled.length || had.has(adjudicationPart))) {
      await writeQualityPart(run.dir, settled, {
        file: adjudicationPart,
        written_by: "adjudication",
        rubrics,
        details: {
          packet_id: key.packet_id,
          packet_sha256: key.packet_sha256,
          adjudication_file: basename(options.adjudication!),
          adjudication_sha256: sha256Hex(await Deno.readFile(options.adjudication!)),
          adjudicators: [...new Set(settled.map((s) => s.source.slice("adjudicated:".length)))].sort(),
          n: settled.length,
          packet_settled: adjudication.settled.length,
          packet_open: adjudication.open.length,
        },
      });
      parts.push({ run: run.dir, file: adjudicationPart, rows: settled.length });
    }
    await readQuality(run.dir, {
      runId: key.runs[i]!.run_id,
      requestIds: run.requestIds,
      ...(run.rubricHashes ? { rubricHashes: run.rubricHashes } : {}),
    });
  }
  const files = packetFiles(keyFile);
  await Deno.writeTextFile(files.disagreements, JSON.stringify(record, null, 2) + "\n", { mode: 0o600 });
  await Deno.writeTextFile(files.markdown, disagreementMarkdown(record), { mode: 0o600 });
  const criteria = new Map(key.rubrics.map((r) => [r.sha256, r.criteria.map((c) => c.id)]));
  const template = adjudicationTemplate(record, (sha) => criteria.get(sha) ?? []);
  const template_written = !(await holdsSettledEntry(files.template));
  if (template_written) await Deno.writeTextFile(files.template, JSON.stringify(template, null, 2) + "\n");
  return {
    key,
    ratings: checked.ratings,
    agreement,
    record,
    adjudication,
    parts,
    minutes,
    files: { ...files, template_written },
  };
}

/** The error of an import that found problems: nothing was written. */
function refused(problems: string[]): InputError {
  const n = problems.length;
  return new InputError(`review import: ${n} problem${n === 1 ? "" : "s"}, nothing written`, problems);
}
