import { fixed } from "../../lib/number_format.ts";
import { textTable } from "../../lib/text_table.ts";
import { InputError } from "../../schema/errors.ts";
import type { SloPolicy } from "../../schema/slo.ts";
import { classSlo, policyForRun } from "../goodput/policy.ts";
import { inlineQualityPolicy, qualitySourceOf } from "../goodput/quality_source.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import { qualityGoodput } from "./quality_goodput.ts";
import { qualityVariants, refusalText, withQualitySource } from "./quality_variants.ts";
import type { RunQuality } from "./verdicts.ts";

/** One class read with one quality source. */
export interface SourceAcceptanceRow {
  class: string;
  /** `inline`, `judge:<model>`, `human`, `calibrated-judge:<model>`. */
  source: string;
  /** This is the source the policy names for the class (its judge included). */
  policy: boolean;
  offered: number;
  /** Accepted: a count (inline, judge) or an estimate; null when refused. */
  accepted: number | null;
  accepted_low: number | null;
  accepted_high: number | null;
  /** accepted / offered, with the interval's ends over offered. */
  acceptance_rate: number | null;
  acceptance_low: number | null;
  acceptance_high: number | null;
  /** Quality unknown (judge sources): requests passing every other gate without a verdict. */
  quality_unknown: number;
  /** Why the source cannot be used; null when it can. */
  refused: string | null;
}

/**
 * Every open-ended class of the run (`RunQuality.classes`) read with every quality source the table has the data for
 * ({@linkcode qualityVariants}), the other classes inline: its accepted count and acceptance with the interval of an
 * estimate, or why the source is refused. Each row is {@linkcode qualityGoodput} of the policy with that class's
 * source replaced (nothing re-implemented). Pure.
 *
 * @example
 * ```ts ignore
 * for (const r of acceptanceBySource(run, policy, quality)) console.log(r.class, r.source, r.acceptance_rate);
 * ```
 */
export function acceptanceBySource(run: LoadedRun, policy: SloPolicy, quality: RunQuality): SourceAcceptanceRow[] {
  policy = policyForRun(policy, run, "acceptanceBySource() policy");
  const inline = inlineQualityPolicy(policy);
  const out: SourceAcceptanceRow[] = [];
  for (const cls of quality.classes) {
    const own = classSlo(policy, cls);
    for (const v of qualityVariants(quality, [cls])) {
      const isPolicy = qualitySourceOf(own) === v.source &&
        (v.judge === null || own.judge === undefined || own.judge === v.judge);
      const blank = {
        class: cls,
        source: v.label,
        policy: isPolicy,
        offered: 0,
        accepted: null,
        accepted_low: null,
        accepted_high: null,
        acceptance_rate: null,
        acceptance_low: null,
        acceptance_high: null,
        quality_unknown: 0,
      };
      try {
        const g = qualityGoodput(run, withQualitySource(inline, [cls], v), quality);
        const row = g.by_class.find((r) => r.class === cls);
        const d = g.quality.classes.find((c) => c.class === cls);
        out.push({
          ...blank,
          offered: row?.offered ?? 0,
          accepted: row?.accepted ?? 0,
          accepted_low: row?.estimate?.accepted_low ?? null,
          accepted_high: row?.estimate?.accepted_high ?? null,
          acceptance_rate: row?.acceptance_rate ?? null,
          acceptance_low: row?.estimate?.acceptance_rate_low ?? null,
          acceptance_high: row?.estimate?.acceptance_rate_high ?? null,
          quality_unknown: d?.quality_unknown ?? 0,
          refused: null,
        });
      } catch (e) {
        // A refusal is this row's finding, not the analysis's end: converted to its reason.
        if (!(e instanceof InputError)) throw e;
        out.push({ ...blank, refused: refusalText(e) });
      }
    }
  }
  return out;
}

/**
 * One row of the table "acceptance by quality source" as its cells, the same in the text table and the report's:
 * class, source, `policy` on the policy's own source, offered, accepted (`≈` and the interval of an estimate),
 * acceptance (with its interval), quality unknown, and the reason of a refusal (empty when none).
 */
export function acceptanceBySourceCells(r: SourceAcceptanceRow): string[] {
  const range = (lo: number | null, hi: number | null, d: number) =>
    lo === null ? "" : ` [${fixed(lo, d)}, ${fixed(hi, d)}]`;
  return [
    r.class,
    r.source,
    r.policy ? "policy" : "",
    String(r.offered || "-"),
    r.accepted === null
      ? "-"
      : r.accepted_low === null
      ? String(r.accepted)
      : `≈${fixed(r.accepted, 1)}${range(r.accepted_low, r.accepted_high, 1)}`,
    r.acceptance_rate === null ? "-" : `${fixed(r.acceptance_rate, 4)}${range(r.acceptance_low, r.acceptance_high, 4)}`,
    r.quality_unknown ? String(r.quality_unknown) : "-",
    r.refused ?? "",
  ];
}

/** The table "acceptance by quality source" as aligned text; empty when the run has no open-ended class. */
export function formatAcceptanceBySource(rows: readonly SourceAcceptanceRow[], level: number): string {
  if (!rows.length) return "";
  const body = rows.map((r) => {
    const cells = acceptanceBySourceCells(r);
    cells[7] = r.refused ? `REFUSED: ${r.refused}` : "";
    return cells;
  });
  return [
    `acceptance by quality source (each open-ended class read with each source the quality table holds; ≈ = an ` +
    `estimate with its ${level * 100} % interval; unknown = no judge verdict, not accepted; docs/quality_goodput.md)`,
    ...textTable(["class", "source", "", "offered", "accepted", "accept", "unknown", ""], body, {
      left: 3,
      lastLeft: true,
    }),
  ].join("\n");
}
