/**
 * The alternatives table: the headline goodput number recomputed under every
 * other reasonable rule choice (denominator, SLO strictness, gates, window),
 * so a reader sees how much each choice moves it. Every variant is a
 * modified SLO policy passed to {@linkcode goodput}: the definitions are not
 * re-implemented here.
 *
 * @module
 */
import { InputError } from "../../schema/errors.ts";
import type { ClassSlo, ModeSlo, SloPolicy } from "../../schema/slo.ts";
import type { AnyStage } from "../../schema/imported_manifest.ts";
import type { AcceptedEstimate } from "../goodput/accepted_estimate.ts";
import type { Disclosure } from "../goodput/disclosure.ts";
import type { GoodputResult } from "../goodput/goodput.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import { parseSloPolicy, policyForRun } from "../goodput/policy.ts";
import { qualityGoodput } from "../quality/quality_goodput.ts";
import { refusalText, sourceVariants, withQualitySource } from "../quality/quality_variants.ts";
import type { RunQuality } from "../quality/verdicts.ts";

/** A denominator of the miss rate. */
export type Denominator = SloPolicy["denominator"];
/** Which window a variant measures: the policy's, the policy's with warm-up stages put back, or every stage. */
export type WindowVariant = "policy" | "warmup_included" | "whole_run";
/** Latency limits as stated (`strict`), each × a factor (`lenient`), or none at all (`no_latency`). */
export type SloVariant = "strict" | "lenient" | "no_latency";

export const DENOMINATORS: readonly Denominator[] = ["offered", "sent", "completed"];
export const WINDOW_VARIANTS: readonly WindowVariant[] = ["policy", "warmup_included", "whole_run"];

/** The rule choices of one variant. */
export interface VariantRules {
  denominator: Denominator;
  slo: SloVariant;
  /** Latency-limit factor of a `lenient` SLO (ignored otherwise). */
  factor: number;
  /** `on`: the policy's required gates; `off`: no gate required. */
  gates: "on" | "off";
  window: WindowVariant;
}

/**
 * The window of a variant. `warmup_included` drops `warmup` from the
 * excluded kinds (a range window is extended back to the first warm-up
 * stage's start); `whole_run` is every stage of the run, drain included.
 */
export function windowVariant(
  window: SloPolicy["window"],
  variant: WindowVariant,
  stages: readonly AnyStage[],
): SloPolicy["window"] {
  if (variant === "policy") return window;
  if (variant === "whole_run") return { exclude_stage_kinds: [] };
  if ("start_ms" in window) {
    const warm = stages.filter((s) => s.kind === "warmup").map((s) => s.start_ms);
    return warm.length ? { start_ms: Math.min(window.start_ms, ...warm), end_ms: window.end_ms } : window;
  }
  return { ...window, exclude_stage_kinds: window.exclude_stage_kinds.filter((k) => k !== "warmup") };
}

function classVariant(slo: ClassSlo, rules: Pick<VariantRules, "slo" | "factor" | "gates">): ClassSlo {
  const out: ClassSlo = { ...limitsVariant(slo, rules), gates: rules.gates === "on" ? slo.gates : [] };
  if (slo.modes) out.modes = modesVariant(slo.modes, rules);
  // The quality source decides the quality_ok gate: kept with the gates, gone with them.
  if (rules.gates === "on" && slo.quality_source !== undefined) out.quality_source = slo.quality_source;
  if (rules.gates === "on" && slo.judge !== undefined) out.judge = slo.judge;
  return out;
}

/** A degraded mode's variant: the same rules as its class (a limit it does not set stays the class's variant). */
function modesVariant(
  modes: Record<string, ModeSlo>,
  rules: Pick<VariantRules, "slo" | "factor" | "gates">,
): Record<string, ModeSlo> {
  return Object.fromEntries(
    Object.entries(modes).map(([m, s]) => [m, {
      output: s.output,
      ...limitsVariant(s, rules),
      gates: rules.gates === "on" ? s.gates : [],
    }]),
  );
}

function limitsVariant(
  slo: Pick<ClassSlo, "e2e_ms" | "ttft_ms" | "tpot_ms">,
  rules: Pick<VariantRules, "slo" | "factor">,
): Pick<ClassSlo, "e2e_ms" | "ttft_ms" | "tpot_ms"> {
  if (rules.slo === "no_latency") return {};
  const f = rules.slo === "lenient" ? rules.factor : 1;
  const out: Pick<ClassSlo, "e2e_ms" | "ttft_ms" | "tpot_ms"> = {};
  if (slo.e2e_ms !== undefined) out.e2e_ms = slo.e2e_ms * f;
  if (slo.ttft_ms !== undefined) out.ttft_ms = slo.ttft_ms * f;
  if (slo.tpot_ms !== undefined) out.tpot_ms = slo.tpot_ms * f;
  return out;
}

