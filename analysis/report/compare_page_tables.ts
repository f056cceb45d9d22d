/**
 * The comparison page's tables as HTML (analysis/report/compare_page.ts): the ranked verdict's two rankings with
 * their intervals, the cost at the planned volume, the break-even prices and the price lines (assumed lines marked),
 * per-class acceptance and latency with the routes side by side, and the routes' knees and limits. Every cell is
 * escaped; numbers keep as many significant digits as their column needs for different values to print differently.
 *
 * @module
 */
import { fixed, sig } from "../../lib/number_format.ts";
import type { CompareResult } from "../compare/compare.ts";
import type { DecisionResult, RankDifference, RouteDecision } from "../compare/decision_result.ts";
import { belowHighest, digitsOf, interval, pct as levelPct, separable, signed } from "../compare/format_decision.ts";
import type { RouteCostResult } from "../compare/route_costs.ts";
import type { SensitivityLine, SensitivityResult } from "../compare/sensitivity.ts";
import type { RouteAtVolume, VolumeResult } from "../compare/volume.ts";
import { rateText } from "../knee/limit.ts";
import { supportRuleText } from "../latency/early_stopping.ts";
import { roundDown } from "../latency/round_display.ts";
import { escapeHtml as esc } from "../plots/html.ts";

/** A cell that is a number (signed, with an exponent or a unit after it): right-aligned. */
const NUMERIC = /^[-+]?\d[\d.,]*(e[-+]?\d+)?( [a-z/]+)?$/;

/**
 * A table; `marked` rows get the class `gp-assumed` (an assumption, not a measurement), numeric cells the class
 * `gp-num` (right-aligned; text is left-aligned).
 */
export function tableHtml(head: string[], rows: string[][], options: { id?: string; marked?: boolean[] } = {}): string {
  const th = head.map((h) => `<th>${esc(h)}</th>`).join("");
  const td = (c: string) => `<td${NUMERIC.test(c) ? ' class="gp-num"' : ""}>${esc(c)}</td>`;
  const body = rows.map((r, i) => `<tr${options.marked?.[i] ? ' class="gp-assumed"' : ""}>${r.map(td).join("")}</tr>`)
    .join("\n");
  return `<table${options.id ? ` id="${esc(options.id)}"` : ""}><thead><tr>${th}</tr></thead><tbody>\n${body}\n` +
    "</tbody></table>";
}

/** A paragraph of escaped text, with an optional class. */
export const para = (text: string, cls?: string): string => `<p${cls ? ` class="${esc(cls)}"` : ""}>${esc(text)}</p>`;

/**
 * The two rankings of a {@linkcode DecisionResult}: by cost per accepted task and by accepted goodput at the
 * production limit, each route's figure and its difference to the best with their intervals and whether they are
 * separable (or how many more requests would separate them).
 */
