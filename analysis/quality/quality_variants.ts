import { InputError } from "../../schema/errors.ts";
import { sourceKind } from "../../schema/quality.ts";
import type { QualitySourceName, SloPolicy } from "../../schema/slo.ts";
import { classSlo } from "../goodput/policy.ts";
import { qualitySourceOf } from "../goodput/quality_source.ts";
import type { RunQuality } from "./verdicts.ts";

/** One quality source a class can be read with: the source, its judge model, and its label (`judge:m1`). */
export interface QualityVariant {
  source: QualitySourceName;
  judge: string | null;
  /** `inline`, `judge:<model>`, `human`, `calibrated-judge:<model>`. */
  label: string;
}

/**
 * The quality sources the run's table has the data for, over the given classes (every open-ended class by default):
 * `inline` always; `judge:<m>` for each judge with a verdict on one of them; `human` when people rated one of them;
 * `calibrated-judge:<m>` for each such judge when people rated anything (a class without its own reviews is
 * corrected with the pooled calibration).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { qualityVariants } from "./quality_variants.ts";
 * const v = (request_id: string, source: string) => ({ request_id, source });
 * const quality = {
 *   rows: [v("a", "judge:m1"), v("a", "human:ann")], class_of: new Map([["a", "qa"]]), classes: ["qa"],
 * } as never;
 * assert.deepEqual(qualityVariants(quality).map((x) => x.label), ["inline", "judge:m1", "human", "calibrated-judge:m1"]);
 * ```
 */
export function qualityVariants(quality: RunQuality, classes: readonly string[] = quality.classes): QualityVariant[] {
  const wanted = new Set(classes);
  const rows = quality.rows.filter((r) => wanted.has(quality.class_of.get(r.request_id) ?? ""));
  const judges = [...new Set(rows.filter((r) => sourceKind(r.source) === "judge").map((r) => r.source.slice(6)))]
    .sort();
  const people = (rs: typeof rows) =>
    rs.some((r) => sourceKind(r.source) === "human" || sourceKind(r.source) === "adjudicated");
  return [
    { source: "inline", judge: null, label: "inline" },
    ...judges.map((m): QualityVariant => ({ source: "judge", judge: m, label: `judge:${m}` })),
    ...(people(rows) ? [{ source: "human", judge: null, label: "human" } as QualityVariant] : []),
    ...(people(quality.rows)
      ? judges.map((m): QualityVariant => ({ source: "calibrated-judge", judge: m, label: `calibrated-judge:${m}` }))
      : []),
  ];
}

/**
 * The policy with `classes` read with quality variant `v` (each keeps the rest of its SLO: its own entry's, else the
 * default's). A class whose SLO does not require `quality_ok` cannot take a measured source: an `InputError`. Pure.
 */
export function withQualitySource(policy: SloPolicy, classes: readonly string[], v: QualityVariant): SloPolicy {
  const next = { ...policy.classes };
  for (const c of classes) {
    const { quality_source: _s, judge: _j, ...slo } = classSlo(policy, c);
    if (v.source !== "inline" && !slo.gates.includes("quality_ok")) {
      throw new InputError(`class ${c}: quality source ${v.label} refused: its SLO does not require quality_ok`);
    }
    next[c] = {
      ...slo,
      ...(v.source === "inline" ? {} : { quality_source: v.source }),
      ...(v.judge ? { judge: v.judge } : {}),
    };
  }
  return { ...policy, classes: next };
}

/** The reason of a refusal, for a table cell: the error's first line after "refused: ". */
export function refusalText(e: InputError): string {
  const first = e.message.split("\n", 1)[0]!;
  const at = first.indexOf("refused: ");
  const reason = at < 0 ? first : first.slice(at + "refused: ".length);
  return e.problems.length ? `${reason} (${e.problems.map((p) => p.replace(/^[^:]*: /, "")).join("; ")})` : reason;
}

/**
 * The quality sources a variant is also computed with: each the table holds, applied to every open-ended class at
 * once, except one that is what the policy already names for all of them (it would repeat the `policy` rows).
 */
export function sourceVariants(policy: SloPolicy, quality: RunQuality): QualityVariant[] {
  const asPolicy = (v: QualityVariant) =>
    quality.classes.every((c) => {
      const slo = classSlo(policy, c);
      return qualitySourceOf(slo) === v.source && (slo.judge ?? v.judge) === v.judge;
    });
  return qualityVariants(quality).filter((v) => !asPolicy(v));
}
