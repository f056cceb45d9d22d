/**
 * Which degraded service modes a policy declares for which class, and the SLO
 * each is held to: plain data over the policy, shared by the polars path
 * (`_mode_slo.ts`) and the SQL path (analysis/sql/).
 *
 * @module
 */
import type { ClassSlo, ModeSlo, SloPolicy } from "../../schema/slo.ts";

/**
 * The SLO of a request of class `cls` served in the degraded service mode
 * `mode`: the mode as the class's own `modes` declares it (for a class the
 * policy does not name: `default.modes`), else as the policy's `modes`
 * does; latency limits the mode does not set stay the class's. null when
 * the policy declares no such mode for that class (`undeclared_mode`).
 *
 * @example A policy-wide mode that drops quality and doubles e2e
 * ```ts
 * import { modeSlo } from "./declared_modes.ts";
 * import assert from "node:assert/strict";
 * const policy = {
 *   denominator: "offered" as const, window: { exclude_stage_kinds: [] }, classes: {},
 *   default: { e2e_ms: 1000, ttft_ms: 200, gates: ["output_valid" as const, "quality_ok" as const] },
 *   modes: { short: { output: "short answers", gates: ["output_valid" as const], e2e_ms: 2000 } },
 * };
 * assert.deepEqual(modeSlo(policy, "qa", "short"), { e2e_ms: 2000, ttft_ms: 200, gates: ["output_valid"] });
 * assert.equal(modeSlo(policy, "qa", "other"), null);
 * ```
 */
export function modeSlo(policy: SloPolicy, cls: string, mode: string): ClassSlo | null {
  const base = policy.classes[cls] ?? policy.default;
  const m = base.modes?.[mode] ?? policy.modes?.[mode];
  return m ? resolved(base, m) : null;
}

function resolved(base: ClassSlo, m: ModeSlo): ClassSlo {
  const out: ClassSlo = { gates: m.gates };
  const e2e = m.e2e_ms ?? base.e2e_ms, ttft = m.ttft_ms ?? base.ttft_ms, tpot = m.tpot_ms ?? base.tpot_ms;
  if (e2e !== undefined) out.e2e_ms = e2e;
  if (ttft !== undefined) out.ttft_ms = ttft;
  if (tpot !== undefined) out.tpot_ms = tpot;
  return out;
}

/** One (class, mode) pair a policy declares: `key` is the class's name, null for the default (any class not named). */
export interface DeclaredMode {
  key: string | null;
  mode: string;
  /** The SLO a request of that class served in that mode is held to ({@linkcode modeSlo}). */
  slo: ClassSlo;
}

/**
 * Every (class, mode) the policy declares, with the resolved SLO: each named
 * class's own modes and the policy's shared ones, then the default's (key
 * null). A request of a class in a mode not listed for it (its class's key,
 * or null for a class the policy does not name) is in an undeclared mode.
 */
export function declaredModes(policy: SloPolicy): DeclaredMode[] {
  const shared = Object.keys(policy.modes ?? {});
  const rows: DeclaredMode[] = [];
  const add = (key: string | null, cls: ClassSlo) => {
    for (const mode of new Set([...Object.keys(cls.modes ?? {}), ...shared])) {
      rows.push({ key, mode, slo: resolved(cls, cls.modes?.[mode] ?? policy.modes![mode]!) });
    }
  };
  for (const [name, cls] of Object.entries(policy.classes)) add(name, cls);
  add(null, policy.default);
  return rows;
}
