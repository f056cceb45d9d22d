/**
 * Audit of a published number: recompute it from the raw log under the
 * rules the claim states (unstated ones filled from the defaults and listed
 * as assumed), then search the alternative rule choices for every
 * combination that reproduces it — "what would you have to assume to get
 * this number?".
 *
 * @module
 */
import type { SloPolicy } from "../../schema/slo.ts";
import {
  type Denominator,
  DENOMINATORS,
  pickRow,
  variantPolicy,
  WINDOW_VARIANTS,
  windowVariant,
} from "./alternatives.ts";
import type { WindowVariant } from "./alternatives.ts";
import type { ResolvedClaim } from "./claim.ts";
import { numberText, type Precision, precisionOf } from "../../lib/published_precision.ts";
import { epochGridMs } from "./headline_source.ts";
import { isImported } from "../run/imported_run.ts";
import type { Disclosure } from "../goodput/disclosure.ts";
import { DEFAULT_SUPPORT_CONFIDENCE } from "../latency/early_stopping.ts";
import { goodput } from "../goodput/goodput.ts";
import { inlineQualityPolicy } from "../goodput/quality_source.ts";
import { qualityGoodput } from "../quality/quality_goodput.ts";
import { sourceVariants } from "../quality/quality_variants.ts";
import { countWithSource, onlySourceNote } from "./_quality_search.ts";
import type { RunQuality } from "../quality/verdicts.ts";
import { latencyInWindow, type LatencyRow } from "../latency/latency.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import { policyForRun, runWindow } from "../goodput/policy.ts";

/** SLO variants searched: as stated (or the default policy), every latency limit × 1.5 or × 2, or none. */
export const AUDIT_SLO_VARIANTS = [
  { name: "stated", slo: "strict", factor: 1 },
  { name: "lenient x1.5", slo: "lenient", factor: 1.5 },
  { name: "lenient x2", slo: "lenient", factor: 2 },
  { name: "no latency limits", slo: "no_latency", factor: 1 },
] as const;

/** Options of {@linkcode audit}. */
export interface AuditOptions {
  /** The policy used when the claim states no `slo` (e.g. the workload's own). */
  policy: SloPolicy;
  /** Where `policy` came from, for the "assumed" list. @default {"the default SLO policy"} */
  policy_source?: string;
  /** Confidence level of a percentile's interval. @default {0.95} */
  confidence?: number;
  /** One-sided confidence of a percentile's supported rule (MLPerf LoadGen early stopping). @default {0.99} */
  supportConfidence?: number;
  /**
   * The run's quality table (`loadRunQuality`): with it, the search also tries each quality source it holds for the
   * open-ended classes (gates on), and a claim reproduced under one source only names it. @default {null}
   */
  quality?: RunQuality | null;
}

/** One rule combination of the search and the value it gives. */
export interface RuleChoice {
  /** null when the metric does not depend on it (accepted_goodput, latency). */
  denominator: Denominator | null;
  /** null for latency claims (no SLO involved). */
  slo: typeof AUDIT_SLO_VARIANTS[number]["name"] | null;
  gates: "on" | "off" | null;
  window: WindowVariant;
  /**
   * The open-ended classes' quality source (`policy`: as the policy names it); present only when the run has a
   * quality table and the gates are on.
   */
  quality?: string;
  value: number | null;
  /** For latency claims: the sample count and whether it supports the percentile (at `support_confidence`). */
  n?: number;
  supported?: boolean;
  support_confidence?: number;
}

/** The result of {@linkcode audit}. */
export interface AuditResult {
  claim: ResolvedClaim;
  /** The comparison: the stated tolerance, or (`stated` false) the published value's precision, `allowed` wide. */
  tolerance: { absolute: number; relative: number; allowed: number; stated: boolean };
  /** The claim's value as written, and the precision it was published at. */
  published: Precision;
  /** The recomputation under the stated rules. */
  stated: {
    rules: RuleChoice;
    value: number | null;
    difference: number | null;
    match: boolean;
    disclosure: Disclosure;
    /** For latency claims: the percentile row with n, CI and the support flag. */
    latency: LatencyRow | null;
  };
  /** Unstated choices filled from the defaults, in words. */
  assumed: string[];
  /** Findings a reviewer must read (unsupported percentile, class or stage absent, ...). */
  notes: string[];
  /** How many combinations were searched. */
  searched: number;
  /** Every searched combination whose value reproduces the claim within tolerance. */
  reproducing: RuleChoice[];
}

const ratio = (a: number, b: number | null): number | null => (b ? a / b : null);

