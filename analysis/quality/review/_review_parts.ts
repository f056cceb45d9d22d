/**
 * The pieces `review import` writes with: a verdict row, the staged check of a quality part, the minutes per rater, the
 * agreement as plain numbers, and whether an adjudication file already holds work.
 *
 * @module
 */
import { join } from "node:path";
import { InputError } from "../../../schema/errors.ts";
import { QUALITY_DIR, type QualityRow } from "../../../schema/quality.ts";
import {
  readQuality,
  readQualityManifest,
  type ReadQualityOptions,
  writeQualityPart,
} from "../../../schema/quality_file.ts";
import type { Rubric } from "../../../schema/rubric.ts";
import type { ReviewAgreement } from "./agreement.ts";
import type { ReviewKey } from "./review_files.ts";
import type { ValidRating } from "./validate_ratings.ts";

/** One verdict of the quality table. */
export function verdictRow(
  key: ReviewKey,
  run: number,
  request_id: string,
  source: string,
  rubric: Rubric,
  scores: Record<string, number>,
  pass: boolean,
  o: { rationale: string; time_spent_ms: number | null; judged_epoch_ms: number },
): QualityRow {
  return {
    run_id: key.runs[run]!.run_id,
    request_id,
    source,
    rubric_id: rubric.rubric_id,
    rubric_sha256: rubric.sha256,
    scores: JSON.stringify(scores),
    pass,
    rationale: o.rationale === "" ? null : o.rationale,
    time_spent_ms: o.time_spent_ms,
    judged_epoch_ms: o.judged_epoch_ms,
    input_tokens: null,
    output_tokens: null,
    calls: null,
  };
}

/**
 * The problems the quality reader would find after writing `parts` into the run's table, found on a copy of the table
 * (run.json and quality/) in a temporary folder; the folder names in them are the run's.
 */
export async function stagedProblems(
  dir: string,
  parts: { file: string; rows: QualityRow[] }[],
  rubrics: readonly Rubric[],
  read: ReadQualityOptions,
): Promise<string[]> {
  const tmp = await Deno.makeTempDir({ prefix: "gp-review-stage-" });
  try {
    await Deno.copyFile(join(dir, "run.json"), join(tmp, "run.json"));
    const manifest = await readQualityManifest(dir);
    if (manifest) {
      await Deno.mkdir(join(tmp, QUALITY_DIR));
      for await (const e of Deno.readDir(join(dir, QUALITY_DIR))) {
        if (e.isFile) await Deno.copyFile(join(dir, QUALITY_DIR, e.name), join(tmp, QUALITY_DIR, e.name));
      }
    }
    for (const p of parts) {
      if (!p.rows.length && !manifest?.parts.some((x) => x.file === p.file)) continue;
      await writeQualityPart(tmp, p.rows, { file: p.file, written_by: "review import (staged)", details: {}, rubrics });
    }
    await readQuality(tmp, read);
    return [];
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    const lines = e.problems.length ? e.problems : [e.message];
    return lines.map((l) => l.replaceAll(tmp, dir));
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
}

/** Active minutes per rater (every rater of the packet, 0 for one with no rating). */
export function minutesPerRater(raters: readonly string[], ratings: readonly ValidRating[]): Record<string, number> {
  const ms: Record<string, number> = Object.fromEntries(raters.map((r) => [r, 0]));
  for (const r of ratings) ms[r.rater] = ms[r.rater]! + r.time_spent_ms;
  return Object.fromEntries(Object.entries(ms).map(([r, t]) => [r, t / 60_000]));
}

/** The agreement's figures as plain numbers for the quality table's details. */
export function agreementDetails(a: ReviewAgreement): Record<string, unknown> {
  const ci = (x: { low: number | null; high: number | null; level: number; resamples: number; seed: number }) => ({
    low: x.low,
    high: x.high,
    level: x.level,
    resamples: x.resamples,
    seed: x.seed,
  });
  return {
    items: a.items,
    raters: a.raters,
    kappa_pass: a.pass.kappa && { kappa: a.pass.kappa.kappa, n: a.pass.kappa.n, ci: ci(a.pass.kappa.ci) },
    alpha_pass_nominal: { alpha: a.pass.alpha.alpha, units: a.pass.alpha.units_pairable, ci: ci(a.pass.alpha.ci) },
    criteria: a.criteria.flatMap((c) =>
      Object.values(c.alpha).map((x) => ({
        rubric_id: c.rubric_id,
        criterion: c.criterion,
        metric: x!.metric,
        alpha: x!.alpha,
        units: x!.units_pairable,
        ci: ci(x!.ci),
      }))
    ),
  };
}

/** Whether an adjudication file exists and holds an entry someone filled (then it is never overwritten). */
export async function holdsSettledEntry(file: string): Promise<boolean> {
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
  try {
    const v = JSON.parse(text) as { entries?: { adjudicator?: unknown; note?: unknown; scores?: object }[] };
    return (v.entries ?? []).some((e) =>
      e.adjudicator !== "" || (e.note ?? "") !== "" || Object.values(e.scores ?? {}).some((s) => s !== null)
    );
  } catch {
    // Not JSON: someone edited it; keep it.
    return true;
  }
}
