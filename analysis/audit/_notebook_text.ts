/**
 * Shared text helpers of the notebook glue: rule choices in words. Private
 * to analysis/ (numbers and aligned tables: `lib/number_format.ts`,
 * `lib/text_table.ts`).
 *
 * @module
 */
import { percent, sig } from "../../lib/number_format.ts";
import type { RuleChoice } from "./audit.ts";

/** A rule choice in words. */
export function rulesText(c: RuleChoice): string {
  if (c.slo === null) return `window ${c.window}`;
  return `${
    c.denominator === null ? "" : `denominator ${c.denominator}, `
  }window ${c.window}, SLO ${c.slo}, gates ${c.gates}${c.quality === undefined ? "" : `, quality ${c.quality}`}`;
}

/** A rule choice in words with its value (and n for latency). */
export function choiceText(c: RuleChoice): string {
  const at = c.support_confidence === undefined ? "" : ` at ${percent(c.support_confidence)}`;
  const n = c.slo === null ? ` (n = ${c.n}${c.supported ? "" : `, NOT supported${at}`})` : "";
  return `${rulesText(c)} -> ${sig(c.value)}${n}`;
}