/**
 * The SLO policy of a variant: `policy` with its denominator, latency limits,
 * gates and window replaced as `rules` say; each class's quality source and the
 * policy's quality settings are kept (gates off drops the source with the gate
 * it decides). Pure: `policy` is not changed.
 *
 * @example Lenient ×2 without gates
 * ```ts
 * import assert from "node:assert/strict";
 * import { variantPolicy } from "./alternatives.ts";
 * const p = variantPolicy(
 *   { denominator: "offered", window: { exclude_stage_kinds: [] }, classes: {}, default: { e2e_ms: 1000, gates: ["quality_ok"] } },
 *   { denominator: "completed", slo: "lenient", factor: 2, gates: "off", window: "policy" },
 *   [],
 * );
 * assert.deepEqual(p.default, { e2e_ms: 2000, gates: [] });
 * assert.equal(p.denominator, "completed");
 * ```
 */
export function variantPolicy(policy: SloPolicy, rules: VariantRules, stages: readonly AnyStage[]): SloPolicy {
  policy = parseSloPolicy(policy, "variantPolicy() policy");
  return {
    denominator: rules.denominator,
    window: windowVariant(policy.window, rules.window, stages),
    classes: Object.fromEntries(Object.entries(policy.classes).map(([c, s]) => [c, classVariant(s, rules)])),
    default: classVariant(policy.default, rules),
    ...(policy.modes ? { modes: modesVariant(policy.modes, rules) } : {}),
    ...(policy.quality ? { quality: policy.quality } : {}),
  };
}

/** The counts of one row of a goodput result: overall, one class, one stage, or one class × stage. */
export interface PickedRow {
  offered: number;
  sent: number;
  completed: number;
  accepted: number;
  measurement_seconds: number | null;
  /** Present when `accepted` is an estimate (a class's quality known on a sample). */
  estimate?: AcceptedEstimate;
}

/**
 * The row of `result` for a class and/or stage (null = all). A class or
 * stage without requests in the window gives zero counts; its seconds are
 * the window's (class) or the stage's seconds inside the window (stage; null
 * when the stage is outside it).
 */
export function pickRow(result: GoodputResult, cls: string | null, stage: string | null): PickedRow {
  const zero = { offered: 0, sent: 0, completed: 0, accepted: 0 };
  const w = result.disclosure.window;
  if (cls === null && stage === null) return result.overall;
  if (stage === null) {
    return result.by_class.find((r) => r.class === cls) ?? { ...zero, measurement_seconds: w.measurement_seconds };
  }
  const secs = w.stage_seconds[stage] ?? null;
  if (cls === null) return result.by_stage.find((r) => r.stage === stage) ?? { ...zero, measurement_seconds: secs };
  return result.by_class_stage.find((r) => r.class === cls && r.stage === stage) ??
    { ...zero, measurement_seconds: secs };
}

/** One row of the alternatives table. Rates with a zero denominator are null. */
export interface AlternativeRow {
  denominator: Denominator;
  /** `strict` = the policy's limits; `lenient` = every latency limit × `lenient_factor`. */
  slo: "strict" | "lenient";
  gates: "on" | "off";
  window: WindowVariant;
  /**
   * The quality source of the open-ended classes: `policy` (as the policy names them), or one source for all of them
   * (`inline`, `judge:<model>`, `human`, `calibrated-judge:<model>`): listed only when the run has a quality table.
   */
  quality: string;
  /** Accepted: a count, or an estimate when a class's quality is known on a sample (`estimate` holds its interval). */
  accepted: number;
  estimate: AcceptedEstimate | null;
  /** The count of the chosen denominator. */
  D: number;
  measurement_seconds: number | null;
  accepted_goodput: number | null;
  /**
   * accepted / D: the acceptance over this row's denominator (the headline's: the policy's, or `--denominator`'s),
   * so a `completed` row reads as a share of the completed requests, not of the offered ones.
   */
  acceptance_rate: number | null;
  /** (D − accepted) / D. */
  slo_miss_rate: number | null;
  /** True when accepted_goodput, acceptance_rate or slo_miss_rate differ from the headline row's. */
  differs_from_headline: boolean;
  /** The disclosure of this variant (from {@linkcode goodput}). */
  disclosure: Disclosure;
}