/** The window the claim states: explicit, else by `warmup_included`, else the policy's. */
function statedWindow(
  claim: ResolvedClaim,
  base: SloPolicy["window"],
  stages: LoadedRun["manifest"]["stages"],
  assumed: string[],
): SloPolicy["window"] {
  if (claim.window) return claim.window;
  if (claim.warmup_included === true) return windowVariant(base, "warmup_included", stages);
  if (claim.warmup_included === false) {
    if ("start_ms" in base || base.exclude_stage_kinds.includes("warmup")) return base;
    return { ...base, exclude_stage_kinds: [...base.exclude_stage_kinds, "warmup"] };
  }
  assumed.push(`window: the SLO policy's (${JSON.stringify(base)})`);
  return base;
}

function rateValue(
  metric: ResolvedClaim["metric"],
  r: { offered: number; sent: number; completed: number; accepted: number; measurement_seconds: number | null },
  den: Denominator,
): number | null {
  if (metric === "accepted_goodput") return ratio(r.accepted, r.measurement_seconds);
  if (metric === "acceptance_rate") return ratio(r.accepted, r[den]);
  return r[den] ? (r[den] - r.accepted) / r[den] : null;
}

/** The percentile row of a latency claim over the requests of `window`. */
function latencyRow(
  run: LoadedRun,
  claim: ResolvedClaim,
  window: SloPolicy["window"],
  confidence: { confidence: number; supportConfidence: number },
) {
  const w = runWindow(run, window);
  const rows = latencyInWindow(run, w, { percentiles: [claim.p!], ...confidence });
  const row = rows.find((r) => r.class === claim.class && r.stage === claim.stage && r.metric === claim.latency_metric);
  return { row: row ?? null, window: w };
}

/**
 * Audits a claim against a run: recomputes it under the stated rules
 * (unstated ones from `options.policy` and the definitions, listed in
 * `assumed`), says match or mismatch with the tolerance used, and lists every
 * combination of denominator × window (policy / warm-up included / whole
 * run) × gates on/off × SLO (stated, lenient ×1.5, ×2, no latency limits)
 * that reproduces the value. A latency_percentile claim is recomputed with
 * n, CI and the support flag; only the window varies in its search.
 *
 * @example
 * ```ts ignore
 * const result = audit(run, await loadClaim("data/claims/explore-vendor-success-rate.json"), { policy });
 * console.log(result.stated.match, result.reproducing);
 * ```
 */
