/**
 * The names a judge model gives its files in `RUN/quality/`: the part `judge-<slug>.csv|parquet` and the journal
 * `.judge-<slug>.jsonl`, where the slug is the model name with anything but letters, digits, `.`, `_` and `-` made
 * `-`; and the verdicts' source, `judge:<model>`.
 *
 * @module
 */
import { QualitySource } from "../../schema/quality.ts";

/** The longest slug kept (the part's name must fit the quality manifest's 128 characters). */
const MAX_SLUG = 100;

/**
 * The model's slug in file names.
 *
 * @example
 * ```ts
 * import { modelSlug } from "./names.ts";
 * import assert from "node:assert/strict";
 * assert.equal(modelSlug("openai/gpt-4.1-mini"), "openai-gpt-4.1-mini");
 * assert.equal(modelSlug("sim-llm"), "sim-llm");
 * ```
 */
export function modelSlug(model: string): string {
  const slug = model.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^[^A-Za-z0-9]+/, "").slice(0, MAX_SLUG);
  return slug === "" ? "model" : slug;
}

/** The judge part's file name in `RUN/quality/`. */
export function judgePartFile(model: string, format: "csv" | "parquet"): string {
  return `judge-${modelSlug(model)}.${format}`;
}

/** The judge journal's file name in `RUN/quality/` (hidden: a dot first). */
export function judgeJournalFile(model: string): string {
  return `.judge-${modelSlug(model)}.jsonl`;
}

/**
 * Why `model` cannot name a judge source (`judge:<model>`: no spaces or commas, not starting with `:`, at most 128
 * characters), or null when it can.
 *
 * @example
 * ```ts
 * import { judgeModelProblem } from "./names.ts";
 * import assert from "node:assert/strict";
 * assert.equal(judgeModelProblem("gpt-4.1"), null);
 * assert.match(judgeModelProblem("my judge")!, /no spaces or commas/);
 * ```
 */
export function judgeModelProblem(model: string): string | null {
  if (QualitySource.safeParse(`judge:${model}`).success) return null;
  return `${JSON.stringify(model.slice(0, 60))} cannot name the verdicts' source judge:<model>: at most 128 ` +
    "characters, no spaces or commas, not starting with :";
}
