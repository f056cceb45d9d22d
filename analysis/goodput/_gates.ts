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
import { GATE_RULE, maskGates, NO_GATE_NAME_INSIDE_ANOTHER } from "./gate_rule.ts";

export { GATE_RULE, maskGates, NO_GATE_NAME_INSIDE_ANOTHER };

/** Column of the limits frame saying whether the request's class names gate `g` (null: the class takes the default). */
export const requiredColumn = (g: Gate) => `_req_${g}`;

/** Whether `g` applies to the request: listed in `applicable_gates`, or applicability not recorded (null, 1.0). */
export function gateApplies(g: Gate): pl.Expr {
  const listed = pl.col("applicable_gates");
  // A literal substring test is exact here, as no gate name is part of another (`NO_GATE_NAME_INSIDE_ANOTHER`), and several
  // times cheaper than a regular expression over a million rows.
  return listed.isNull().or(listed.str.contains(g, true));
}

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
