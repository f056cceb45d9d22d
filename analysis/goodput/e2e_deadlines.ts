import type { SloPolicy } from "../../schema/slo.ts";
import type { E2eDeadlines } from "../run/run_end_rule.ts";
import { modeSlo } from "./declared_modes.ts";
import { classSlo } from "./policy.ts";

/**
 * The e2e limits of an SLO policy, as the classification applies them: a
 * request served in a service mode the policy declares for its class is held
 * to that mode's limit; any other, to its class's (else the policy's
 * `default`). No limit (null): the request cannot be decided by time. Given
 * to `loadRun`, `scanRun`, `openSqlRun` (`deadlines`) or `decideStopped`, they
 * decide the requests a stop cut off that were already past their limit
 * (failed, not censored). `source` names the policy in the disclosure.
 *
 * @example A 3 s limit for qa, none for the default; a "short" mode at 6 s
 * ```ts
 * import { e2eDeadlines } from "./e2e_deadlines.ts";
 * import assert from "node:assert/strict";
 * const d = e2eDeadlines({
 *   denominator: "offered", window: { exclude_stage_kinds: [] },
 *   classes: { qa: { e2e_ms: 3000, gates: [] } }, default: { gates: [] },
 *   modes: { short: { output: "short answers", gates: [], e2e_ms: 6000 } },
 * }, "slo.json");
 * assert.deepEqual([d.limit("qa", null), d.limit("qa", "short"), d.limit("qa", "other"), d.limit("chat", null)],
 *   [3000, 6000, 3000, null]);
 * assert.equal(d.source, "e2e limits of SLO policy slo.json");
 * ```
 */
export function e2eDeadlines(policy: SloPolicy, source: string): E2eDeadlines {
  return {
    limit: (cls, mode) => {
      const slo = (mode === null ? null : modeSlo(policy, cls, mode)) ?? classSlo(policy, cls);
      return slo.e2e_ms ?? null;
    },
    source: `e2e limits of SLO policy ${source}`,
  };
}
