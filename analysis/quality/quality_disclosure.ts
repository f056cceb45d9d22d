import { fixed, sig } from "../../lib/number_format.ts";
import type { QualitySettings, QualitySourceName } from "../../schema/slo.ts";
import type { CalibrationCell } from "./calibration.ts";
import type { RaterAgreement } from "./rater_agreement.ts";

/** How a measured quality source turned verdicts into a class's accepted count. */
export type QualityMethod = "inline" | "verdict_count" | "stratified_normal_fpc" | "rogan_gladen_delta";

/** A judge's calibration against the reviewers, as one class used it. */
export interface CalibrationUsed {
  judge: string;
  /** `class`: the class's own items; `pooled`: every class's (too few of the class's on one side). */
  scope: "class" | "pooled";
  n: number;
  tp: number;
  fp: number;
  tn: number;
  fn: number;
  sensitivity: { estimate: number | null; low: number; high: number };
  specificity: { estimate: number | null; low: number; high: number };
  kappa: { value: number | null; low: number | null; high: number | null };
  /** The class's own calibration items the reviewers passed and failed (the scope rule's counts). */
  class_pass: number;
  class_fail: number;
}

/** What one class's measured quality rests on. */
export interface QualityClassDisclosure {
  class: string;
  source: QualitySourceName;
  /** The judge model of a judge source; null otherwise. */
  judge: string | null;
  method: QualityMethod;
  level: number;
  /** Requests of the class in the window that pass every gate of their SLO but quality: what quality decides. */
  population: number;
  /** Of them, those with a settled human consensus (the human sample; for a judge source, the reviewed ones). */
  reviewed: number;
  /** Of them, those reviewed whose raters disagree and nobody adjudicated: left out of the sample. */
  unresolved: number;
  /** Of them, those without a verdict of the judge (judge, calibrated-judge): not accepted. */
  quality_unknown: number;
  /** The class's accepted count (an estimate for human and calibrated-judge) and its interval (null: a count). */
  accepted: number;
  accepted_low: number | null;
  accepted_high: number | null;
  /** The human raters and adjudicators with a verdict on the class, sorted. */
  raters: string[];
  adjudicators: string[];
  /** The raters' agreement on the class's items rated twice or more. */
  agreement: RaterAgreement;
  /** The judge against the reviewers (judge, calibrated-judge); null: no calibration item, or another source. */
  calibration: CalibrationUsed | null;
  /** Human: each stratum (route × stage) with its population, sample and pass share. */
  strata: { name: string; population: number; sampled: number; passed: number }[];
  /** Calibrated-judge: the judge's pass share among the judged population and its corrected value. */
  correction:
    | { judged_n: number; judged_pass: number; apparent: number; corrected: number; low: number; high: number }
    | null;
  /** One line per caveat, most consequential first. */
  caveats: string[];
}

/** The quality sources of a goodput result. */
export interface QualityDisclosure {
  /** The policy's quality settings as applied. */
  settings: QualitySettings;
  /** Every class of the run whose source is not inline. */
  classes: QualityClassDisclosure[];
  /** The rules in words. */
  rules: string[];
}

/** The rules of measured quality, in words (docs/quality_goodput.md). */
export const QUALITY_RULES: readonly string[] = [
  "a class's quality_ok comes from its quality_source: inline = the requests log's column; judge = the judge's " +
  "verdict; human = the reviewers' consensus on a sample (an estimate); calibrated-judge = the judge's pass share " +
  "corrected for its error measured against the reviewers (an estimate)",
  "a measured source applies to every answer of its class (quality_ok applies, whatever the inline check did); its " +
  "population is the class's requests in the window that pass every other gate of their SLO",
  "judge: a request without the judge's verdict is not accepted (quality unknown) and is counted",
  "human consensus: the adjudicated verdict, else the raters' common verdict; raters who disagree unresolved leave the " +
  "item out of the sample and out of calibration",
  "human: accepted = Σ over strata (route × stage) of N_h × p_h, N_h the stratum's population, p_h the pass share of " +
  "its reviewed items; variance Σ N_h² (1 − n_h/N_h) p_h(1 − p_h)/(n_h − 1); a stratum with population and no " +
  "reviewed item is refused",
  "calibrated-judge: accepted = judged × (p + Sp − 1)/(Se + Sp − 1) (Rogan–Gladen, clipped to [0, 1]) with Se, Sp " +
  "of the judge against the reviewers on the class's items when it has enough of each side, else pooled; delta-method " +
  "interval",
  "a judge whose Cohen's kappa against the reviewers is below min_judge_kappa is refused",
  "a row with an estimated class carries its interval: point ± z·SE clipped to what its members allow; classes " +
  "corrected with one pooled calibration add their errors (as if fully correlated), other classes in quadrature",
];

