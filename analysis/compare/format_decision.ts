import { distinctDigits } from "../../lib/distinct_digits.ts";
import { sig } from "../../lib/number_format.ts";
import { textTable } from "../../lib/text_table.ts";
import { rateText } from "../knee/limit.ts";
import type { DecisionResult, DecisionVerdict, Estimate, RankDifference, RouteDecision } from "./decision_result.ts";

/** Significant digits for a family of figures: enough that two different ones print differently. */
export function digitsOf(es: readonly (Estimate | undefined)[]): (v: number | null) => string {
  const d = distinctDigits(es.flatMap((e) => (e ? [e.point, e.lo, e.hi] : [])));
  return (v) => sig(v, d);
}

/** An interval level as a percentage (`95 %`). */
export const pct = (level: number): string => `${sig(level * 100, 6)} %`;
/** An estimate's interval, `[lo, hi]` in the family's digits; `-` when it has none. */
export const interval = (e: Estimate, f: (v: number | null) => string): string =>
  e.lo === null && e.hi === null ? "-" : `[${f(e.lo)}, ${f(e.hi)}]`;
/** A formatter that puts `+` before a positive value. */
export const signed = (f: (v: number | null) => string) => (v: number | null): string =>
  v === null ? "-" : v > 0 ? `+${f(v)}` : f(v);
/** Whether a route is told apart from the best: `best`, `yes`, or why not and how many more requests would. */
export const separable = (d: RankDifference | undefined): string =>
  !d
    ? "best"
    : d.distinguishable
    ? "yes"
    : d.more_requests === null
    ? "no: no difference observed"
    : `no: ~${d.more_requests} more requests`;

/**
 * A goodput difference as shown: the route's goodput minus the highest (negative: below it), with its interval
 * mirrored. The result keeps the shortfall (highest − route, positive) that the ranking and the n-needed rule use.
 */
export function belowHighest(d: RankDifference): RankDifference {
  return {
    ...d,
    point: d.point === null ? null : -d.point,
    lo: d.hi === null ? null : -d.hi,
    hi: d.lo === null ? null : -d.lo,
  };
}

/**
 * The verdict in one line: the cheapest route per accepted task under the
 * stated SLO and gates with its interval, or the routes that are not
 * distinguishable from it at this sample size and how many more requests would
 * separate them at the observed spread.
 */
export function verdictLine(
  r: DecisionResult,
  v: Pick<DecisionVerdict, "kind" | "best" | "tied" | "more_requests">,
): string {
  const byId = (id: string) => r.routes.find((x) => x.run_id === id)!;
  if (v.kind === "no_cost" || v.best === null) {
    return "verdict: no route accepted a task in the window: there is no cost per accepted task to rank";
  }
  const cost = digitsOf(r.routes.map((x) => x.cost_per_accepted));
  const diff = signed(digitsOf(r.cost_differences));
  const best = byId(v.best);
  const cur = r.currency;
  const lvl = pct(r.method.level);
  // Runs on different schedules (--unpaired) are resampled apart: their differences are not paired.
  const paired = r.method.paired ? "paired" : "unpaired";
  const figure = (x: RouteDecision) => `${x.route} ${cost(x.cost_per_accepted.point)}`;
  if (v.kind === "cheapest") {
    const next = r.cost_differences[0];
    const nextText = next
      ? `; next ${next.route}, ${diff(next.point)} ${cur} (${lvl} ${paired} interval ${interval(next, diff)})`
      : "";
    return `verdict: ${best.route} is the cheapest per accepted task under the stated SLO and gates: ` +
      `${cost(best.cost_per_accepted.point)} ${cur} (${lvl} interval ${interval(best.cost_per_accepted, cost)})` +
      nextText;
  }
  const tied = r.cost_differences.filter((d) => v.tied.includes(d.run_id));
  const closest = tied[0]!;
  const more = v.more_requests === null
    ? "no difference observed between them: more requests at this spread would not separate them"
    : v.more_requests === 0
    ? "the observed spread alone would separate them at this n, but the interval contains 0 (skewed resamples): " +
      "a longer run would settle it"
    : `about ${v.more_requests} more requests would separate them at the observed spread ` +
      `(n ≈ ${closest.n + v.more_requests} in all, now ${closest.n})`;
  return `verdict: not distinguishable at this sample size: ${figure(best)} and ${
    tied.map((d) => figure(byId(d.run_id))).join(", ")
  } ${cur} per accepted task under the stated SLO and gates (${closest.route} ${diff(closest.point)} ${cur}, ` +
    `${lvl} ${paired} interval ${interval(closest, diff)}); ${more}`;
}

