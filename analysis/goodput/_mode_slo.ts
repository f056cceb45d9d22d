import pl from "nodejs-polars";
import type { ClassSlo, Gate, SloPolicy } from "../../schema/slo.ts";
import { declaredModes, modeSlo } from "./declared_modes.ts";

/** The join key of the default SLO (classes the policy does not name); no class name can be it. */
const DEFAULT_KEY = "\u0000default";

export { modeSlo };

/** Every (SLO key, mode) the policy declares, with the resolved SLO; the key is a class name or the default's. */
function declared(policy: SloPolicy): { key: string; mode: string; slo: ClassSlo }[] {
  return declaredModes(policy).map((d) => ({ ...d, key: d.key ?? DEFAULT_KEY }));
}

/**
 * Adds, to a frame of requests already joined with their class limits
 * (`_known`: the policy names the class), the SLO of the mode each was served
 * in: `_mode_declared` (true, or null when the request announced no mode or
 * one the policy does not declare for its class), `_mode_lim_e2e`,
 * `_mode_lim_ttft`, `_mode_lim_tpot` and `_mode_req_<gate>`.
 */
export function withModeSlo(
  frame: pl.LazyDataFrame,
  policy: SloPolicy,
  gates: readonly Gate[],
  maintainOrder: "left" | "none",
): pl.LazyDataFrame {
  const rows = declared(policy);
  if (!rows.length) {
    // No mode declared: no request can be in one, so the join would only add nulls.
    return frame.withColumns(
      pl.lit(null).cast(pl.Bool).alias("_mode_declared"),
      ...["e2e", "ttft", "tpot"].map((l) => pl.lit(null).cast(pl.Float64).alias(`_mode_lim_${l}`)),
      ...gates.map((g) => pl.lit(null).cast(pl.Bool).alias(`_mode_req_${g}`)),
    );
  }
  const modes = pl.DataFrame([
    pl.Series("_slo_key", rows.map((r) => r.key), pl.Utf8),
    pl.Series("service_mode", rows.map((r) => r.mode), pl.Utf8),
    pl.Series("_mode_declared", rows.map(() => true), pl.Bool),
    pl.Series("_mode_lim_e2e", rows.map((r) => r.slo.e2e_ms ?? null), pl.Float64),
    pl.Series("_mode_lim_ttft", rows.map((r) => r.slo.ttft_ms ?? null), pl.Float64),
    pl.Series("_mode_lim_tpot", rows.map((r) => r.slo.tpot_ms ?? null), pl.Float64),
    ...gates.map((g) => pl.Series(`_mode_req_${g}`, rows.map((r) => r.slo.gates.includes(g)), pl.Bool)),
  ]).lazy();
  const key = pl.when(pl.col("_known").fillNull(false)).then(pl.col("class")).otherwise(pl.lit(DEFAULT_KEY));
  // A null service_mode matches no row (polars joins never match nulls): the class's own SLO applies.
  return frame.withColumns(key.alias("_slo_key"))
    .join(modes, { on: ["_slo_key", "service_mode"], how: "left", maintainOrder });
}

const inMode = () => pl.col("_mode_declared").fillNull(false);

/** A latency limit (`_lim_e2e`, `_lim_ttft`, `_lim_tpot`): the mode's when the request was served in a declared mode. */
export function modeLimit(name: string, classLimit: pl.Expr): pl.Expr {
  return pl.when(inMode()).then(pl.col(`_mode${name}`)).otherwise(classLimit);
}

/** Whether gate `g` is required: the mode's gates when the request was served in a declared mode. */
export function modeRequired(g: Gate, classRequired: pl.Expr): pl.Expr {
  return pl.when(inMode()).then(pl.col(`_mode_req_${g}`)).otherwise(classRequired);
}

/** True for a request served in a mode the policy does not declare for its class (malformed ones included). */
export function undeclaredMode(): pl.Expr {
  return pl.col("service_mode").isNotNull().and(inMode().not());
}
