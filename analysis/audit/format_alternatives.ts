import { fixed } from "../../lib/number_format.ts";
import { textTable } from "../../lib/text_table.ts";
import { countText } from "../goodput/accepted_estimate.ts";
import type { AlternativesResult } from "./alternatives.ts";

/**
 * The alternatives table as aligned text: one line per variant, the headline
 * first, `*` where the number differs from it.
 *
 * @example
 * ```ts ignore
 * console.log(formatAlternatives(alternatives(run, policy)));
 * ```
 */
export function formatAlternatives(alt: AlternativesResult): string {
  // The quality column only when a quality table added sources to the search.
  const q = alt.rows.some((r) => r.quality !== "policy") || alt.refused.length > 0;
  const head = [
    "window",
    "slo",
    "gates",
    ...(q ? ["quality"] : []),
    "denominator",
    "accepted",
    "D",
    "seconds",
    "goodput/s",
    "accept",
    "miss",
    "",
  ];
  const body = alt.rows.map((r) => [
    r.window,
    r.slo,
    r.gates,
    ...(q ? [r.gates === "off" ? "-" : r.quality] : []),
    r.denominator,
    countText(r.accepted, r.estimate),
    String(r.D),
    fixed(r.measurement_seconds, 1),
    fixed(r.accepted_goodput, 4),
    fixed(r.acceptance_rate, 4),
    fixed(r.slo_miss_rate, 4),
    r === alt.headline ? "headline" : r.differs_from_headline ? "*" : "",
  ]);
  return [
    `alternatives (${
      alt.class === null ? "overall" : `class ${alt.class}`
    }): lenient = every latency limit × ${alt.lenient_factor}; ` +
    "gates off = no gate required; warmup_included = the policy window with warm-up stages; whole_run = every stage; " +
    "accept = accepted / D; miss = (D − accepted) / D; * = differs from the headline" +
    (q
      ? "; quality = the open-ended classes' quality source (policy = as the policy names it; ≈ = an estimate with " +
        "its interval)"
      : ""),
    // The rule columns and the trailing mark left, the numbers right.
    ...textTable(head, body, { left: q ? 5 : 4, lastLeft: true }),
    ...alt.refused.map((r) => `refused: window ${r.window}, slo ${r.slo}, quality ${r.quality}: ${r.reason}`),
  ].join("\n");
}