/** Options of {@linkcode alternatives}. */
export interface AlternativesOptions {
  /** One class instead of the overall row. @default {null} */
  class?: string | null;
  /** Factor applied to every latency limit in the lenient SLO. @default {2} */
  lenient_factor?: number;
  /**
   * The run's quality table (analysis/quality/verdicts.ts `loadRunQuality`): with it, every variant with gates on is
   * also computed with each quality source the table holds, for all its open-ended classes at once. @default {null}
   */
  quality?: RunQuality | null;
}

/** The result of {@linkcode alternatives}. */
export interface AlternativesResult {
  class: string | null;
  lenient_factor: number;
  /** The policy as given: its denominator, strict SLO, gates on, policy window. */
  headline: AlternativeRow;
  /**
   * Every combination (3 denominators × 2 SLOs × 2 gate settings × 3 windows; with gates on, × each quality source),
   * the headline first.
   */
  rows: AlternativeRow[];
  /** Combinations a quality source cannot be used for (an unreviewed stratum, a judge below the kappa minimum). */
  refused: { window: WindowVariant; slo: "strict" | "lenient"; quality: string; reason: string }[];
}

const ratio = (a: number, b: number | null): number | null => (b ? a / b : null);

/**
 * The headline number under every combination of denominator
 * (offered/sent/completed) × SLO (strict / lenient: every latency limit ×
 * `lenient_factor`) × gates (on / off) × window (policy / warm-up included /
 * whole run), each row with its disclosure and whether it differs from the
 * headline (the policy as given).
 *
 * @example
 * ```ts ignore
 * const alt = alternatives(run, policy, { class: "short_qa" });
 * console.log(alt.rows.filter((r) => r.differs_from_headline).length);
 * ```
 */
export function alternatives(run: LoadedRun, policy: SloPolicy, options: AlternativesOptions = {}): AlternativesResult {
  policy = policyForRun(policy, run, "alternatives() policy");
  const cls = options.class ?? null;
  const factor = options.lenient_factor ?? 2;
  if (!(factor > 0)) throw new RangeError(`alternatives: lenient_factor must be > 0, got ${factor}`);
  const quality = options.quality ?? null;
  const order: Denominator[] = [policy.denominator, ...DENOMINATORS.filter((d) => d !== policy.denominator)];
  const qualities = quality ? sourceVariants(policy, quality) : [];
  const rows: Omit<AlternativeRow, "differs_from_headline">[] = [];
  const refused: AlternativesResult["refused"] = [];
  for (const window of WINDOW_VARIANTS) {
    for (const slo of ["strict", "lenient"] as const) {
      for (const gates of ["on", "off"] as const) {
        for (const q of [null, ...(gates === "on" ? qualities : [])]) {
          const count = (denominator: Denominator) => {
            const base = variantPolicy(policy, { denominator, slo, factor, gates, window }, run.manifest.stages);
            return qualityGoodput(run, q ? withQualitySource(base, quality!.classes, q) : base, quality);
          };
          let first: GoodputResult;
          try {
            first = count(order[0]!);
          } catch (e) {
            // A source refused for this combination is listed, not the end of the table (the policy's own is not caught).
            if (!(e instanceof InputError) || q === null) throw e;
            refused.push({ window, slo, quality: q.label, reason: refusalText(e) });
            continue;
          }
          for (const denominator of order) {
            const result = denominator === order[0] ? first : count(denominator);
            const r = pickRow(result, cls, null);
            const D = r[denominator];
            rows.push({
              denominator,
              slo,
              gates,
              window,
              quality: q?.label ?? "policy",
              accepted: r.accepted,
              estimate: r.estimate ?? null,
              D,
              measurement_seconds: r.measurement_seconds,
              accepted_goodput: ratio(r.accepted, r.measurement_seconds),
              acceptance_rate: ratio(r.accepted, D),
              slo_miss_rate: D ? (D - r.accepted) / D : null,
              disclosure: result.disclosure,
            });
          }
        }
      }
    }
  }
  const head = rows[0]!;
  const same = (a: typeof head, b: typeof head) =>
    a.accepted_goodput === b.accepted_goodput && a.acceptance_rate === b.acceptance_rate &&
    a.slo_miss_rate === b.slo_miss_rate;
  const out = rows.map((r) => ({ ...r, differs_from_headline: !same(r, head) }));
  return { class: cls, lenient_factor: factor, headline: out[0]!, rows: out, refused };
}
