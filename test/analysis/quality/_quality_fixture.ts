/**
 * A hand-built run with a quality table, every figure of which the tests compute by hand.
 *
 * Stages: low (steady 0–10 s), peak (steady 10–20 s); the policy's window is both (20 s). One route, `a`.
 *
 * - class `summ` (open-ended): s01–s10 in low, s11–s20 in peak, every one answered in 500 ms and inline
 *   quality_ok true; s21 in peak answered in 1500 ms: late (e2e ≤ 1000). Population (passing every gate but
 *   quality): s01–s20, 10 per stratum (a × low, a × peak).
 * - class `qa` (inline): q1–q4 in low, q4 inline quality_ok false: 3 accepted of 4.
 *
 * Quality table (rubric `summary`, one pass/fail criterion):
 *
 * | item | judge m | judge quick | judge lenient | human (ann, bob) | adjudicated | consensus |
 * | ---- | ------- | ----------- | ------------- | ---------------- | ----------- | --------- |
 * | s01  | T | T | T | ann T, bob T | | T (agreed) |
 * | s02  | T | T | T | ann T | | T |
 * | s03  | T | T | T | ann T | | T |
 * | s04  | F | F | T | bob T | | T |
 * | s05  | F | F | F | ann F, bob F | | F |
 * | s06–s10 | T T F T T | same as m | T | | | |
 * | s11  | T | T | T | ann T, bob F | lee T | T (adjudicated) |
 * | s12  | F | F | T | ann F | | F |
 * | s13  | T | T | T | bob F | | F |
 * | s14  | T | T | T | ann T | | T |
 * | s15  | T | T | T | ann T, bob F | | disagreed |
 * | s16  | F | F | T | ann F, bob F | | F |
 * | s17–s20 | F T F T | F T F (none on s20) | T | | | |
 * | s21  | T | T | T | ann T | | T (outside the population: late) |
 *
 * Judge m passes 7 of 10 in low (s01 s02 s03 s06 s07 s09 s10) and 6 of 10 in peak (s11 s13 s14 s15 s18 s20): 13.
 */
import { join } from "node:path";
import type { RequestRow } from "../../../schema/events.ts";
import type { Stage } from "../../../schema/plan.ts";
import type { QualityRow } from "../../../schema/quality.ts";
import { type Rubric, rubricSha256 } from "../../../schema/rubric.ts";
import type { SloPolicy } from "../../../schema/slo.ts";
import { writeQualityPart } from "../../../schema/quality_file.ts";
import { answered, makeManifest, writeRun } from "../_fixture.ts";

export const STAGES: Stage[] = [
  { name: "low", kind: "steady", start_ms: 0, end_ms: 10_000, offered_rps: 1.4 },
  { name: "peak", kind: "steady", start_ms: 10_000, end_ms: 20_000, offered_rps: 1.1 },
];

const slo = { e2e_ms: 1000, gates: ["output_valid" as const, "quality_ok" as const] };

/** Every class inline: today's policy. */
export const POLICY: SloPolicy = {
  denominator: "offered",
  window: { exclude_stage_kinds: [] },
  classes: { summ: { ...slo }, qa: { ...slo } },
  default: { ...slo },
};

/** POLICY with class summ read from `quality_source` (and its judge), and the policy's quality settings. */
export function policyWith(
  source: "inline" | "judge" | "human" | "calibrated-judge",
  judge?: string,
  quality?: SloPolicy["quality"],
): SloPolicy {
  return {
    ...POLICY,
    classes: { ...POLICY.classes, summ: { ...slo, quality_source: source, ...(judge ? { judge } : {}) } },
    ...(quality ? { quality } : {}),
  };
}

const criterion = { id: "ok", description: "It answers the task.", scale: { kind: "pass_fail" as const } };
const draft = {
  rubric_id: "summary",
  version: "1.0.0",
  applies_to: { classes: ["summ"], cases: [] },
  instructions: "Pass when the summary is faithful.",
  criteria: [criterion],
  examples: { pass: [{ answer: "ok", why: "faithful" }], fail: [{ answer: "no", why: "invented" }] },
};
export const RUBRIC: Rubric = { ...draft, sha256: rubricSha256(draft) };

