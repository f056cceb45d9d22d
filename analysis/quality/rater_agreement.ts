import { textTable } from "../../lib/text_table.ts";
import { type QualityRow, sourceKind } from "../../schema/quality.ts";
import { cohenKappa } from "./cohen_kappa.ts";
import { krippendorffAlpha } from "./krippendorff_alpha.ts";

/** How far the raters of one class agree on `pass`, on the items two or more of them rated. */
export interface RaterAgreement {
  /** Cohen's kappa with exactly two raters on those items; Krippendorff's alpha (nominal) with more; none without any. */
  method: "cohen_kappa" | "krippendorff_alpha_nominal" | "none";
  /** The coefficient; null when no item has two ratings or it is undefined (every rating the same). */
  value: number | null;
  /** Its seeded percentile-bootstrap interval; null when not defined. */
  low: number | null;
  high: number | null;
  level: number;
  /** Items rated by two or more raters. */
  items: number;
  /** The raters of those items, sorted. */
  raters: string[];
  /** Items rated twice or more on which the raters' `pass` differs (settled by adjudication or not). */
  disagreements: number;
}

/**
 * The raters' agreement on `pass` among one class's items rated by two or more people (`human:*` verdicts; an
 * adjudication is not a rating): Cohen's kappa when exactly two raters rated them, else Krippendorff's alpha
 * (nominal, missing ratings allowed), each with its seeded bootstrap interval over items.
 *
 * @example Two raters on four items, agreeing on three
 * ```ts
 * import assert from "node:assert/strict";
 * import { raterAgreement } from "./rater_agreement.ts";
 * const v = (request_id: string, source: string, pass: boolean) => ({
 *   run_id: "r", request_id, source, rubric_id: "x", rubric_sha256: "0".repeat(64), scores: "{}", pass,
 *   rationale: null, time_spent_ms: null, judged_epoch_ms: 0, input_tokens: null, output_tokens: null, calls: null,
 * });
 * const ann = [true, true, false, false], bob = [true, true, false, true];
 * const rows = ann.flatMap((a, i) => [v(`r${i}`, "human:ann", a), v(`r${i}`, "human:bob", bob[i]!)]);
 * const g = raterAgreement(rows, new Map(ann.map((_, i) => [`r${i}`, "qa"])), "qa", { resamples: 50 });
 * // p_o = 3/4; p_e = (2/4)(1/4) + (2/4)(3/4) = 1/2 → κ = (0.75 − 0.5)/0.5 = 0.5
 * assert.equal(g.method, "cohen_kappa");
 * assert.ok(Math.abs(g.value! - 0.5) < 1e-12);
 * assert.deepEqual([g.items, g.disagreements], [4, 1]);
 * ```
 */
export function raterAgreement(
  rows: readonly QualityRow[],
  classOf: ReadonlyMap<string, string>,
  cls: string,
  options: { level?: number; resamples?: number; seed?: number } = {},
): RaterAgreement {
  const level = options.level ?? 0.95;
  const opts = { level, resamples: options.resamples ?? 2000, seed: options.seed ?? 1 };
  const items = new Map<string, Map<string, boolean>>();
  for (const r of rows) {
    if (sourceKind(r.source) !== "human" || classOf.get(r.request_id) !== cls) continue;
    const item = items.get(r.request_id) ?? new Map<string, boolean>();
    item.set(r.source.slice("human:".length), r.pass);
    items.set(r.request_id, item);
  }
  const multi = [...items.values()].filter((m) => m.size >= 2);
  const raters = [...new Set(multi.flatMap((m) => [...m.keys()]))].sort();
  const disagreements = multi.filter((m) => new Set(m.values()).size > 1).length;
  const base = { level, items: multi.length, raters, disagreements };
  if (!multi.length) return { ...base, method: "none", value: null, low: null, high: null };
  const label = (b: boolean | undefined) => (b === undefined ? null : b ? "pass" : "fail");
  if (raters.length === 2) {
    const [a, b] = raters as [string, string];
    const k = cohenKappa(multi.map((m) => [label(m.get(a))!, label(m.get(b))!] as const), opts);
    return { ...base, method: "cohen_kappa", value: k.kappa, low: k.ci.low, high: k.ci.high };
  }
  const alpha = krippendorffAlpha(multi.map((m) => raters.map((r) => label(m.get(r)))), { metric: "nominal", ...opts });
  return { ...base, method: "krippendorff_alpha_nominal", value: alpha.alpha, low: alpha.ci.low, high: alpha.ci.high };
}

