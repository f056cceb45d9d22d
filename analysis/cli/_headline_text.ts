/**
 * The audit of a peer tool's headline in plain text (`npx deno task audit` with a headline claim): one verdict line,
 * the comparison rule, the table of every value (the tool's rules, the tool's own other numbers, this toolkit's rules,
 * every rule choice searched), then one line per caveat.
 *
 * @module
 */
import type { HeadlineAudit, HeadlineChoice } from "../audit/headline_audit.ts";
import { sig } from "../../lib/number_format.ts";
import { textTable } from "../../lib/text_table.ts";

/** The verdict words (docs/importing.md#verdicts-of-an-audit). */
export const HEADLINE_VERDICT_WORDS = {
  reproduced: "REPRODUCED",
  not_reproduced: "NOT REPRODUCED",
  not_recomputed: "NOT RECOMPUTED",
} as const;

/** The rule choices searched that give the published value, and whether they can be told apart. */
function searchedText(r: HeadlineAudit): string {
  if (!r.searched) return "";
  const k = r.reproducing.length;
  if (k === 0) return `; none of the ${r.searched} rule choices searched gives it`;
  const at = r.comparison.rule === "stated_tolerance" ? "within that tolerance" : "at the published precision";
  if (k === 1) return `; 1 of ${r.searched} rule choices searched gives it: ${r.reproducing[0]!.choice}`;
  const same = r.reproducing.every((c) => c.value === r.reproducing[0]!.value);
  return `; ${k} of ${r.searched} rule choices searched give it and cannot be told apart ${at}` +
    (same ? " (they give the identical value from these records)" : "");
}

/** The one verdict line. */
export function headlineVerdictLine(r: HeadlineAudit): string {
  const what = `${r.key} = ${r.comparison.published.text} ${r.unit} (stage ${r.stage ?? "all"})`;
  const word = HEADLINE_VERDICT_WORDS[r.verdict];
  if (r.verdict === "not_recomputed") return `AUDIT: ${word} — ${what}: ${r.verdict_reason}`;
  const how = r.comparison.rule === "stated_tolerance"
    ? `within the stated tolerance ±${sig(r.comparison.allowed, 3)}`
    : "at the published precision";
  const v = r.recomputed!.value!;
  const gives = r.verdict === "reproduced"
    ? `the tool's rule gives ${value(r, v)}`
    : `the tool's rule gives ${value(r, v)}, off by ${sig(v - r.claimed, 3)} (more than ±${
      sig(r.comparison.allowed, 3)
    })`;
  return `AUDIT: ${word} ${how} — ${what}: ${gives}${searchedText(r)}`;
}

/** A value with as many significant digits as the published one (at least 6). */
function value(r: HeadlineAudit, v: number | null): string {
  return sig(v, Math.min(17, Math.max(6, r.comparison.published.significant)));
}

function mark(c: HeadlineChoice, sample: boolean): string {
  if (c.value === null) return "no value";
  if (sample) return "over a sample";
  return c.match ? "gives it" : "differs";
}

/** The headline audit: the verdict line, the comparison rule, the table, one line per caveat. */
export function formatHeadlineAudit(r: HeadlineAudit, where: string, caveats: string[]): string {
  const sample = r.verdict === "not_recomputed" && r.recomputed !== null;
  const row = (what: string, c: HeadlineChoice, overSample = sample) => [
    what,
    c.choice,
    value(r, c.value),
    c.n === null ? "" : String(c.n),
    mark(c, overSample),
  ];
  const body = [
    ...(r.recomputed ? [row("the tool's rules", r.recomputed)] : []),
    // The tool's own totals are not the records kept: compared even when the records are a sample.
    ...r.consistency.map((c) => row("the tool's own numbers", c, false)),
    ...r.ours.map((c) => row("this toolkit's rules", c)),
    ...r.choices.map((c) => row("searched", c)),
  ];
  const compared = r.consistency.length > 0 || (!sample && r.recomputed !== null);
  return [
    headlineVerdictLine(r),
    ...(compared ? [`values are compared ${r.comparison.text}`] : []),
    ...(body.length
      ? textTable(["under", "rule choice", "value", "n", "vs published"], body, { left: 2, lastLeft: true })
      : []),
    `import: ${where}`,
    ...(r.definition ? [`the tool's definition: ${r.definition}`] : []),
    `the tool's rules: ${r.tool_rules ?? "not in the audit's table"}`,
    ...caveats,
    ...r.notes.map((n) => `NOTE: ${n}`),
  ].join("\n");
}