/**
 * The ranked verdict as text: the verdict, the routes ranked by cost per
 * accepted task and by accepted goodput at the production limit (each figure
 * and each difference to the best with its interval), the headroom line, the
 * method, then one line per caveat.
 */
export function formatDecision(r: DecisionResult): string[] {
  const lvl = pct(r.method.level);
  const cost = digitsOf(r.routes.map((x) => x.cost_per_accepted));
  const costDiff = signed(digitsOf(r.cost_differences));
  const good = digitsOf(r.routes.map((x) => x.goodput_at_limit));
  const goodDiff = signed(digitsOf(r.goodput_differences.map(belowHighest)));
  const ranked = (key: "cost_rank" | "goodput_rank") =>
    [...r.routes].sort((a, b) => (a[key] ?? Infinity) - (b[key] ?? Infinity));
  const out = [
    r.verdict.text,
    "",
    `ranked by cost per accepted task (${r.currency}, the ledger's: whole ledger / accepted tasks; ${lvl} intervals; ` +
    `difference to the cheapest, ${r.method.paired ? "paired" : "unpaired"})`,
    ...textTable(
      ["rank", "route", "run", "offered", "accepted", "cost/accepted", "interval", "vs best", "interval", "separable"],
      ranked("cost_rank").map((x) => {
        const d = r.cost_differences.find((y) => y.run_id === x.run_id);
        return [
          x.cost_rank === null ? "-" : String(x.cost_rank),
          x.route,
          x.run_id,
          String(x.offered),
          String(x.accepted),
          cost(x.cost_per_accepted.point),
          interval(x.cost_per_accepted, cost),
          d ? costDiff(d.point) : "-",
          d ? interval(d, costDiff) : "-",
          x.cost_rank === null ? "-" : separable(d),
        ];
      }),
      { left: 3, lastLeft: true },
    ),
    "",
    `ranked by accepted goodput at the production limit (tasks/s measured at the knee level at or below the limit; ` +
    `${lvl} intervals; difference to the highest, ${r.method.paired ? "paired" : "unpaired"})`,
    ...textTable(
      ["rank", "route", "goodput/s", "interval", "level req/s", "at", "vs best", "interval", "separable"],
      ranked("goodput_rank").map((x) => {
        const g = x.goodput_at_limit, d = r.goodput_differences.find((y) => y.run_id === x.run_id);
        return [
          x.goodput_rank === null ? "-" : String(x.goodput_rank),
          x.route,
          good(g.point),
          interval(g, good),
          g.at.level ? rateText(g.at.level.pooled.offered_rps, "") : "-",
          g.at.basis === null ? "-" : g.at.rate_rps === null ? g.at.basis : `${g.at.basis} ${rateText(g.at.rate_rps)}`,
          d ? goodDiff(belowHighest(d).point) : "-",
          d ? interval(belowHighest(d), goodDiff) : "-",
          x.goodput_rank === null ? "-" : separable(d),
        ];
      }),
      { left: 2, lastLeft: true },
    ),
    "",
    r.headroom,
    `SLO and gates: ${r.slo.label}; denominator ${r.slo.denominator}; window ${r.slo.window}`,
    ...r.method.rules.map((l) => `method: ${l}`),
    `method: strata ${
      r.method.strata.map((s) => `${s.stage} (${s.units} ${r.method.unit === "blocks" ? "s" : "requests"})`).join(", ")
    }${r.method.schedule_sha256 ? `; schedule ${r.method.schedule_sha256.slice(0, 12)}…` : ""}`,
    ...r.caveats.map((c) => `caveat: ${c}`),
  ];
  return out;
}
