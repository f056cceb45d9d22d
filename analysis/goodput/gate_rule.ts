/**
 * The gate rule in words, and the plain helpers around it: what every
 * disclosure states, whichever engine counted (polars in `_gates.ts`, SQL in
 * analysis/sql/).
 *
 * @module
 */
import { type Gate, GATES } from "../../schema/slo.ts";

/** The gate rule, stated in every disclosure. */
export const GATE_RULE =
  "a gate required by the class counts against a request only when it applies to it (listed in the request's " +
  "applicable_gates, contract 1.1): then true passes and false or null (not evaluated) fails; a required gate the " +
  "request's case does not define (not listed) passes as n/a, counted per gate in the disclosure; a 1.0 log does not " +
  "record applicability, so there every required gate applies and null fails (the 1.0 rule)";

/** True: no gate name occurs inside another, so a literal substring test finds whole names only. */
export const NO_GATE_NAME_INSIDE_ANOTHER = GATES.every((a) => GATES.every((b) => a === b || !b.includes(a)));

/** The gates of a `notApplicableMask` value (`_gates.ts`: bit i = `GATES`[i]). */
export function maskGates(mask: number): Gate[] {
  return GATES.filter((_, i) => (mask & (1 << i)) !== 0);
}
