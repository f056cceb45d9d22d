/**
 * Text tables for the notebooks: latency percentiles with their CIs, an
 * audit, and the claim moved by one rule at a time.
 *
 * @module
 */
import { percentLabel } from "../latency/_percentile_checks.ts";
import { choiceText } from "../audit/_notebook_text.ts";
import { sig } from "../../lib/number_format.ts";
import { textTable } from "../../lib/text_table.ts";
import type { AuditResult } from "../audit/audit.ts";
import { DEFAULT_SUPPORT_CONFIDENCE, supportRuleText } from "../latency/early_stopping.ts";
import type { ClaimMove } from "../audit/claim_moves.ts";
import { LATENCY_METRICS, type LatencyMetric, type LatencyRow } from "../latency/latency.ts";

/** Options of {@linkcode formatLatency}. */
export interface FormatLatencyOptions {
  /** Metrics shown, in this order. @default {LATENCY_METRICS} */
  metrics?: readonly LatencyMetric[];
  /** Rows per class (true) or overall only (false). @default {true} */
  byClass?: boolean;
}

/**
 * Latency rows (of `latencyInWindow` / `latencyTable`, whole window: stage
 * rows are skipped) as aligned text, one line per class × metric with n, the
 * completed requests excluded (`-` for metrics not over completed requests;
 * how many of them were not streamed) and each percentile's value and CI;
 * UNSUPPORTED where n does not support it (MLPerf LoadGen's early-stopping
 * rule, its confidence in the last line).
 * Rows with n = 0 are left out.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatLatency } from "./notebook_format.ts";
 * const row = { class: null, stage: null, metric: "e2e_ms" as const, p: 0.99, value: 900, n: 10, excluded: 0,
 *   excluded_not_streamed: 0, confidence: 0.95, lower: 850, upper: null, support_confidence: 0.99, bound: null,
 *   supported: false, note: "n < 459", window: null, inclusion: "" };
 * assert.match(formatLatency([row]), /all\s+e2e_ms\s+10\s+0\s+900 \[850, ∞\] UNSUPPORTED/);
 * assert.match(formatLatency([row]), /99 % one-sided confidence \(n ≥ 459 for p99\)/);
 * ```
 */
export function formatLatency(rows: LatencyRow[], options: FormatLatencyOptions = {}): string {
  const metrics = options.metrics ?? LATENCY_METRICS;
  const byClass = options.byClass ?? true;
  const ps = [...new Set(rows.map((r) => r.p))].sort((a, b) => a - b);
  const groups = [null, ...(byClass ? [...new Set(rows.map((r) => r.class).filter((c) => c !== null))].sort() : [])];
  const body: string[][] = [];
  for (const cls of groups) {
    for (const metric of metrics) {
      const mine = rows.filter((r) => r.class === cls && r.stage === null && r.metric === metric);
      if (!mine.length || mine[0]!.n === 0) continue;
      const cells = ps.map((p) => {
        const r = mine.find((x) => x.p === p);
        if (!r || r.value === null) return "-";
        return `${sig(r.value)} [${sig(r.lower)}, ${r.upper === null ? "∞" : sig(r.upper)}]${
          r.supported ? "" : " UNSUPPORTED"
        }`;
      });
      const ex = mine[0]!;
      const excluded = ex.excluded === null
        ? "-"
        : `${ex.excluded}${ex.excluded_not_streamed ? ` (${ex.excluded_not_streamed} not streamed)` : ""}`;
      body.push([cls ?? "all", metric, String(mine[0]!.n), excluded, ...cells]);
    }
  }
  const conf = rows[0]?.confidence ?? 0.95;
  const support = rows[0]?.support_confidence ?? DEFAULT_SUPPORT_CONFIDENCE;
  return [
    ...textTable(
      [
        "class",
        "metric",
        "n",
        "excluded",
        ...ps.map((p) => `${percentLabel(p)} [${conf * 100} % CI]`),
      ],
      body,
      { left: 2 },
    ),
    `${supportRuleText(ps, { confidence: support })}, else UNSUPPORTED`,
  ].join("\n");
}

/**
 * An audit as plain text: the claim, the stated rules and the window, what
 * was assumed, MATCH or MISMATCH with the tolerance, and every combination
 * of rules that reproduces the number.
 */
export function formatAudit(r: AuditResult): string {
  const c = r.claim;
  const what = c.metric === "latency_percentile" ? `${percentLabel(c.p!)} ${c.latency_metric}` : c.metric;
  const d = r.stated.disclosure;
  return [
    `claim: ${what} = ${c.value} (class ${c.class ?? "all"}, stage ${c.stage ?? "all"}; source: ${c.source})`,
    `run ${d.run_id}; recomputed under the stated rules: ${choiceText(r.stated.rules)}`,
    `  window: ${d.window.description}; measurement_seconds = ${d.window.measurement_seconds}`,
    "assumed (not stated by the claim):",
    ...(r.assumed.length ? r.assumed.map((a) => `  - ${a}`) : ["  (nothing)"]),
    ...r.notes.map((n) => `NOTE: ${n}`),
    `${r.stated.match ? "MATCH" : "MISMATCH"}: recomputed ${sig(r.stated.value)} vs claimed ${c.value} ` +
    `(difference ${sig(r.stated.difference)}; tolerance ±${sig(r.tolerance.allowed)}${
      r.tolerance.stated ? "" : ", default"
    })`,
    `combinations that reproduce the claim (${r.reproducing.length} of ${r.searched} searched):`,
    ...(r.reproducing.length ? r.reproducing.map((x) => `  ${choiceText(x)}`) : ["  none"]),
  ].join("\n");
}

/** {@linkcode claimMoves} as aligned text. */
export function formatClaimMoves(moves: ClaimMove[]): string {
  return textTable(
    ["rule changed", "choice", "value", "difference", "matches"],
    moves.map((m) => [m.rule, m.choice, sig(m.value), sig(m.difference), m.match ? "yes" : "no"]),
    { left: 2 },
  ).join("\n");
}
