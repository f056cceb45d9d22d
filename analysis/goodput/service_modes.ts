/**
 * Degraded service modes in the goodput result: how a mode's row is named,
 * the rules stated in every disclosure, and the warning about modes the
 * policy does not declare.
 *
 * @module
 */
import { MALFORMED_SERVICE_MODE } from "../../schema/service_mode.ts";
import type { ClassSlo, ModeSlo } from "../../schema/slo.ts";

/** The row label of requests that announced no mode. */
export const NO_MODE_LABEL = "(none)";

/**
 * The label of a service mode in tables and in `disclosure.n.by_mode`.
 *
 * @example
 * ```ts
 * import { modeLabel } from "./service_modes.ts";
 * import assert from "node:assert/strict";
 * assert.equal(modeLabel(null), "(none)");
 * assert.equal(modeLabel("degraded-short"), "degraded-short");
 * ```
 */
export function modeLabel(mode: string | null): string {
  return mode ?? NO_MODE_LABEL;
}

/** The service-mode rules, stated in every goodput disclosure. */
export const MODE_RULES: readonly string[] = [
  "service mode = requests.service_mode: what the target announced (x-service-mode header) for the request's final " +
  `answer, or final failure; null = none announced, and the class's SLO applies; ${MALFORMED_SERVICE_MODE} = an ` +
  "announcement that is not a mode name",
  "a request served in a mode is held to that mode's gates and to its latency limits where it sets them (else the " +
  "class's): the mode as its class declares it in the policy (classes not named: default.modes), else as the " +
  "policy's modes declare it; a mode the policy does not declare for the class (malformed ones included) is never " +
  "accepted (reason undeclared_mode); no declared mode may drop auth_ok or safety_ok where its class requires them",
  "by_mode groups requests by service mode ((none) = none announced, including requests never answered); its " +
  "goodput divides by the window's measurement_seconds, so the modes' rows add up to the overall row",
];

/**
 * The warning of a goodput result whose requests were served in modes the
 * policy does not declare, or null when there were none.
 *
 * @example
 * ```ts
 * import { undeclaredModeWarning } from "./service_modes.ts";
 * import assert from "node:assert/strict";
 * const row = (mode: string | null, n: number) => ({ mode, failures: { undeclared_mode: n } });
 * assert.equal(undeclaredModeWarning([row(null, 0), row("fast", 3)]),
 *   "3 requests were served in service modes the policy does not declare (fast: 3); none of them is accepted");
 * assert.equal(undeclaredModeWarning([row(null, 0)]), null);
 * ```
 */
export function undeclaredModeWarning(
  byMode: readonly { mode: string | null; failures: { undeclared_mode: number } }[],
): string | null {
  const hit = byMode.filter((r) => r.failures.undeclared_mode > 0);
  if (!hit.length) return null;
  const total = hit.reduce((s, r) => s + r.failures.undeclared_mode, 0);
  const list = hit.map((r) => `${modeLabel(r.mode)}: ${r.failures.undeclared_mode}`).join(", ");
  return `${total} request${total === 1 ? " was" : "s were"} served in service modes the policy does not declare ` +
    `(${list}); none of them is accepted`;
}

/**
 * One line per declared mode, for the printed SLO: `in mode M (output):
 * e2e ≤ …, TTFT ≤ …, TPOT ≤ …; gates …`. A limit the mode does not set is
 * the class's: `base`'s, or the word "class's" for the policy-wide modes.
 */
export function modeSloLines(
  modes: Record<string, ModeSlo> | undefined,
  base: ClassSlo | null,
  indent: string,
): string[] {
  const lim = (own: number | undefined, cls: number | undefined) => own ?? (base ? cls ?? "-" : "class's");
  return Object.entries(modes ?? {}).map(([m, s]) =>
    `${indent}in mode ${m} (${s.output}): e2e ≤ ${lim(s.e2e_ms, base?.e2e_ms)} ms, TTFT ≤ ${
      lim(s.ttft_ms, base?.ttft_ms)
    } ms, TPOT ≤ ${lim(s.tpot_ms, base?.tpot_ms)} ms; gates ${s.gates.join(", ") || "none"}`
  );
}
