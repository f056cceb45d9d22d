/**
 * The audit of a peer tool's headline in plain text (`npx deno task audit` with a headline claim).
 *
 * @module
 */
import type { HeadlineAudit, HeadlineChoice } from "../audit/headline_audit.ts";
import { sig } from "../../lib/number_format.ts";

const DIGITS = 6;

function line(c: HeadlineChoice): string {
  return `${c.choice} -> ${sig(c.value, DIGITS)}${c.n === null ? "" : ` (n = ${c.n})`}${
    c.match ? "  [reproduces]" : ""
  }`;
}

/** The headline audit: the claim, the source's caveats, (1) the tool's rules, (2) ours, (3) the reproducing choices. */
export function formatHeadlineAudit(r: HeadlineAudit, where: string, caveats: string[]): string {
  const tol = `±${
    sig(r.tolerance.allowed, DIGITS)
  } = max(absolute ${r.tolerance.absolute}, relative ${r.tolerance.relative} × |claim|)${
    r.tolerance.stated ? "" : ", default"
  }`;
  const verdict = r.recomputed === null ? "NOT RECOMPUTED" : r.recomputed.match ? "REPRODUCED" : "NOT REPRODUCED";
  return [
    `headline: ${r.headline} = ${r.claimed} ${r.unit} (stage ${r.stage ?? "all"}; import ${where})`,
    ...(r.definition ? [`  the tool's definition: ${r.definition}`] : []),
    ...caveats.map((c) => `  ${c}`),
    `(1) under the tool's rules: ${r.tool_rules ?? "not known"}`,
    ...(r.recomputed ? [`  ${line(r.recomputed)}`] : [`  not recomputed: ${r.why_not}`]),
    ...(r.consistency.length
      ? ["  against the tool's own numbers:", ...r.consistency.map((c) => `    ${line(c)}`)]
      : []),
    "(2) under this toolkit's rules:",
    ...(r.ours.length ? r.ours.map((c) => `  ${line(c)}`) : ["  none: no per-request data"]),
    ...r.notes.map((n) => `NOTE: ${n}`),
    `${verdict}: ${
      r.recomputed ? `recomputed ${sig(r.recomputed.value, DIGITS)} vs ` : ""
    }claimed ${r.claimed} (tolerance ${tol})`,
    `(3) rule choices that reproduce the headline (${r.reproducing.length} of ${r.searched} searched):`,
    ...(r.reproducing.length ? r.reproducing.map((c) => `  ${line(c)}`) : ["  none"]),
  ].join("\n");
}
