/**
 * The claim an audit checks, recomputed with one rule changed at a time
 * from the stated ones: how far each choice moves the number.
 *
 * @module
 */
import type { SloPolicy } from "../../schema/slo.ts";
import { rulesText } from "./_notebook_text.ts";
import {
  DENOMINATORS,
  pickRow,
  variantPolicy,
  type VariantRules,
  type WindowVariant,
  windowVariant,
} from "./alternatives.ts";
import { audit, type AuditOptions } from "./audit.ts";
import type { ResolvedClaim } from "./claim.ts";
import { qualityGoodput } from "../quality/quality_goodput.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import { policyForRun } from "../goodput/policy.ts";

/** The claim recomputed with one rule changed from the stated ones. */
export interface ClaimMove {
  /** Which rule was changed ("as stated" for the baseline row). */
  rule: "as stated" | "denominator" | "window" | "gates" | "SLO";
  /** The choice in words. */
  choice: string;
  value: number | null;
  /** value − claimed value. */
  difference: number | null;
  /** Within the claim's tolerance. */
  match: boolean;
}

/** The window {@linkcode audit} takes as stated: explicit, else by `warmup_included`, else the policy's. */
function statedWindow(
  claim: ResolvedClaim,
  policy: SloPolicy,
  stages: LoadedRun["manifest"]["stages"],
): SloPolicy["window"] {
  const w = policy.window;
  if (claim.window) return claim.window;
  if (claim.warmup_included === true) return windowVariant(w, "warmup_included", stages);
  if (claim.warmup_included !== false || "start_ms" in w || w.exclude_stage_kinds.includes("warmup")) return w;
  return { ...w, exclude_stage_kinds: [...w.exclude_stage_kinds, "warmup" as const] };
}

/**
 * The claim moved by each alternative rule, one at a time from the stated
 * rules (unstated ones filled as {@linkcode audit} fills them): the window
 * with warm-up stages put back and the whole run, each other denominator
 * (rates only), gates on/off, every latency limit × 2 and no latency limits.
 * Each value is {@linkcode goodput} under the {@linkcode variantPolicy} of
 * that choice, the same policy the audit's search uses; a latency claim
 * varies the window only (an audit of the claim with that window).
 */
export function claimMoves(run: LoadedRun, claim: ResolvedClaim, options: AuditOptions): ClaimMove[] {
  const base = audit(run, claim, options);
  const stated = base.stated.rules;
  const move = (rule: ClaimMove["rule"], choice: string, value: number | null): ClaimMove => ({
    rule,
    choice,
    value,
    difference: value === null ? null : value - claim.value,
    match: value !== null &&
      Math.abs(value - claim.value) <= base.tolerance.allowed + 1e-9 * Math.max(1, Math.abs(claim.value)),
  });
  const out = [move("as stated", rulesText(stated), base.stated.value)];
  const stages = run.manifest.stages;
  const policy = policyForRun(claim.slo ?? options.policy, run, "claimMoves() policy");
  const window = statedWindow(claim, policy, stages);
  const WINDOWS = [["warmup_included", "warm-up stages put back"], [
    "whole_run",
    "whole run (every stage, drain included)",
  ]];
  if (claim.metric === "latency_percentile") {
    const { warmup_included: _w, ...rest } = claim;
    for (const [w, words] of WINDOWS as [WindowVariant, string][]) {
      out.push(
        move("window", words, audit(run, { ...rest, window: windowVariant(window, w, stages) }, options).stated.value),
      );
    }
    return out;
  }
  const den = stated.denominator ?? "offered";
  const value = (rules: Partial<VariantRules> & { window?: WindowVariant }): number | null => {
    const r = {
      denominator: den,
      slo: "strict",
      factor: 1,
      gates: stated.gates ?? "on",
      window: "policy",
      ...rules,
    } as const;
    const result = qualityGoodput(run, variantPolicy({ ...policy, window }, r, stages), options.quality ?? null);
    const row = pickRow(result, claim.class, claim.stage);
    if (claim.metric === "accepted_goodput") {
      return row.measurement_seconds ? row.accepted / row.measurement_seconds : null;
    }
    const d = row[r.denominator];
    if (!d) return null;
    return claim.metric === "acceptance_rate" ? row.accepted / d : (d - row.accepted) / d;
  };
  for (const [w, words] of WINDOWS as [WindowVariant, string][]) out.push(move("window", words, value({ window: w })));
  if (claim.metric !== "accepted_goodput") {
    for (const d of DENOMINATORS.filter((d) => d !== den)) {
      out.push(move("denominator", `over ${d}`, value({ denominator: d })));
    }
  }
  const gatesOn = stated.gates === "on";
  out.push(
    move("gates", gatesOn ? "no gate required" : "every gate of the SLO", value({ gates: gatesOn ? "off" : "on" })),
  );
  out.push(
    move("SLO", "every latency limit × 2", value({ slo: "lenient", factor: 2 })),
    move("SLO", "no latency limits", value({ slo: "no_latency" })),
  );
  return out;
}
