import { fixed } from "../../lib/number_format.ts";
import type { QualityDisclosure } from "../quality/quality_disclosure.ts";
import { type Caveat, makeCaveat } from "./caveats.ts";

/**
 * The first-screen caveats of measured quality (analysis/quality/), one line each: a WARNING where requests with no
 * judge verdict were left unaccepted (they change the figure), a NOTE for a class's acceptance that is an estimate
 * (its n reviewed and interval), for a judge not calibrated against people, and for disagreements left unresolved.
 * None when every class's quality is inline.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { qualityCaveats } from "./quality_caveats.ts";
 * assert.deepEqual(qualityCaveats({ settings: { min_judge_kappa: 0.6, level: 0.95, min_calibration_per_side: 10 }, classes: [], rules: [] }), []);
 * ```
 */
export function qualityCaveats(q: QualityDisclosure): Caveat[] {
  const out: Caveat[] = [];
  for (const d of q.classes) {
    if (d.quality_unknown) {
      out.push(makeCaveat(
        "measured_quality",
        "WARNING",
        "QUALITY UNKNOWN",
        `class ${d.class}: ${d.quality_unknown} of ${d.population} requests passing every other gate have no verdict ` +
          `of judge ${d.judge}: not accepted`,
      ));
    }
    if (d.accepted_low !== null) {
      const how = d.source === "human"
        ? `from ${d.reviewed} reviewed of ${d.population} (stratified by route × stage)`
        : `judge ${d.judge} corrected by Rogan–Gladen (${d.calibration?.scope} calibration, n ${d.calibration?.n})`;
      out.push(makeCaveat(
        "measured_quality",
        "NOTE",
        "QUALITY ESTIMATED",
        `class ${d.class}: accepted ≈${fixed(d.accepted, 1)} [${fixed(d.accepted_low, 1)}, ${
          fixed(d.accepted_high, 1)
        }] at ${d.level * 100} %, ${how}`,
      ));
    }
    if (d.source === "judge" && !d.calibration) {
      out.push(makeCaveat(
        "measured_quality",
        "NOTE",
        "JUDGE UNCALIBRATED",
        `class ${d.class}: quality is judge ${d.judge}'s verdict; no item has a settled human consensus to measure it`,
      ));
    }
    // Left out of a human sample, they move the estimate; a judge's count does not use them.
    if (d.unresolved && d.source === "human") {
      out.push(makeCaveat(
        "measured_quality",
        "NOTE",
        "DISAGREEMENTS UNRESOLVED",
        `class ${d.class}: ${d.unresolved} reviewed requests whose raters disagree were left out (adjudicate them)`,
      ));
    }
  }
  return out;
}
