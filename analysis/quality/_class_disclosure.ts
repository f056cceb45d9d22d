/**
 * One class's quality disclosure from its resolved source, its population and its estimate. Private to
 * analysis/quality/.
 *
 * @module
 */
import { fixed } from "../../lib/number_format.ts";
import { sourceKind } from "../../schema/quality.ts";
import type { GoodputRow } from "../goodput/goodput.ts";
import type { ClassQuality } from "./_class_quality.ts";
import { humanConsensus } from "./consensus.ts";
import type { Member } from "./_estimators.ts";
import { calibrationUsed, type QualityClassDisclosure } from "./quality_disclosure.ts";
import { raterAgreement } from "./rater_agreement.ts";
import type { RoganGladenUsable } from "./rogan_gladen.ts";
import type { StratifiedResult } from "./stratified.ts";
import type { RunQuality } from "./verdicts.ts";

/** What an estimated class's estimator measured. */
export type Estimated =
  | { kind: "human"; stratified: StratifiedResult; reviewed: number; unresolved: number }
  | { kind: "calibrated"; correction: RoganGladenUsable | null };

/** The disclosure of one class whose quality is not inline. */
export function classDisclosure(
  r: Exclude<ClassQuality, { source: "inline" }>,
  members: readonly Member[],
  estimated: Estimated | null,
  row: GoodputRow | undefined,
  ctx: { quality: RunQuality; level: number },
): QualityClassDisclosure {
  const { quality, level } = ctx;
  const classRows = quality.rows.filter((q) => quality.class_of.get(q.request_id) === r.cls);
  const names = (kind: string) =>
    [...new Set(classRows.filter((q) => sourceKind(q.source) === kind).map((q) => q.source.slice(kind.length + 1)))]
      .sort();
  const consensus = humanConsensus(classRows);
  const settled = members.filter((m) => consensus.get(m.id)?.pass != null).length;
  const unresolved = members.filter((m) => consensus.get(m.id)?.status === "disagreed").length;
  const judged = "verdicts" in r ? members.filter((m) => r.verdicts.has(m.id)) : [];
  const unknown = "verdicts" in r ? members.length - judged.length : 0;
  const calibration = "calibration" in r && r.calibration
    ? calibrationUsed(r.judge, r.calibration.scope, r.calibration.cell, r.calibration)
    : null;
  const caveats: string[] = [];
  if (unknown) {
    caveats.push(
      `${unknown} of ${members.length} requests passing every other gate have no verdict of judge ${
        (r as { judge: string }).judge
      }: not accepted (quality unknown)`,
    );
  }
  if (r.source === "judge" && !calibration) {
    caveats.push(`judge ${r.judge} is not calibrated: no item has both its verdict and a settled human consensus`);
  }
  if (calibration?.scope === "pooled" && r.source === "calibrated-judge") {
    caveats.push(
      `the class has ${calibration.class_pass} reviewed passes and ${calibration.class_fail} fails with a verdict of ` +
        `judge ${calibration.judge}: its error is measured pooled over every class`,
    );
  }
  if (unresolved) {
    caveats.push(
      `${unresolved} reviewed requests with unresolved disagreements left out of the ${
        r.source === "human" ? "sample" : "calibration"
      }`,
    );
  }
  if (estimated?.kind === "human") caveats.push(...estimated.stratified.notes);
  if (estimated?.kind === "calibrated" && estimated.correction?.clipped) {
    caveats.push(
      `the corrected pass share ${fixed(estimated.correction.raw_estimate, 3)} fell outside [0, 1]: clipped`,
    );
  }
  const c = estimated?.kind === "calibrated" ? estimated.correction : null;
  return {
    class: r.cls,
    source: r.source,
    judge: "judge" in r ? r.judge : null,
    method: r.source === "judge"
      ? "verdict_count"
      : r.source === "human"
      ? "stratified_normal_fpc"
      : "rogan_gladen_delta",
    level,
    population: members.length,
    reviewed: estimated?.kind === "human" ? estimated.reviewed : settled,
    unresolved,
    quality_unknown: unknown,
    accepted: row?.accepted ?? 0,
    accepted_low: row?.estimate?.accepted_low ?? null,
    accepted_high: row?.estimate?.accepted_high ?? null,
    raters: names("human"),
    adjudicators: names("adjudicated"),
    agreement: raterAgreement(classRows, quality.class_of, r.cls, { level }),
    calibration,
    strata: estimated?.kind === "human"
      ? estimated.stratified.strata.map((s) => ({
        name: s.name,
        population: s.population,
        sampled: s.sampled,
        passed: s.passed,
      }))
      : [],
    correction: c
      ? {
        judged_n: c.judged_n,
        judged_pass: c.judged_pass,
        apparent: c.apparent ?? 0,
        corrected: c.estimate,
        low: c.low,
        high: c.high,
      }
      : null,
    caveats,
  };
}