export function rankedTablesHtml(r: DecisionResult): string {
  const lvl = levelPct(r.method.level);
  const cost = digitsOf(r.routes.map((x) => x.cost_per_accepted));
  const costDiff = signed(digitsOf(r.cost_differences));
  const good = digitsOf(r.routes.map((x) => x.goodput_at_limit));
  const goodDiff = signed(digitsOf(r.goodput_differences.map(belowHighest)));
  const ranked = (key: "cost_rank" | "goodput_rank") =>
    [...r.routes].sort((a, b) => (a[key] ?? Infinity) - (b[key] ?? Infinity));
  const rank = (n: number | null) => (n === null ? "-" : String(n));
  const diffCells = (d: RankDifference | undefined, f: (v: number | null) => string, ranked: boolean) => [
    d ? f(d.point) : "-",
    d ? interval(d, f) : "-",
    ranked ? separable(d) : "-",
  ];
  const costRows = ranked("cost_rank").map((x: RouteDecision) => {
    const d = r.cost_differences.find((y) => y.run_id === x.run_id);
    return [
      rank(x.cost_rank),
      x.route,
      x.run_id,
      String(x.offered),
      String(x.accepted),
      cost(x.cost_per_accepted.point),
      interval(x.cost_per_accepted, cost),
      ...diffCells(d, costDiff, x.cost_rank !== null),
    ];
  });
  const goodRows = ranked("goodput_rank").map((x: RouteDecision) => {
    const g = x.goodput_at_limit, d = r.goodput_differences.find((y) => y.run_id === x.run_id);
    return [
      rank(x.goodput_rank),
      x.route,
      good(g.point),
      interval(g, good),
      g.at.level ? rateText(g.at.level.pooled.offered_rps, "") : "-",
      g.at.basis === null ? "-" : g.at.rate_rps === null ? g.at.basis : `${g.at.basis} ${rateText(g.at.rate_rps)}`,
      ...diffCells(d && belowHighest(d), goodDiff, x.goodput_rank !== null),
    ];
  });
  return [
    `<h3>By cost per accepted task (${esc(r.currency)})</h3>`,
    para(
      `The ledger's cost per accepted task (whole ledger / accepted tasks) with its ${lvl} interval; the difference ` +
        `to the cheapest route with its ${lvl} ${r.method.paired ? "paired" : "unpaired"} interval.`,
      "gp-note",
    ),
    tableHtml(
      [
        "rank",
        "route",
        "run",
        "offered",
        "accepted",
        "cost/accepted",
        "interval",
        "vs cheapest",
        "interval",
        "separable",
      ],
      costRows,
      { id: "ranked-cost" },
    ),
    "<h3>By accepted goodput at the production limit (tasks/s)</h3>",
    para(
      `Accepted goodput measured at the knee's load level at or below the production limit, with its ${lvl} ` +
        `interval; the difference to the highest with its ${lvl} interval.`,
      "gp-note",
    ),
    tableHtml(
      ["rank", "route", "goodput/s", "interval", "level req/s", "at", "vs highest", "interval", "separable"],
      goodRows,
      { id: "ranked-goodput" },
    ),
  ].join("\n");
}

const pct = (x: number) => `${sig(x * 100, 3)} %`;
/** Money: 6 significant digits, as the text form (format_volume.ts). */
const money = (x: number) => sig(x, 6);

function capacityText(r: RouteAtVolume): string {
  const self = r.self_hosted.map((s) =>
    `${s.route}: ${s.replicas} replicas (${s.replicas_for_demand} + ${s.redundancy} spare) × ${
      s.gpus / (s.replicas || 1)
    } ${s.gpu_type}, idle ${pct(s.idle.idle_share)}`
  );
  const hosted = r.hosted.map((h) =>
    `${h.route}: quota ${sig(h.requests_per_min, 4)} req/min, ${sig(h.tokens_per_min, 4)} tok/min (${
      h.stated.stated_requests === null && h.stated.stated_tokens === null
        ? "no quota headers recorded"
        : h.covers_requests === false || h.covers_tokens === false
        ? "stated quota NOT COVERED"
        : "stated quota covered"
    })`
  );
  return [...self, ...hosted].join("; ");
}

/**
 * The cost at the planned volume: one row per route (an extrapolated one marked), the crossings, and each
 * extrapolation and caveat in words.
 */
