/**
 * The quality-source dimension of an audit's search: one combination counted with a source (a refusal gives no
 * value), and the note naming the one source a claim reproduces with. Private to analysis/audit/.
 *
 * @module
 */
import { InputError } from "../../schema/errors.ts";
import type { SloPolicy } from "../../schema/slo.ts";
import type { GoodputResult } from "../goodput/goodput.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import { qualityGoodput } from "../quality/quality_goodput.ts";
import { type QualityVariant, withQualitySource } from "../quality/quality_variants.ts";
import type { RunQuality } from "../quality/verdicts.ts";

/**
 * Goodput of `policy` with the open-ended classes read with quality variant `q` (null: as the policy names them);
 * null when `q` is refused for this combination (an unreviewed stratum, a judge below the kappa minimum). The policy's
 * own source is never caught: its refusal is the audit's.
 */
export function countWithSource(
  run: LoadedRun,
  policy: SloPolicy,
  quality: RunQuality | null,
  q: QualityVariant | null,
): GoodputResult | null {
  try {
    return qualityGoodput(run, q ? withQualitySource(policy, quality!.classes, q) : policy, quality);
  } catch (e) {
    if (!(e instanceof InputError) || q === null) throw e;
    return null;
  }
}

/**
 * When every combination that reproduces a claim has the gates on and one and the same quality source, the note that
 * names it (a judge's verdicts as they are are "uncalibrated"); else null.
 */
export function onlySourceNote(reproducing: readonly { quality?: string }[]): string | null {
  const sources = [...new Set(reproducing.map((c) => c.quality))];
  if (!reproducing.length || sources.length !== 1 || sources[0] === undefined) return null;
  const s = sources[0];
  return `the claimed value reproduces only with the open-ended classes' quality from ${
    s === "policy" ? "the source the policy names" : s
  }${s.startsWith("judge:") ? " (uncalibrated)" : ""}`;
}
