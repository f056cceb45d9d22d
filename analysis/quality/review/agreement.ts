/**
 * How far the raters of a packet agree, on the items two or more of them rated: Cohen's kappa on the verdict when the
 * packet has two raters, Krippendorff's alpha on the verdict (nominal) and on each criterion (nominal for pass/fail,
 * ordinal and interval for points), each with a seeded bootstrap interval.
 *
 * @module
 */
import { cohenKappa, type CohenKappaResult } from "../cohen_kappa.ts";
import { type AlphaMetric, krippendorffAlpha, type KrippendorffAlphaResult } from "../krippendorff_alpha.ts";
import { sig } from "../../../lib/number_format.ts";
import { byText } from "./_random.ts";
import type { ValidRating } from "./validate_ratings.ts";

/** Agreement on one criterion of one rubric. */
export interface CriterionAgreement {
  rubric_id: string;
  criterion: string;
  scale: "pass_fail" | "points";
  /** Items of this rubric rated by two or more raters. */
  items: number;
  /** Nominal for a pass/fail criterion; ordinal and interval for points. */
  alpha: Partial<Record<AlphaMetric, KrippendorffAlphaResult>>;
}

/** The agreement of a packet's raters. */
export interface ReviewAgreement {
  raters: string[];
  /** Items rated by two or more raters. */
  items: number;
  /** On the rubric's verdict (pass/fail): kappa with exactly two raters in the packet (else null), and alpha. */
  pass: { kappa: CohenKappaResult | null; alpha: KrippendorffAlphaResult };
  criteria: CriterionAgreement[];
}

/** Options of {@linkcode reviewAgreement}. */
export interface ReviewAgreementOptions {
  /** The packet's raters, in the key's order (the coders of alpha's reliability data). */
  raters: readonly string[];
  /** The bootstrap's seed. @default {1} */
  seed?: number;
  /** Bootstrap resamples. @default {2000} */
  resamples?: number;
  /** Two-sided confidence level. @default {0.95} */
  level?: number;
}

/**
 * The agreement on every item that two or more raters rated. Alpha's reliability data has one unit per such item and
 * one coder per rater (null where a rater did not rate it); kappa's pairs are the items both of the two raters rated,
 * labelled `pass`/`fail`.
 *
 * @example Two raters agree on 3 of 4 verdicts
 * ```ts
 * import assert from "node:assert/strict";
 * import { reviewAgreement } from "./agreement.ts";
 * const rubric = { rubric_id: "r", sha256: "s", criteria: [{ id: "ok", scale: { kind: "pass_fail" } }] };
 * const v = (rater: string, item: string, ok: number) =>
 *   ({ rater, item, rubric, scores: { ok }, pass: ok === 1 }) as never;
 * const a = reviewAgreement([
 *   v("ana", "a", 1), v("bo", "a", 1), v("ana", "b", 0), v("bo", "b", 0),
 *   v("ana", "c", 1), v("bo", "c", 1), v("ana", "d", 1), v("bo", "d", 0),
 * ], { raters: ["ana", "bo"], resamples: 0 });
 * // p_o = 3/4; ana passes 3/4, bo 2/4: p_e = 3/4·2/4 + 1/4·2/4 = 1/2; κ = (3/4 − 1/2)/(1/2) = 0.5
 * assert.equal(a.pass.kappa!.kappa, 0.5);
 * assert.equal(a.items, 4);
 * ```
 */
