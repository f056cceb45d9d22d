/**
 * A production-vs-load-test comparison as plain text (tables with n) and as findings: sentences that state what the
 * load test did not see, every number with its n and denominator.
 *
 * @module
 */
import { sig } from "../../lib/number_format.ts";
import { textTable } from "../../lib/text_table.ts";
import type { LatencySide, ProductionVsTestResult } from "./production_vs_test.ts";

const pct = (x: number | null) => (x === null ? "-" : `${(x * 100).toFixed(1)} %`);
const ms = (x: number | null) => (x === null ? "-" : `${sig(x, 4)} ms`);
const signed = (x: number | null, unit: (v: number) => string) =>
  x === null ? "-" : `${x >= 0 ? "+" : "−"}${unit(Math.abs(x))}`;
const pctPoints = (x: number) => `${(x * 100).toFixed(1)} points`;
const name = (cls: string | null) => cls ?? "all";
const pLabel = (p: number) => `p${+(p * 100).toFixed(1)}`;
/** n, and whether it is too small to support the percentile (latencyTable's early-stopping rule). */
const nOf = (s: LatencySide) => `(n ${s.n}${s.supported ? "" : ", too few to support it"})`;
const side = (s: LatencySide) => (s.value === null ? "-" : `${sig(s.value, 4)} (n ${s.n}${s.supported ? "" : ", ?"})`);

/**
 * The comparison as text: the runs and the policy, a latency table (a row per class, metric and percentile:
 * production, load test, difference; `?` = n too small to support the percentile), an acceptance table, the wait
 * outside the model server, and the segments the load test did not see.
 *
 * @example
 * ```ts ignore
 * console.log(formatProductionVsTest(productionVsTest(prod, test, policy)));
 * ```
 */
export function formatProductionVsTest(r: ProductionVsTestResult): string {
  const d = r.disclosure;
  const out = [
    `production recording ${r.production.run_id} vs load test ${r.test.run_id} (workload ${d.workload}); ` +
    `denominator ${d.denominator}; windows: production ${d.windows.production}, load test ${d.windows.test}`,
    `${d.rules.pairing}; ${d.rules.latency}`,
    "",
    "latency, ms (value (n); ? = n too small to support the percentile; difference = production − load test)",
    ...textTable(
      ["class", "metric", "p", "production", "load test", "difference"],
      r.latency.map((x) => [
        name(x.class),
        x.metric,
        pLabel(x.p),
        side(x.production),
        side(x.test),
        signed(x.difference_ms, (v) => sig(v, 4)),
      ]),
      { left: 3 },
    ),
    "",
    `acceptance (accepted / ${d.denominator}; ${d.rules.acceptance})`,
    ...textTable(
      ["class", "production", "load test", "difference"],
      r.acceptance.map((x) => [
        name(x.class),
        `${x.production.accepted}/${x.production[d.denominator]} ${pct(x.production.acceptance_rate)}`,
        `${x.test.accepted}/${x.test[d.denominator]} ${pct(x.test.acceptance_rate)}`,
        signed(x.difference, pctPoints),
      ]),
      { left: 1 },
    ),
    "",
    `outside the model server (${d.rules.outside_model})`,
    ...textTable(
      ["class", "production", "load test", "difference"],
      r.outside_model.map((x) => [
        name(x.class),
        `${pct(x.production.pooled_share)} of n ${x.production.n}, median ${ms(x.production.median_ms)}`,
        `${pct(x.test.pooled_share)} of n ${x.test.n}, median ${ms(x.test.median_ms)}`,
        signed(x.difference, pctPoints),
      ]),
      { left: 1 },
    ),
    "",
    `not seen by the load test (${d.rules.unseen})`,
    ...(r.unseen.length
      ? textTable(
        ["class", "segment", "production", "load test"],
        r.unseen.map((u) => [
          name(u.class),
          u.segment,
          `${pct(u.production.pooled_share)} of the waiting time, n ${u.production.n}, median ${
            ms(u.production.median_ms)
          }, p95 ${ms(u.production.p95_ms)}`,
          u.test,
        ]),
        { left: 2, lastLeft: true },
      )
      : ["(none)"]),
  ];
  return out.join("\n");
}

/**
 * What the load test did not see, as sentences (markdown), one per finding, every number with its n and its
 * denominator: per class the e2e and TTFT medians and p95 of both runs (a percentile its n cannot support says so), acceptance of both, the share of the wait
 * outside the model server of both, and each segment the recording had and the load test did not.
 *
 * @example
 * ```ts ignore
 * for (const line of productionVsTestFindings(result)) console.log(`- ${line}`);
 * ```
 */
export function productionVsTestFindings(r: ProductionVsTestResult): string[] {
  const d = r.disclosure;
  const out: string[] = [];
  const classes = r.acceptance.map((a) => a.class);
  for (const cls of classes) {
    const lat = (metric: string, p: number) =>
      r.latency.find((x) => x.class === cls && x.metric === metric && x.p === p);
    const parts = (["e2e_ms", "ttft_ms"] as const).flatMap((metric) =>
      [0.5, 0.95].flatMap((p) => {
        const x = lat(metric, p);
        if (!x) return [];
        return [
          `${metric.replace("_ms", "").toUpperCase()} ${pLabel(p)} ${ms(x.production.value)} ${nOf(x.production)} ` +
          `against ${ms(x.test.value)} ${nOf(x.test)}: ${signed(x.difference_ms, (v) => `${sig(v, 3)} ms`)}`,
        ];
      })
    );
    if (parts.length) {
      out.push(`**${name(cls)}**, production against the load test: ${parts.join("; ")}.`);
    }
  }
  const all = r.acceptance.find((a) => a.class === null);
  if (all) {
    out.push(
      `**Acceptance** under the same SLO policy (accepted / ${d.denominator}): production ${all.production.accepted} of ` +
        `${all.production[d.denominator]} (${pct(all.production.acceptance_rate)}), the load test ` +
        `${all.test.accepted} of ${all.test[d.denominator]} (${pct(all.test.acceptance_rate)}); by class: ` +
        r.acceptance.filter((a) => a.class !== null).map((a) =>
          `${a.class} ${pct(a.production.acceptance_rate)} (n ${a.production[d.denominator]}) against ` +
          `${pct(a.test.acceptance_rate)} (n ${a.test[d.denominator]})`
        ).join(", ") + ".",
    );
  }
  for (const o of r.outside_model) {
    out.push(
      `**Outside the model server**, ${name(o.class)}: ${pct(o.production.pooled_share)} of production's waiting ` +
        `time (Σ (e2e − model) / Σ e2e over ${o.production.n} completed tasks; median ${ms(o.production.median_ms)} ` +
        `a task) against ${pct(o.test.pooled_share)} in the load test (${o.test.n} tasks; median ` +
        `${ms(o.test.median_ms)}).`,
    );
  }
  const byClass = new Map<string, typeof r.unseen>();
  for (const u of r.unseen) byClass.set(name(u.class), [...(byClass.get(name(u.class)) ?? []), u]);
  for (const [cls, us] of byClass) {
    out.push(
      `**Not seen by the load test**, ${cls}: ` +
        us.map((u) =>
          `${u.segment} (${u.test === "not measured" ? "not measured" : "0 ms"} in the load test; in production ` +
          `${pct(u.production.pooled_share)} of the waiting time, median ${ms(u.production.median_ms)}, p95 ` +
          `${ms(u.production.p95_ms)}, n ${u.production.n})`
        ).join(", ") + ".",
    );
  }
  return out;
}