const pct = (x: number | null) => (x === null ? "-" : fixed(x, 3));
const range = (lo: number | null, hi: number | null) => (lo === null ? "" : ` [${pct(lo)}, ${pct(hi)}]`);

/** A calibration in words: `Se 0.900 [0.6, 1], Sp …, κ …, n …`. */
export function calibrationText(c: CalibrationUsed): string {
  return `Se ${pct(c.sensitivity.estimate)}${range(c.sensitivity.low, c.sensitivity.high)}, Sp ${
    pct(c.specificity.estimate)
  }${range(c.specificity.low, c.specificity.high)}, kappa ${pct(c.kappa.value)}${range(c.kappa.low, c.kappa.high)}, ` +
    `n ${c.n} (${c.scope === "class" ? "the class's own items" : "pooled over every class"})`;
}

/** The calibration fields a class's disclosure keeps of a calibration cell. */
export function calibrationUsed(
  judge: string,
  scope: "class" | "pooled",
  cell: CalibrationCell,
  classSides: { class_pass: number; class_fail: number },
): CalibrationUsed {
  const w = (x: CalibrationCell["sensitivity"]) => ({ estimate: x.estimate, low: x.low, high: x.high });
  return {
    judge,
    scope,
    n: cell.n,
    tp: cell.tp,
    fp: cell.fp,
    tn: cell.tn,
    fn: cell.fn,
    sensitivity: w(cell.sensitivity),
    specificity: w(cell.specificity),
    kappa: { value: cell.kappa.kappa, low: cell.kappa.ci.low, high: cell.kappa.ci.high },
    ...classSides,
  };
}

/**
 * A class's measured quality in lines: the figure first (source, accepted with its interval, method, level), then
 * what it rests on (n reviewed, raters, agreement, calibration), then one line per caveat.
 */
export function qualityClassLines(d: QualityClassDisclosure): string[] {
  const interval = d.accepted_low === null ? "" : ` [${fixed(d.accepted_low, 1)}, ${fixed(d.accepted_high, 1)}]`;
  const what = d.accepted_low === null ? String(d.accepted) : `≈${fixed(d.accepted, 1)}${interval}`;
  const a = d.agreement;
  const agreement = a.method === "none"
    ? "no item rated twice"
    : `${a.method === "cohen_kappa" ? "Cohen's kappa" : "Krippendorff's alpha (nominal)"} ${pct(a.value)}${
      range(a.low, a.high)
    } on ${a.items} items rated twice or more (${a.disagreements} disagreements)`;
  return [
    `${d.class}: quality ${d.source}${d.judge ? ` (judge ${d.judge})` : ""}: accepted ${what} of ${d.population} ` +
    `passing every other gate; method ${d.method}${
      d.accepted_low === null ? "" : `, ${sig(d.level * 100)} % interval`
    }`,
    `  reviewed ${d.reviewed} (settled); unresolved disagreements left out ${d.unresolved}; quality unknown ` +
    `${d.quality_unknown}; raters ${d.raters.join(", ") || "none"}${
      d.adjudicators.length ? `; adjudicated by ${d.adjudicators.join(", ")}` : ""
    }; agreement: ${agreement}`,
    ...(d.calibration
      ? [`  judge ${d.calibration.judge} against the reviewers: ${calibrationText(d.calibration)}`]
      : []),
    ...(d.correction
      ? [
        `  Rogan–Gladen: judged pass share ${pct(d.correction.apparent)} of ${d.correction.judged_n} → corrected ` +
        `${pct(d.correction.corrected)}${range(d.correction.low, d.correction.high)} (delta method)`,
      ]
      : []),
    ...(d.strata.length
      ? [
        `  strata (route × stage: population, reviewed, passed): ${
          d.strata.map((s) => `${s.name} ${s.population}/${s.sampled}/${s.passed}`).join("; ")
        }`,
      ]
      : []),
    ...d.caveats.map((c) => `  NOTE ${c}`),
  ];
}

/** The quality disclosure in lines (empty when every class's quality is inline). */
export function qualityLines(q: QualityDisclosure): string[] {
  if (!q.classes.length) return [];
  return [
    `quality sources (min_judge_kappa ${q.settings.min_judge_kappa}, level ${q.settings.level}, ` +
    `min_calibration_per_side ${q.settings.min_calibration_per_side}):`,
    ...q.classes.flatMap((d) => qualityClassLines(d).map((l) => `  ${l}`)),
  ];
}
