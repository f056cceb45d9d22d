/**
 * Blinded human review of saved answers (docs/quality_review.md). `sampleReview` draws a seeded, stratified sample
 * of runs' answers ({@linkcode reviewPopulation}, {@linkcode drawSample}), deals it to raters
 * ({@linkcode assignRaters}) and writes one self-contained page ({@linkcode packetHtml}) with a sealed key;
 * `importReview` checks the ratings the page exports ({@linkcode validateRatings}), writes them into each run's
 * quality table, measures the raters' agreement ({@linkcode reviewAgreement}) and writes the disagreement record
 * ({@linkcode disagreementRecord}) and its adjudication ({@linkcode validateAdjudication}). The files' formats are
 * zod schemas in `review_files.ts`.
 *
 * @example Every rater of a packet gets a list, a quarter of the items rated by both
 * ```ts
 * import assert from "node:assert/strict";
 * import { assignRaters } from "./mod.ts";
 * const items = Array.from({ length: 12 }, (_, i) => ({ id: `i${i}`, stratum: "s" }));
 * const a = assignRaters(items, ["ana", "bo"], { double_share: 0.25, seed: 3 });
 * assert.equal(a.double_rated.length, 3);
 * assert.equal(a.by_rater.ana!.length + a.by_rater.bo!.length, 12 + 3);
 * ```
 * @module
 */
export * from "./review_files.ts";
export * from "./population.ts";
export * from "./draw_sample.ts";
export * from "./assign_raters.ts";
export * from "./packet.ts";
export * from "./packet_html.ts";
export * from "./sample_review.ts";
export * from "./read_key.ts";
export * from "./validate_ratings.ts";
export * from "./agreement.ts";
export * from "./disagreements.ts";
export * from "./adjudication.ts";
export * from "./import_review.ts";
