/**
 * A quality table for the hand-worked ledger run (ledger_fixture.ts: w1 outside the window; a1, a2, a3, a5, h1 class
 * qa, a4 class other; a1, a2, h1 accepted), written with writeQualityPart as a judge and a review import would:
 *
 * - judge-m.csv, details {model m, calls 7, failed_calls 2, input_tokens 5000, output_tokens 500}: judge:m verdicts
 *   on a1 [1000 in / 100 out], a2 [1200 / 120, 2 calls], a4 [800 / 80] and w1 [1000 / 100] (outside the window).
 *   Its verdicts hold 4000 / 400 tokens; the other 1000 / 100 are calls on items it left unjudged.
 * - review.csv: human:ana on a1 (2 min), a2 (3 min), w1 (10 min, outside the window); human:bo on a1 (4 min), a4
 *   (1 min), h1 (no time recorded).
 * - adjudication.csv: adjudicated:lead on a1 (5 min).
 */
import { join } from "node:path";
import { loadWorkload } from "../../../schema/workload_file.ts";
import type { QualityRow } from "../../../schema/quality.ts";
import { writeQualityPart } from "../../../schema/quality_file.ts";

const rubrics = (await loadWorkload("data/workloads/design-v1")).rubrics!;
const summary = rubrics.rubrics.find((r) => r.rubric_id === "long-summary")!;

/** One passing long-summary verdict of `source` on `request_id`. */
export function verdict(
  runId: string,
  request_id: string,
  source: string,
  over: { time_ms?: number | null; input?: number; output?: number; calls?: number } = {},
): QualityRow {
  const judge = source.startsWith("judge:");
  return {
    run_id: runId,
    request_id,
    source,
    rubric_id: summary.rubric_id,
    rubric_sha256: summary.sha256,
    scores: JSON.stringify({ faithful: 1, coverage: 5, concise: 4 }),
    pass: true,
    rationale: null,
    time_spent_ms: over.time_ms === undefined ? (judge ? 900 : 60_000) : over.time_ms,
    judged_epoch_ms: 1_780_000_000_000,
    input_tokens: judge ? over.input ?? 0 : null,
    output_tokens: judge ? over.output ?? 0 : null,
    calls: judge ? over.calls ?? 1 : null,
  };
}

const runIdOf = (dir: string): string => JSON.parse(Deno.readTextFileSync(join(dir, "run.json"))).run_id;

/** The judge part's verdicts (see the module doc). */
export function judgeRows(runId: string): QualityRow[] {
  return [
    verdict(runId, "a1", "judge:m", { input: 1000, output: 100 }),
    verdict(runId, "a2", "judge:m", { input: 1200, output: 120, calls: 2 }),
    verdict(runId, "a4", "judge:m", { input: 800, output: 80 }),
    verdict(runId, "w1", "judge:m", { input: 1000, output: 100 }),
  ];
}

/** The judge part's details as the judge writes them; `null` leaves the token totals out. */
export const JUDGE_DETAILS = { model: "m", calls: 7, failed_calls: 2, input_tokens: 5000, output_tokens: 500 };

/** Writes the judge part (`details` as given) into the run's quality table. */
export async function writeJudgePart(dir: string, details: Record<string, unknown> = JUDGE_DETAILS): Promise<void> {
  await writeQualityPart(dir, judgeRows(runIdOf(dir)), {
    file: "judge-m.csv",
    written_by: "judge",
    details,
    rubrics: [summary],
  });
}

/** Writes the review and adjudication parts into the run's quality table. */
export async function writeReviewParts(dir: string): Promise<void> {
  const id = runIdOf(dir);
  const min = 60_000;
  await writeQualityPart(dir, [
    verdict(id, "a1", "human:ana", { time_ms: 2 * min }),
    verdict(id, "a2", "human:ana", { time_ms: 3 * min }),
    verdict(id, "w1", "human:ana", { time_ms: 10 * min }),
    verdict(id, "a1", "human:bo", { time_ms: 4 * min }),
    verdict(id, "a4", "human:bo", { time_ms: 1 * min }),
    verdict(id, "h1", "human:bo", { time_ms: null }),
  ], { file: "review.csv", written_by: "review import", details: { raters: ["ana", "bo"] }, rubrics: [summary] });
  await writeQualityPart(dir, [verdict(id, "a1", "adjudicated:lead", { time_ms: 5 * min })], {
    file: "adjudication.csv",
    written_by: "adjudication",
    details: {},
    rubrics: [summary],
  });
}