const id = (i: number) => `s${String(i).padStart(2, "0")}`;
const T = true, F = false;
/** Judge m's verdict on s01–s21. */
export const JUDGE_M = [T, T, T, F, F, T, T, F, T, T, T, F, T, T, T, F, F, T, F, T, T];
/** Human verdicts: item → [rater, pass][]. */
export const HUMAN: Record<string, [string, boolean][]> = {
  s01: [["ann", T], ["bob", T]],
  s02: [["ann", T]],
  s03: [["ann", T]],
  s04: [["bob", T]],
  s05: [["ann", F], ["bob", F]],
  s11: [["ann", T], ["bob", F]],
  s12: [["ann", F]],
  s13: [["bob", F]],
  s14: [["ann", T]],
  s15: [["ann", T], ["bob", F]],
  s16: [["ann", F], ["bob", F]],
  s21: [["ann", T]],
};

/** One verdict row. */
export function verdict(request_id: string, source: string, pass: boolean): QualityRow {
  const judge = source.startsWith("judge:");
  return {
    run_id: "fixture-run",
    request_id,
    source,
    rubric_id: RUBRIC.rubric_id,
    rubric_sha256: RUBRIC.sha256,
    scores: JSON.stringify({ ok: pass ? 1 : 0 }),
    pass,
    rationale: null,
    time_spent_ms: judge ? 900 : 30_000,
    judged_epoch_ms: 1_780_000_000_000,
    input_tokens: judge ? 500 : null,
    output_tokens: judge ? 20 : null,
    calls: judge ? 1 : null,
  };
}

/** The run's requests: `extra` adds rows (e.g. one in a stratum nobody reviewed). */
export function requests(extra: RequestRow[] = []) {
  const parts = [];
  for (let i = 1; i <= 21; i++) {
    const peak = i > 10;
    parts.push(answered({
      request_id: id(i),
      class: "summ",
      stage: peak ? "peak" : "low",
      route: "a",
      scheduled_ms: (peak ? 10_000 : 0) + 100 * i,
    }, i === 21 ? 1500 : 500));
  }
  for (let i = 1; i <= 4; i++) {
    parts.push(answered({
      request_id: `q${i}`,
      class: "qa",
      stage: "low",
      route: "a",
      scheduled_ms: 5_000 + 100 * i,
      quality_ok: i !== 4,
    }, 400));
  }
  return {
    requests: [...parts.map((p) => p.request), ...extra],
    attempts: parts.map((p) => p.attempt),
  };
}

/** Writes the run and its quality table (judges m, quick, lenient; raters ann and bob; lee's adjudication). */
export async function writeQualityRun(
  dir = join(Deno.makeTempDirSync(), "run"),
  options: { extra?: RequestRow[]; judges?: ("m" | "quick" | "lenient")[]; humans?: boolean } = {},
): Promise<string> {
  const manifest = makeManifest(STAGES);
  manifest.workload.classes = ["qa", "summ"];
  manifest.workload.rubric_hashes = { summary: RUBRIC.sha256 };
  writeRun(dir, manifest, requests(options.extra ?? []));
  const write = (file: string, rows: QualityRow[], by: string) =>
    writeQualityPart(dir, rows, { file, written_by: by, details: {}, rubrics: [RUBRIC] });
  const judges = options.judges ?? ["m", "quick", "lenient"];
  if (judges.includes("m")) {
    await write(
      "judge-m.csv",
      JUDGE_M.map((p, i) => verdict(id(i + 1), "judge:m", p)),
      "judge",
    );
  }
  if (judges.includes("quick")) {
    // Judge quick: m's verdicts, none on s20.
    const rows = JUDGE_M.map((p, i) => verdict(id(i + 1), "judge:quick", p)).filter((r) => r.request_id !== "s20");
    await write("judge-quick.csv", rows, "judge");
  }
  if (judges.includes("lenient")) {
    // Judge lenient passes everything but s05.
    await write("judge-lenient.csv", JUDGE_M.map((_, i) => verdict(id(i + 1), "judge:lenient", i !== 4)), "judge");
  }
  if (options.humans ?? true) {
    const rows = Object.entries(HUMAN).flatMap(([item, vs]) => vs.map(([r, p]) => verdict(item, `human:${r}`, p)));
    await write("review.csv", rows, "review import");
    await write("adjudication.csv", [verdict("s11", "adjudicated:lee", true)], "adjudication");
  }
  return dir;
}