export function reviewAgreement(ratings: readonly ValidRating[], options: ReviewAgreementOptions): ReviewAgreement {
  const stat = { seed: options.seed ?? 1, resamples: options.resamples ?? 2000, level: options.level ?? 0.95 };
  const raters = [...options.raters];
  const byItem = new Map<string, Map<string, ValidRating>>();
  for (const r of ratings) {
    let m = byItem.get(r.item);
    if (!m) byItem.set(r.item, m = new Map());
    m.set(r.rater, r);
  }
  const multi = [...byItem.entries()].filter(([, m]) => m.size >= 2).sort(([a], [b]) => byText(a, b));
  const units = (rows: typeof multi, value: (r: ValidRating) => number | string) =>
    rows.map(([, m]) => raters.map((name) => (m.has(name) ? value(m.get(name)!) : null)));
  const verdict = (r: ValidRating) => (r.pass ? "pass" : "fail");
  const pass = {
    kappa: raters.length === 2
      ? cohenKappa(
        multi.filter(([, m]) => m.has(raters[0]!) && m.has(raters[1]!)).map(([, m]) =>
          [verdict(m.get(raters[0]!)!), verdict(m.get(raters[1]!)!)] as [string, string]
        ),
        stat,
      )
      : null,
    alpha: krippendorffAlpha(units(multi, verdict), { metric: "nominal", ...stat }),
  };
  const rubrics = new Map<string, ValidRating["rubric"]>();
  for (const [, m] of multi) for (const r of m.values()) rubrics.set(r.rubric.sha256, r.rubric);
  const criteria: CriterionAgreement[] = [];
  for (const rubric of [...rubrics.values()].sort((a, b) => byText(a.rubric_id, b.rubric_id))) {
    const rows = multi.filter(([, m]) => [...m.values()][0]!.rubric.sha256 === rubric.sha256);
    for (const c of rubric.criteria) {
      const data = units(rows, (r) => r.scores[c.id]!);
      const metrics: AlphaMetric[] = c.scale.kind === "pass_fail" ? ["nominal"] : ["ordinal", "interval"];
      criteria.push({
        rubric_id: rubric.rubric_id,
        criterion: c.id,
        scale: c.scale.kind,
        items: rows.length,
        alpha: Object.fromEntries(metrics.map((metric) => [metric, krippendorffAlpha(data, { metric, ...stat })])),
      });
    }
  }
  return { raters, items: multi.length, pass, criteria };
}

function interval(ci: { low: number | null; high: number | null; level: number }): string {
  return ci.low === null || ci.high === null ? "no interval" : `[${sig(ci.low)}, ${sig(ci.high)}]`;
}

function alphaText(a: KrippendorffAlphaResult): string {
  return a.alpha === null
    ? `alpha ${a.metric} undefined (${a.undefined_reason})`
    : `alpha ${a.metric} ${sig(a.alpha)} ${interval(a.ci)}`;
}

/**
 * The agreement as text lines: the verdict's kappa and alpha, then each criterion's alpha, every figure with its
 * interval and n.
 *
 * @example No item rated twice
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatAgreement, reviewAgreement } from "./agreement.ts";
 * const a = reviewAgreement([], { raters: ["ana", "bo"], resamples: 0 });
 * assert.deepEqual(formatAgreement(a), ["agreement: no item was rated by two or more raters (raters ana, bo)"]);
 * ```
 */
export function formatAgreement(a: ReviewAgreement): string[] {
  if (a.items === 0) return [`agreement: no item was rated by two or more raters (raters ${a.raters.join(", ")})`];
  const ci = a.pass.alpha.ci;
  const lines = [
    `agreement on ${a.items} items rated by two or more of ${a.raters.join(", ")} ` +
    `(${Math.round(ci.level * 100)} % percentile bootstrap over items, ${ci.resamples} resamples, seed ${ci.seed}):`,
  ];
  const k = a.pass.kappa;
  const kappa = k === null
    ? ""
    : k.kappa === null
    ? `Cohen's kappa undefined (${k.undefined_reason}); `
    : `Cohen's kappa ${sig(k.kappa)} ${interval(k.ci)} on ${k.n} pairs (observed agreement ${
      sig(k.observed_agreement!)
    }); `;
  lines.push(`  verdict (pass/fail): ${kappa}${alphaText(a.pass.alpha)}`);
  for (const c of a.criteria) {
    const figures = Object.values(c.alpha).map((x) => alphaText(x!)).join("; ");
    lines.push(
      `  ${c.rubric_id}/${c.criterion} (${
        c.scale === "pass_fail" ? "pass/fail" : "points"
      }, ${c.items} items): ${figures}`,
    );
  }
  return lines;
}