export function volumeTableHtml(v: VolumeResult): string {
  const d = v.demand;
  const cur = v.currency;
  const crossings = v.crossings.length
    ? `Crossings between 0 and ${sig(2 * d.peak_accepted_rps, 4)} tasks/s (where the cheaper of two routes ` +
      `changes): ${
        v.crossings.map((c) =>
          `${c.cheaper_above} cheaper than ${c.cheaper_below} from ${sig(c.demand_rps, 4)}${
            c.at_step ? " (replica step)" : ""
          }`
        ).join("; ")
      }.`
    : `Crossings between 0 and ${sig(2 * d.peak_accepted_rps, 4)} tasks/s: none, the order holds over the range.`;
  const notes = v.routes.flatMap((r) => [
    ...r.extrapolation.map((e) => `EXTRAPOLATION (${r.route}): ${e}`),
    ...r.caveats.map((c) => `caveat: ${c}`),
  ]);
  return [
    para(
      `Planned: peak ${sig(d.peak_accepted_rps, 6)} accepted tasks/s, ${sig(d.monthly_accepted, 6)} accepted tasks ` +
        `a month (${d.monthly_from}; ${v.hours_per_month} h a month); redundancy ${
          d.redundancy === null ? "each price sheet's redundancy_replicas" : `${d.redundancy} spare (--redundancy)`
        }. Rows marked EXTRAPOLATION stand beyond what the route's run measured.`,
      "gp-note",
    ),
    tableHtml(
      ["route", "kind", `monthly ${cur}`, `${cur}/accepted task`, "extrapolated", "replicas or quota at peak"],
      v.routes.map((r) => [
        r.route,
        r.kind,
        money(r.monthly.total),
        money(r.cost_per_accepted_task),
        r.extrapolated ? "EXTRAPOLATION" : "no",
        capacityText(r),
      ]),
      { id: "volume-table", marked: v.routes.map((r) => r.extrapolated) },
    ),
    para(crossings, "gp-note"),
    notes.length ? `<ul class="gp-notes">${notes.map((n) => `<li>${esc(n)}</li>`).join("")}</ul>` : "",
  ].join("\n");
}

/** Significant digits of costs and prices in the sensitivity tables (as format_sensitivity.ts). */
const num = (v: number | null | undefined) => sig(v, 5);
const mark = (l: SensitivityLine) => (l.assumed ? `${l.id} *` : l.id);

/**
 * The break-even prices (pairs whose flip needs no negative price, or whose reason is one), then `between` (the
 * tornado), then the price lines with their ranges and sources; an assumed line carries `*` and its row is marked.
 */
export function sensitivityTablesHtml(s: SensitivityResult, between = ""): string {
  const byId = new Map(s.lines.map((l) => [l.id, l]));
  const listed = s.break_even.filter((b) => b.price !== null || /negative/.test(b.reason ?? ""));
  const hidden = s.break_even.length - listed.length;
  const cell = (b: (typeof listed)[number], l: SensitivityLine) => {
    if (b.price === null) return `none: ${b.reason}`;
    const range = b.within_range === null ? "" : b.within_range ? ", inside the range" : ", outside the range";
    return `${num(b.price)}${b.factor === null ? "" : ` = ×${sig(b.factor, 3)}`}${
      l.also ? ` (${num(b.price * l.also.factor)} ${l.also.unit})` : ""
    }: ${b.dearer} cheaper ${b.dearer_wins} it${range}`;
  };
  return [
    "<h3>Break-even prices</h3>",
    para(
      "Each line alone, every other price as on the sheets: the price at which the pair's order flips. " +
        "* = an assumption (its source says so, or the caller marked it), not a quote.",
      "gp-note",
    ),
    tableHtml(
      ["pair (cheaper < dearer)", "line", "unit", "now", "gap now", "break-even"],
      listed.map((b) => {
        const l = byId.get(b.line)!;
        return [`${b.cheaper} < ${b.dearer}`, mark(l), l.unit, num(l.value), num(b.gap), cell(b, l)];
      }),
      { id: "break-even", marked: listed.map((b) => Boolean(byId.get(b.line)!.assumed)) },
    ),
    hidden
      ? para(
        `${hidden} pair × line combinations have no break-even: the line is absent from both routes or costs both ` +
          "the same per accepted task.",
        "gp-note",
      )
      : "",
    between,
    "<h3>Price lines</h3>",
    tableHtml(
      ["line", "unit", "now", "range", "basis"],
      s.lines.map((l) => [
        mark(l),
        l.unit,
        num(l.value),
        l.range ? `${num(l.range.low)}–${num(l.range.high)} (${l.range.from})` : "not varied",
        l.assumed ? `ASSUMED (${l.assumed}): ${l.source}` : l.source,
      ]),
      { id: "price-lines", marked: s.lines.map((l) => Boolean(l.assumed)) },
    ),
  ].join("\n");
}