/** {@linkcode raterAgreement} of one class, or of every class together (`class` null). */
export interface ClassRaterAgreement extends RaterAgreement {
  class: string | null;
}

/** Stands for "every class" in a request → class map: no class of a workload is named with a NUL. */
const EVERY_CLASS = "\u0000every class";

/**
 * The raters' agreement on `pass` per class of `quality.classes` (the open-ended ones, `RunQuality.classes`), then over
 * all of them together (`class` null): {@linkcode raterAgreement} of each, on the items two or more raters rated.
 *
 * @example Two classes, four items each, rated by two raters
 * ```ts
 * import assert from "node:assert/strict";
 * import { raterAgreementByClass } from "./rater_agreement.ts";
 * const v = (request_id: string, source: string, pass: boolean) => ({
 *   run_id: "r", request_id, source, rubric_id: "x", rubric_sha256: "0".repeat(64), scores: "{}", pass,
 *   rationale: null, time_spent_ms: null, judged_epoch_ms: 0, input_tokens: null, output_tokens: null, calls: null,
 * });
 * const ann = [true, true, false, false], bob = [true, true, false, true];
 * const rows = ["qa", "sum"].flatMap((c) => ann.flatMap((a, i) => [v(`${c}${i}`, "human:ann", a), v(`${c}${i}`, "human:bob", bob[i]!)]));
 * const class_of = new Map(rows.map((r) => [r.request_id, r.request_id.replace(/\d$/, "")]));
 * const a = raterAgreementByClass({ rows, class_of, classes: ["qa", "sum"] }, { resamples: 20 });
 * assert.deepEqual(a.map((x) => [x.class, x.items, x.disagreements]), [["qa", 4, 1], ["sum", 4, 1], [null, 8, 2]]);
 * // Both classes and their union: p_o = 3/4, p_e = 1/2 → κ = 0.5
 * assert.ok(a.every((x) => Math.abs(x.value! - 0.5) < 1e-12));
 * ```
 */
export function raterAgreementByClass(
  quality: { rows: readonly QualityRow[]; class_of: ReadonlyMap<string, string>; classes: readonly string[] },
  options: { level?: number; resamples?: number; seed?: number } = {},
): ClassRaterAgreement[] {
  const open = new Set(quality.classes);
  const every = new Map([...quality.class_of].filter(([, c]) => open.has(c)).map(([id]) => [id, EVERY_CLASS]));
  return [
    ...quality.classes.map((cls) => ({ class: cls, ...raterAgreement(quality.rows, quality.class_of, cls, options) })),
    { class: null, ...raterAgreement(quality.rows, every, EVERY_CLASS, options) },
  ];
}

/**
 * The agreement per class as an aligned text table: the coefficient with its interval, n items rated twice or more,
 * the raters, and how many of those items they gave different verdicts.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatRaterAgreement } from "./rater_agreement.ts";
 * const text = formatRaterAgreement([{ class: null, method: "cohen_kappa", value: 0.5, low: 0.1, high: 0.9,
 *   level: 0.95, items: 4, raters: ["ann", "bob"], disagreements: 1 }]);
 * assert.match(text, /all classes\s+Cohen's kappa\s+0\.500 \[0\.100, 0\.900\]\s+4\s+ann, bob\s+1/);
 * ```
 */
export function formatRaterAgreement(rows: readonly ClassRaterAgreement[]): string {
  const f = (x: number | null) => (x === null ? "-" : x.toFixed(3));
  const method = { cohen_kappa: "Cohen's kappa", krippendorff_alpha_nominal: "Krippendorff's alpha", none: "-" };
  const level = rows[0]?.level ?? 0.95;
  const body = rows.map((r) => [
    r.class ?? "all classes",
    method[r.method],
    r.value === null
      ? (r.method === "none" ? "no item rated twice" : "undefined")
      : r.low === null
      ? f(r.value)
      : `${f(r.value)} [${f(r.low)}, ${f(r.high)}]`,
    String(r.items),
    r.raters.join(", ") || "-",
    String(r.disagreements),
  ]);
  return [
    `raters' agreement on the verdict (pass/fail), on the items two or more raters rated; ${level * 100} % ` +
    "percentile-bootstrap interval over items (docs/quality_review.md)",
    ...textTable(["class", "coefficient", "value", "items", "raters", "differ on verdict"], body),
  ].join("\n");
}
