/**
 * `review sample`: draws a packet from runs and writes its page and its sealed key.
 *
 * @module
 */
import { basename, dirname, relative, resolve } from "node:path";
import { InputError } from "../../../schema/errors.ts";
import { sha256Hex } from "../../../schema/quality_file.ts";
import type { SampleSizing } from "./draw_sample.ts";
import { buildPacket, type BuiltPacket } from "./packet.ts";
import { packetHtml } from "./packet_html.ts";
import { reviewPopulation } from "./population.ts";
import type { ReviewKey, StratumKey } from "./review_files.ts";

/** Options of {@linkcode sampleReview}. */
export interface SampleReviewOptions {
  /** The page to write, `PACKET.html`; the key goes beside it as `PACKET.key.json`. */
  out: string;
  strata: readonly StratumKey[];
  sizing: SampleSizing;
  seed: number;
  raters: readonly string[];
  double_share: number;
  /** Only these classes (each must have a rubric). */
  classes?: readonly string[];
  /** The workload folder, instead of run.json `workload.path`. */
  workload?: string;
  /** The key's creation time. @default {new Date()} */
  now?: Date;
}

/** What {@linkcode sampleReview} wrote. */
export interface SampleReviewResult extends BuiltPacket {
  html: string;
  fullKey: ReviewKey;
  files: { packet: string; key: string };
}

/**
 * `PACKET.key.json` beside `PACKET.html`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { keyFileOf } from "./sample_review.ts";
 * assert.equal(keyFileOf("out/review/week49.html"), "out/review/week49.key.json");
 * ```
 */
export function keyFileOf(packet: string): string {
  return packet.replace(/\.html?$/i, "") + ".key.json";
}

/**
 * Reads the runs, draws the packet and writes `out` (the page, readable by raters) and its key (owner-only, mode 600:
 * the key unblinds the packet). A total that cannot be allocated over the strata is an {@linkcode InputError}.
 *
 * @example A folder that is not a run is an input error
 * ```ts
 * import assert from "node:assert/strict";
 * import { sampleReview } from "./sample_review.ts";
 * const o = { out: "/tmp/p.html", strata: ["class"] as const, sizing: { mode: "total", total: 4, min_per_stratum: 1 } as const,
 *   seed: 1, raters: ["ana"], double_share: 0 };
 * await assert.rejects(sampleReview(["/nonexistent-run"], o), /cannot draw a review sample/);
 * ```
 */
export async function sampleReview(
  runDirs: readonly string[],
  options: SampleReviewOptions,
): Promise<SampleReviewResult> {
  const population = await reviewPopulation(runDirs, { classes: options.classes, workload: options.workload });
  if (!population.candidates.length) {
    throw new InputError(
      "nothing to review: no answered request of these runs has a saved output and a rubric",
      population.runs.map((r) =>
        `${r.path}: ${r.answered} answered, ${r.with_output} with a saved output, ${r.eligible} in ${
          population.classes.join(", ")
        }`
      ),
    );
  }
  const keyFile = keyFileOf(options.out);
  const keyDir = dirname(resolve(keyFile));
  let built: BuiltPacket;
  try {
    built = buildPacket(population, {
      strata: options.strata,
      sizing: options.sizing,
      seed: options.seed,
      raters: options.raters,
      double_share: options.double_share,
      runDirs: population.runs.map((r) => relative(keyDir, resolve(r.path)) || "."),
    });
  } catch (e) {
    if (e instanceof RangeError) throw new InputError(`cannot size the sample: ${e.message}`, [], { cause: e });
    throw e;
  }
  const html = packetHtml(built.data);
  const fullKey: ReviewKey = {
    ...built.key,
    packet_file: basename(options.out),
    html_sha256: sha256Hex(html),
    created_iso: (options.now ?? new Date()).toISOString(),
  };
  await Deno.writeTextFile(options.out, html);
  await Deno.writeTextFile(keyFile, JSON.stringify(fullKey, null, 2) + "\n", { mode: 0o600 });
  await Deno.chmod(keyFile, 0o600);
  return { ...built, html, fullKey, files: { packet: options.out, key: keyFile } };
}
