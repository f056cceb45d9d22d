/**
 * Quality statistics: how far a judge (a person, a rubric, a model) can be
 * trusted and what pass rate a sample supports. Pure functions; every result
 * carries what it was computed on (n, method, confidence level).
 *
 * - {@linkcode cohenKappa}: two raters' agreement beyond chance, bootstrap interval over items.
 * - {@linkcode krippendorffAlpha}: any number of raters, missing values, four metrics,
 *   bootstrap interval over units.
 * - {@linkcode wilsonInterval}, {@linkcode confusionMatrix}: a proportion's Wilson
 *   interval; a judge's sensitivity, specificity, accuracy and kappa against the truth.
 * - {@linkcode roganGladen}: the pass rate corrected for the judge's measured error.
 * - {@linkcode stratifiedProportion}, {@linkcode sampleSizeForWidth},
 *   {@linkcode allocateSample}: a pass rate from a stratified sample, the
 *   sample a target width needs, and its split over strata.
 *
 * And a run's quality table read for analysis (docs/quality_goodput.md):
 *
 * - {@linkcode loadRunQuality}: the verdicts of a run, checked and indexed.
 * - {@linkcode humanConsensus}: what people said of each item (adjudicated, agreed, disagreed).
 * - {@linkcode raterAgreementByClass}, {@linkcode raterDisagreements}: the raters' agreement and the disagreement
 *   record.
 * - {@linkcode judgeCalibration}: a judge against the people (confusion matrix, Se, Sp, kappa).
 * - {@linkcode qualityGoodput}: goodput with each class's quality from its source; {@linkcode acceptanceBySource}:
 *   each open-ended class read with every source.
 *
 * The formulas, the published examples that check them and the intervals'
 * limits are in docs/quality_statistics.md.
 *
 * @example A judge calibrated on 200 labelled items, then run on 1000
 * ```ts
 * import assert from "node:assert/strict";
 * import { confusionMatrix, roganGladen } from "./mod.ts";
 * const item = (truth: boolean, judged: boolean, times: number) => Array(times).fill({ truth, judged });
 * const m = confusionMatrix([
 *   ...item(true, true, 90), ...item(true, false, 10), ...item(false, false, 80), ...item(false, true, 20),
 * ], { resamples: 200 });
 * assert.equal(m.sensitivity.estimate, 0.9);
 * const r = roganGladen({ judged_pass: 600, judged_n: 1000, tp: m.tp, fn: m.fn, tn: m.tn, fp: m.fp });
 * // (0.6 + 0.8 − 1) / (0.9 + 0.8 − 1) = 0.4 / 0.7
 * assert.ok(r.usable && Math.abs(r.estimate - 0.4 / 0.7) < 1e-12);
 * ```
 * @module
 */
export * from "./cohen_kappa.ts";
export * from "./krippendorff_alpha.ts";
export * from "./binary_rates.ts";
export * from "./rogan_gladen.ts";
export * from "./stratified.ts";
export * from "./verdicts.ts";
export * from "./consensus.ts";
export * from "./rater_agreement.ts";
export * from "./rater_disagreements.ts";
export * from "./calibration.ts";
export * from "./quality_disclosure.ts";
export * from "./quality_goodput.ts";
export * from "./acceptance_by_source.ts";