export function audit(run: LoadedRun, claim: ResolvedClaim, options: AuditOptions): AuditResult {
  const confidence = options.confidence ?? 0.95;
  const levels = { confidence, supportConfidence: options.supportConfidence ?? DEFAULT_SUPPORT_CONFIDENCE };
  const assumed: string[] = [];
  const notes: string[] = [];
  const t = claim.tolerance;
  const absolute = t?.absolute ?? 0;
  const relative = t?.relative ?? 0;
  // No tolerance stated: the value's own published precision ("0.8254" stands for ±0.00005), widened by the
  // resolution of an imported run's wall-clock times for a latency (2 × the grid a double holds them on).
  const published = precisionOf(claim.value_text ?? numberText(claim.value));
  const grid =
    claim.metric === "latency_percentile" && isImported(run.manifest) && run.manifest.timeline.kind === "epoch"
      ? 2 * epochGridMs(Date.parse(run.manifest.epoch_iso))
      : 0;
  const allowed = t ? Math.max(absolute, relative * Math.abs(claim.value)) : published.half_unit + grid;
  if (!t) {
    assumed.push(
      `tolerance: none stated; compared at the published precision: ${published.text} stands for ±${published.half_unit}${
        grid ? ` (+ ${grid} ms: the imported times' resolution)` : ""
      }`,
    );
  }
  const matches = (v: number | null) =>
    v !== null && Math.abs(v - claim.value) <= allowed + 1e-12 * Math.max(1, Math.abs(claim.value));

  const fallback = policyForRun(options.policy, run, "audit() options.policy");
  const base = claim.slo
    ? policyForRun(claim.slo, run, `audit() claim slo (${claim.slo_source ?? "inline"})`)
    : fallback;
  if (!claim.slo) assumed.push(`SLO policy: ${options.policy_source ?? "the default SLO policy"}`);
  const stages = run.manifest.stages;
  const window = statedWindow(claim, base.window, stages, assumed);
  const where = (w: WindowVariant) => windowVariant(window, w, stages);

  if (claim.metric === "latency_percentile") {
    const { row, window: w } = latencyRow(run, claim, window, levels);
    const latency = row;
    if (!row || row.n === 0) notes.push(`no ${claim.latency_metric} samples for this class/stage in the window`);
    else if (!row.supported) notes.push(`n = ${row.n} cannot support the claim: ${row.note}`);
    else if (row.lower !== null && row.upper !== null && (claim.value < row.lower || claim.value > row.upper)) {
      notes.push(`the claimed value is outside the ${confidence * 100} % interval [${row.lower}, ${row.upper}]`);
    }
    const value = row?.value ?? null;
    const choices = WINDOW_VARIANTS.map((v): RuleChoice => {
      const r = v === "policy" ? row : latencyRow(run, claim, where(v), levels).row;
      return {
        denominator: null,
        slo: null,
        gates: null,
        window: v,
        value: r?.value ?? null,
        n: r?.n ?? 0,
        supported: r?.supported ?? false,
        support_confidence: levels.supportConfidence,
      };
    });
    // A percentile does not depend on quality: the disclosure of the window under the policy read inline.
    const disclosure = goodput(run, inlineQualityPolicy({ ...base, window })).disclosure;
    return {
      claim,
      tolerance: { absolute, relative, allowed, stated: !!t },
      published,
      stated: {
        rules: choices[0]!,
        value,
        difference: value === null ? null : value - claim.value,
        match: matches(value),
        disclosure: { ...disclosure, window: { ...disclosure.window, description: w.description } },
        latency,
      },
      assumed,
      notes,
      searched: choices.length,
      reproducing: choices.filter((c) => matches(c.value)),
    };
  }

  const statedDen: Denominator = claim.denominator ??
    (claim.metric === "acceptance_rate" ? "offered" : base.denominator);
  if (claim.denominator === undefined && claim.metric !== "accepted_goodput") {
    assumed.push(
      `denominator: ${statedDen} (${claim.metric === "acceptance_rate" ? "the definition" : "the SLO policy's"})`,
    );
  }
  if (claim.gates === undefined) assumed.push("gates: every gate the SLO requires");
  const statedGates = claim.gates === false ? "off" : "on";
  const policyOf = (den: Denominator, slo: typeof AUDIT_SLO_VARIANTS[number], gates: "on" | "off", w: WindowVariant) =>
    variantPolicy(
      { ...base, window },
      { denominator: den, slo: slo.slo, factor: slo.factor, gates, window: w },
      stages,
    );

  const quality = options.quality ?? null;
  const statedResult = qualityGoodput(run, policyOf(statedDen, AUDIT_SLO_VARIANTS[0], statedGates, "policy"), quality);
  const statedRow = pickRow(statedResult, claim.class, claim.stage);
  if (claim.class !== null && !statedResult.by_class.some((r) => r.class === claim.class)) {
    notes.push(`class "${claim.class}" has no requests in the window`);
  }
  if (claim.stage !== null && !statedResult.by_stage.some((r) => r.stage === claim.stage)) {
    notes.push(`stage "${claim.stage}" is not in the window`);
  }
  const value = rateValue(claim.metric, statedRow, statedDen);

  const dens: (Denominator | null)[] = claim.metric === "accepted_goodput" ? [null] : [...DENOMINATORS];
  const qualities = quality ? sourceVariants(base, quality) : [];
  const choices: RuleChoice[] = [];
  for (const w of WINDOW_VARIANTS) {
    for (const slo of AUDIT_SLO_VARIANTS) {
      for (const gates of ["on", "off"] as const) {
        for (const q of [null, ...(gates === "on" ? qualities : [])]) {
          // Counts do not depend on the denominator: one goodput per window × SLO × gates × quality source.
          const result = countWithSource(run, policyOf("offered", slo, gates, w), quality, q);
          if (!result) continue;
          const row = pickRow(result, claim.class, claim.stage);
          const label = qualities.length && gates === "on" ? { quality: q?.label ?? "policy" } : {};
          for (const den of dens) {
            choices.push({
              denominator: den,
              slo: slo.name,
              gates,
              window: w,
              ...label,
              value: rateValue(claim.metric, row, den ?? "offered"),
            });
          }
        }
      }
    }
  }
  const reproducing = choices.filter((c) => matches(c.value));
  const only = onlySourceNote(reproducing);
  if (only) notes.push(only);
  return {
    claim,
    tolerance: { absolute, relative, allowed, stated: !!t },
    published,
    stated: {
      rules: {
        denominator: claim.metric === "accepted_goodput" ? null : statedDen,
        slo: "stated",
        gates: statedGates,
        window: "policy",
        value,
      },
      value,
      difference: value === null ? null : value - claim.value,
      match: matches(value),
      disclosure: statedResult.disclosure,
      latency: null,
    },
    assumed,
    notes,
    searched: choices.length,
    reproducing,
  };
}
