import type { CompareResult } from "./compare.ts";
import { supportRuleText } from "../latency/early_stopping.ts";
import { roundDown } from "../latency/round_display.ts";
import { fixed, sig } from "../../lib/number_format.ts";
import { distinctDigits } from "../../lib/distinct_digits.ts";
import { textTable } from "../../lib/text_table.ts";

/** Extras that are capacity figures (the knee, a limit): shown rounded down, never up. */
const isCapacity = (key: string): boolean => key.startsWith("knee_rps") || key.startsWith("limit_rps");

/**
 * One extra figure: a capacity rounded down; any other number with as many significant digits as the column needs
 * for its different values to print differently (`digits`, at least 3), so two routes that differ never look equal.
 */
function extraCell(key: string, v: number | string | null | undefined, digits: number): string {
  if (typeof v === "string") return v;
  if (typeof v !== "number") return fixed(v, 4);
  return isCapacity(key) ? String(roundDown(v)) : sig(v, digits);
}

/**
 * Renders a route comparison as aligned text: the rules and every
 * difference between the runs first, then one row per route (with the
 * caller's extra figures), per-class acceptance and tail latency, and the
 * crowding-out table when single-class runs were given.
 */
export function formatCompare(result: CompareResult): string {
  const out = [
    `denominator: ${result.policy.denominator}; window: ${result.policy.window} (one SLO policy for every run)`,
  ];
  if (result.differences.length) {
    out.push("differences between the runs:");
    for (const d of result.differences) {
      const vals = Object.entries(d.values).map(([id, v]) => `${id}=${v}`).join("; ");
      out.push(`  ${d.field}${d.blocking ? " (BLOCKING — compared only because forced)" : ""}: ${vals}`);
    }
  }
  for (const r of result.routes.filter((r) => r.caveats.length)) {
    out.push(`run ${r.run_id}:`, ...r.caveats.map((c) => `  ${c}`));
  }
  const extraKeys = [...new Set(result.routes.flatMap((r) => Object.keys(r.extras)))];
  const digits = Object.fromEntries(
    extraKeys.map((k) => [k, distinctDigits(result.routes.map((r) => r.extras[k] as number | null | undefined))]),
  );
  out.push(
    "",
    "by route",
    ...textTable(
      ["route", "run", "offered", "accepted", "goodput/s", "accept", ...extraKeys],
      result.routes.map((r) => [
        r.route,
        r.run_id,
        String(r.overall.offered),
        String(r.overall.accepted),
        fixed(r.overall.accepted_goodput, 3),
        fixed(r.overall.acceptance_rate, 3),
        ...extraKeys.map((k) => extraCell(k, r.extras[k], digits[k]!)),
      ]),
      { left: 2 },
    ),
    ...(extraKeys.some(isCapacity)
      ? ["knee_rps and limit_rps are rounded down to 4 significant digits, never up (exact values in --json)"]
      : []),
    "",
    `by route × class (e2e percentiles of completed requests; '-' where n does not support the percentile: ${
      supportRuleText([0.95, 0.99], { confidence: result.support_confidence })
    })`,
    ...textTable(
      ["route", "class", "offered", "accept", "goodput/s", "e2e p95 ms", "e2e p99 ms", "n"],
      result.routes.flatMap((r) =>
        r.by_class.map((c) => [
          r.route,
          c.class,
          String(c.offered),
          fixed(c.acceptance_rate, 3),
          fixed(c.accepted_goodput, 3),
          fixed(c.e2e_p95_ms, 0),
          fixed(c.e2e_p99_ms, 0),
          String(c.e2e_n),
        ])
      ),
      { left: 2 },
    ),
  );
  if (result.crowding.length) {
    out.push(
      "",
      "crowding out: per-class acceptance in the mixed run vs the class alone on the same route " +
        "(one-sided two-proportion z-test, 95 %)",
      ...textTable(
        ["route", "class", "mixed", "n", "alone", "n", "drop", "crowded out"],
        result.crowding.map((c) => [
          c.route,
          c.class,
          fixed(c.mixed_acceptance, 3),
          String(c.mixed_n),
          fixed(c.alone_acceptance, 3),
          String(c.alone_n),
          fixed(c.drop, 3),
          c.crowded_out ? "YES" : "no",
        ]),
        { left: 2 },
      ),
    );
  }
  return out.join("\n");
}