/**
 * Per-class acceptance and e2e latency with the routes side by side (one column group per route), the overall row
 * first, then the crowding-out table when single-class runs were compared.
 */
export function classTablesHtml(c: CompareResult): string {
  const classes = [...new Set(c.routes.flatMap((r) => r.by_class.map((x) => x.class)))];
  const acc = (accepted: number, offered: number, rate: number | null) => `${fixed(rate, 3)} (${accepted}/${offered})`;
  const accRows = [
    ["all", ...c.routes.map((r) => acc(r.overall.accepted, r.overall.offered, r.overall.acceptance_rate))],
    ...classes.map((k) => [
      k,
      ...c.routes.map((r) => {
        const x = r.by_class.find((y) => y.class === k);
        return x ? acc(x.accepted, x.offered, x.acceptance_rate) : "-";
      }),
    ]),
  ];
  const latRows = classes.map((k) => [
    k,
    ...c.routes.map((r) => {
      const x = r.by_class.find((y) => y.class === k);
      return x ? `${fixed(x.e2e_p95_ms, 0)} / ${fixed(x.e2e_p99_ms, 0)} (n ${x.e2e_n})` : "-";
    }),
  ]);
  const out = [
    para(
      `Acceptance = accepted / offered (denominator ${c.policy.denominator}); e2e percentiles of completed requests ` +
        `in ms, '-' where n does not support the percentile (${
          supportRuleText([0.95, 0.99], { confidence: c.support_confidence })
        }).`,
      "gp-note",
    ),
    tableHtml(["class", ...c.routes.map((r) => `${r.route} acceptance`)], accRows, { id: "class-acceptance" }),
    tableHtml(["class", ...c.routes.map((r) => `${r.route} e2e p95 / p99 ms`)], latRows, { id: "class-latency" }),
  ];
  if (c.crowding.length) {
    out.push(
      para(
        "Crowding out: each class's acceptance in the mixed run against a run of that class alone on the same route " +
          "(one-sided two-proportion z-test, 95 %).",
        "gp-note",
      ),
      tableHtml(
        ["route", "class", "mixed", "n", "alone", "n", "drop", "crowded out"],
        c.crowding.map((x) => [
          x.route,
          x.class,
          fixed(x.mixed_acceptance, 3),
          String(x.mixed_n),
          fixed(x.alone_acceptance, 3),
          String(x.alone_n),
          fixed(x.drop, 3),
          x.crowded_out ? "YES" : "no",
        ]),
        { id: "crowding" },
      ),
    );
  }
  return out.join("\n");
}

const capacity = (v: unknown) => (typeof v === "number" ? `${roundDown(v)} req/s` : "none");

/**
 * Each route's knee, first degrading signal and production limit: from the knee reports of `routeCosts` when given,
 * else from the comparison's extra columns (the compare CLI's); rates rounded down, never up.
 */
export function kneeTableHtml(c: CompareResult, routeCosts: RouteCostResult | null): string {
  const rows = routeCosts
    ? routeCosts.routes.map((r) => [
      r.route,
      r.knee.knee ? `${roundDown(r.knee.knee.offered_rps)} req/s` : "none",
      r.knee.first_degrading?.signals[0] ?? (r.knee.knee ? r.knee.knee.source : "none in tested range"),
      r.limit.headroom === null ? "not applied (no headroom given)" : capacity(r.limit.limit_rps),
      r.limit.choices.map((x) => `${sig(x.headroom * 100)} % → ${roundDown(x.limit_rps)}`).join(", ") || "-",
    ])
    : c.routes.map((r) => {
      const limitKey = Object.keys(r.extras).find((k) => k.startsWith("limit_rps"));
      return [
        r.route,
        capacity(r.extras.knee_rps),
        String(r.extras.knee_signal ?? "-"),
        limitKey ? capacity(r.extras[limitKey]) : "not computed",
        "-",
      ];
    });
  return tableHtml(
    ["route", "knee", "first degrading signal", "production limit", "limit at other headrooms (req/s)"],
    rows,
    { id: "knees" },
  );
}
