/**
 * Shared text helpers of the notebook glue: numbers to 4 significant
 * digits, aligned grids and rule choices in words. Private to analysis/.
 *
 * @module
 */
import { percentText } from "../latency/_percentile_checks.ts";
import type { RuleChoice } from "./audit.ts";

/** Numbers to 4 significant digits, "-" for null. */
export function num(v: number | null | undefined): string {
  return v === null || v === undefined ? "-" : String(+v.toPrecision(4));
}

/** Aligned text: the first `left` columns padded right, the others left. */
export function grid(head: string[], body: string[][], left: number): string[] {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i < left ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ").trimEnd();
  return [line(head), ...body.map(line)];
}

/** A rule choice in words. */
export function rulesText(c: RuleChoice): string {
  if (c.slo === null) return `window ${c.window}`;
  return `${
    c.denominator === null ? "" : `denominator ${c.denominator}, `
  }window ${c.window}, SLO ${c.slo}, gates ${c.gates}`;
}

/** A rule choice in words with its value (and n for latency). */
export function choiceText(c: RuleChoice): string {
  const at = c.support_confidence === undefined ? "" : ` at ${percentText(c.support_confidence)}`;
  const n = c.slo === null ? ` (n = ${c.n}${c.supported ? "" : `, NOT supported${at}`})` : "";
  return `${rulesText(c)} -> ${num(c.value)}${n}`;
}
