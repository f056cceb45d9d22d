/**
 * Gate requirements: whether a gate counts against a request (its class
 * requires it and it applies to the request), fails it, or passes as n/a.
 * Every rule about required gates is decided here, once.
 *
 * @module
 */
import pl from "nodejs-polars";
import { type Gate, GATES, type SloPolicy } from "../../schema/slo.ts";
import { modeRequired } from "./_mode_slo.ts";

/** The gate rule, stated in every disclosure. */
export const GATE_RULE =
  "a gate required by the class counts against a request only when it applies to it (listed in the request's " +
  "applicable_gates, contract 1.1): then true passes and false or null (not evaluated) fails; a required gate the " +
  "request's case does not define (not listed) passes as n/a, counted per gate in the disclosure; a 1.0 log does not " +
  "record applicability, so there every required gate applies and null fails (the 1.0 rule)";

/** Column of the limits frame saying whether the request's class names gate `g` (null: the class takes the default). */
export const requiredColumn = (g: Gate) => `_req_${g}`;

/** Whether `g` applies to the request: listed in `applicable_gates`, or applicability not recorded (null, 1.0). */
export function gateApplies(g: Gate): pl.Expr {
  const listed = pl.col("applicable_gates");
  // A literal substring test is exact here, as no gate name is part of another (`NO_GATE_NAME_INSIDE_ANOTHER`), and several
  // times cheaper than a regular expression over a million rows.
  return listed.isNull().or(listed.str.contains(g, true));
}

/** True: no gate name occurs inside another, so a literal substring test finds whole names only. */
export const NO_GATE_NAME_INSIDE_ANOTHER = GATES.every((a) => GATES.every((b) => a === b || !b.includes(a)));

/**
 * Whether the request's SLO requires `g`: the gates of the degraded mode it was served in, when the policy declares
 * that mode for its class (`_mode_slo.ts`); else its class's own SLO (`_known` and `_req_g` of the limits frame), else
 * the default.
 */
export function classRequires(policy: SloPolicy, g: Gate): pl.Expr {
  return modeRequired(
    g,
    pl.when(pl.col("_known").fillNull(false)).then(pl.col(requiredColumn(g)))
      .otherwise(pl.lit(policy.default.gates.includes(g))),
  );
}

/** Whether `g` counts against the request: required by its class and applicable to it. */
export function gateRequired(policy: SloPolicy, g: Gate): pl.Expr {
  return classRequires(policy, g).and(gateApplies(g));
}

/** Whether the request fails `g`: the gate counts against it and is not true (false, or null = not evaluated). */
export function gateFails(policy: SloPolicy, g: Gate): pl.Expr {
  return gateRequired(policy, g).and(pl.col(g).fillNull(false).not());
}

/**
 * The gates required by the request's class that do not apply to it (n/a),
 * as a bit mask (bit i = {@linkcode GATES}[i]); 0 for a request that did not
 * complete (outcome not ok), where no gate was reached.
 */
export function notApplicableMask(policy: SloPolicy): pl.Expr {
  const ok = pl.col("outcome").eq(pl.lit("ok"));
  return GATES.map((g, i) =>
    pl.when(ok.and(classRequires(policy, g)).and(gateApplies(g).not())).then(pl.lit(1 << i)).otherwise(pl.lit(0))
  ).reduce((a, b) => a.add(b)).cast(pl.UInt8);
}

/** The gates of a {@linkcode notApplicableMask} value. */
export function maskGates(mask: number): Gate[] {
  return GATES.filter((_, i) => (mask & (1 << i)) !== 0);
}
