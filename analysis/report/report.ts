/**
 * The self-contained HTML report of a run: the summary tables (goodput,
 * latency with n and CI, the disclosure) and every figure whose inputs
 * exist, with a list of the absent ones and why. The plotly.js bundle is
 * inlined once: the file opens offline.
 *
 * @module
 */
import { percentLabel } from "../latency/_percentile_checks.ts";
import type { SloPolicy } from "../../schema/slo.ts";
import { alternatives } from "../audit/alternatives.ts";
import { latencyInWindow } from "../latency/latency.ts";
import { DEFAULT_SUPPORT_CONFIDENCE, supportRuleText } from "../latency/early_stopping.ts";
import { roundUp } from "../latency/round_display.ts";
import { FAILURE_ORDER } from "../goodput/classify.ts";
import { goodput, type GoodputRow } from "../goodput/goodput.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import { policyForRun, runWindow } from "../goodput/policy.ts";
import { hasEpoch } from "../run/imported_run.ts";
import { runVerdicts } from "../knee/verdicts.ts";
import { alternativesFigure } from "../plots/alternatives_chart.ts";
import { costWaterfallFigure } from "../plots/cost_waterfall.ts";
import type { ReportExtras } from "../plots/extras.ts";
import { failuresFigure } from "../plots/failures.ts";
import type { Figure } from "../plots/figure.ts";
import { sig } from "../../lib/number_format.ts";
import { goodputVsLoadFigure, loadCurveFromGoodput } from "../plots/goodput_vs_load.ts";
import { escapeHtml, pageHtml } from "../plots/html.ts";
import { latencyCdfFigure, latencyCdfInput } from "../plots/latency_cdf.ts";
import { latencyPercentilesFigure } from "../plots/latency_percentiles.ts";
import { routeComparisonFigure } from "../plots/route_comparison.ts";
import { sloSweepFigure, sloSweepInput } from "../plots/slo_sweep.ts";
import { timelineFigure } from "../plots/timeline.ts";
import { timelineInput } from "../plots/timeline_input.ts";

/** Options of {@linkcode buildReport}. */
export interface ReportOptions {
  /** Where the policy came from, printed in the report. @default {"(policy given in code)"} */
  policy_source?: string;
  /** Inputs computed elsewhere: knee marks, ledger, route comparison, outages. @default {{}} */
  extras?: ReportExtras;
  /** One-sided confidence of the latency table's supported rule (MLPerf LoadGen early stopping). @default {0.99} */
  supportConfidence?: number;
}

/** A figure the report could not include, and why. */
export interface AbsentFigure {
  id: string;
  title: string;
  reason: string;
}

/** The result of {@linkcode buildReport}. */
export interface Report {
  /** The verdicts in the banner at the top of the page (`runVerdicts(...).lines`); empty when there are none. */
  verdicts: string[];
  html: string;
  figures: Figure[];
  absent: AbsentFigure[];
}

const esc = escapeHtml;

function table(head: string[], rows: string[][]): string {
  const th = head.map((h) => `<th>${esc(h)}</th>`).join("");
  const body = rows.map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join("")}</tr>`).join("\n");
  return `<table><thead><tr>${th}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

function goodputRows(rows: { name: string; row: GoodputRow }[]): string[][] {
  return rows.map(({ name, row }) => [
    name,
    String(row.offered),
    String(row.sent),
    String(row.completed),
    String(row.accepted),
    sig(row.measurement_seconds),
    sig(row.accepted_goodput),
    sig(row.acceptance_rate),
    sig(row.slo_miss_rate),
    FAILURE_ORDER.filter((f) => row.failures[f] > 0).map((f) => `${f}=${row.failures[f]}`).join(" ") || "-",
  ]);
}

/**
 * Builds the report of a run under an SLO policy. Figures: goodput vs
 * offered load (knee and limits marked when `extras.knee` gives them), p99
 * e2e per class per stage, e2e and TTFT CDFs against the SLO, the e2e SLO
 * sweep, the run timeline (outages shaded from `extras.outages`), failures
 * by class and by stage, the alternatives chart, and, when supplied, the
 * cost waterfall (`extras.ledger`) and the route comparison
 * (`extras.routes`). Each absent figure or mark is listed with its reason.
 * A banner at the top states the verdicts first: an incomplete run and how it
 * ended, nothing accepted, a client-limited run or stage (`runVerdicts`).
 */
export function buildReport(run: LoadedRun, policy: SloPolicy, options: ReportOptions = {}): Report {
  policy = policyForRun(policy, run, "buildReport() policy");
  const extras = options.extras ?? {};
  const m = run.manifest;
  const stageOrder = m.stages.map((s) => s.name);
  const window = runWindow(run, policy.window);
  const g = goodput(run, policy);
  const support = options.supportConfidence ?? DEFAULT_SUPPORT_CONFIDENCE;
  const latency = latencyInWindow(run, window, { supportConfidence: support });
  const verdicts = runVerdicts(run, window, g).lines;
  const absent: AbsentFigure[] = [];

  const curve = loadCurveFromGoodput(g, m.stages);
  if (extras.knee) Object.assign(curve, extras.knee);
  else {
    absent.push({
      id: "goodput-vs-load:knee",
      title: "knee and limit marks on goodput vs offered load",
      reason: 'no knee: the run has fewer than two load levels, or none was supplied (runReportExtras, or "knee" in ' +
        "the extras file)",
    });
  }
  const figures: Figure[] = [
    goodputVsLoadFigure(curve),
    timelineFigure(timelineInput(run, policy, { outages: extras.outages ?? [] })),
    failuresFigure(g, { by: "class" }),
    failuresFigure(g, { by: "stage" }),
    latencyPercentilesFigure(latency, {
      metric: "e2e_ms",
      p: 0.99,
      stages: stageOrder,
      window: `${window.stages.join("+")} (${window.measurement_seconds} s)`,
      run_id: m.run_id,
    }),
    latencyCdfFigure(latencyCdfInput(run, policy, "e2e_ms")),
    latencyCdfFigure(latencyCdfInput(run, policy, "ttft_ms")),
    sloSweepFigure(sloSweepInput(run, policy, { metric: "e2e_ms" })),
    alternativesFigure(alternatives(run, policy)),
  ];
  if (!run.server) {
    absent.push({
      id: "timeline:server",
      title: "queue, running and replicas panel",
      reason: "the run has no server table",
    });
  }
  if (!extras.outages) {
    absent.push({
      id: "timeline:outages",
      title: "outage shading on the timeline",
      reason: 'no outages supplied (runReportExtras detects them in the log; or "outages" in the extras file)',
    });
  }
  if (extras.ledger) figures.push(costWaterfallFigure(extras.ledger));
  else {
    absent.push({
      id: "cost-waterfall",
      title: "cost waterfall",
      reason: 'no price sheet given (deno task report RUN --prices FILE, or "ledger" in the extras file)',
    });
  }
  if (extras.routes) figures.push(routeComparisonFigure(extras.routes));
  else {
    const routes = [...new Set(run.requests.getColumn("route").toArray() as string[])].sort();
    absent.push({
      id: "route-comparison",
      title: "route comparison",
      reason: `no route comparison supplied (runs of several routes on the same plan, in the extras file's ` +
        `"routes"); this run has route${routes.length === 1 ? "" : "s"} ${routes.join(", ")}`,
    });
  }

  const d = g.disclosure;
  const head = ["", "offered", "sent", "completed", "accepted", "seconds", "goodput/s", "accept", "miss", "failures"];
  const latRows = latency
    .filter((r) => r.stage === null && ["e2e_ms", "ttft_ms", "tpot_ms"].includes(r.metric))
    .map((r) => [
      r.class ?? "all",
      r.metric,
      `${percentLabel(r.p)}`,
      String(r.n),
      r.excluded === null
        ? "-"
        : `${r.excluded}${r.excluded_not_streamed ? ` (${r.excluded_not_streamed} not streamed)` : ""}`,
      sig(r.value),
      `[${sig(r.lower)}, ${r.upper === null ? "∞" : sig(r.upper)}]`,
      r.supported && r.bound !== null ? `≤ ${sig(roundUp(r.bound))}` : "UNSUPPORTED",
    ]);
  const slo = Object.entries(d.slo.classes).map(([c, s]) => [
    c,
    sig(s.e2e_ms ?? null),
    sig(s.ttft_ms ?? null),
    sig(s.tpot_ms ?? null),
    s.gates.join(", "),
    d.slo_rules[c] ?? "",
  ]);
  const before = [
    // The verdicts stand above everything: an incomplete run, nothing accepted, the client as the limit.
    ...(verdicts.length
      ? [
        '<div class="verdicts" role="alert" style="border: 2px solid #b00020; background: #fdecea; padding: 0.2em 1em">',
        ...verdicts.map((v) => `<p><b>${esc(v)}</b></p>`),
        "</div>",
      ]
      : []),
    `<h1>Run ${esc(m.run_id)}: accepted goodput ${esc(sig(g.overall.accepted_goodput))} tasks/s</h1>`,
    `<p>${
      esc(
        `${g.overall.accepted} accepted of ${g.overall.offered} offered in ${sig(d.window.measurement_seconds)} s ` +
          `(${d.window.description}); denominator ${d.denominator}; SLO policy ${
            options.policy_source ?? "(policy given in code)"
          }; ` +
          `workload ${m.workload.name}${"version" in m.workload ? ` ${m.workload.version}` : ""}; started ${
            hasEpoch(m) ? m.epoch_iso : "at an unknown wall-clock time (imported: no epoch)"
          }; ${run.format} log, ${d.files.shards} shard(s)${
            d.files.partial ? ` of ${d.files.partial.shard_count} (PARTIAL: only the shards present)` : ""
          }.`,
      )
    }</p>`,
    ...(d.warnings.length
      ? [`<p><b>Warnings:</b></p><ul>${d.warnings.map((w) => `<li>${esc(w)}</li>`).join("")}</ul>`]
      : []),
    "<h2>Accepted goodput</h2>",
    table(head, goodputRows([{ name: "all", row: g.overall }])),
    table(["class", ...head.slice(1)], goodputRows(g.by_class.map((r) => ({ name: r.class, row: r })))),
    table(["stage", ...head.slice(1)], goodputRows(g.by_stage.map((r) => ({ name: r.stage, row: r })))),
    "<h2>Latency (policy window; nearest-rank percentiles, 95 % distribution-free CI)</h2>",
    `<p>${
      esc(
        `${supportRuleText(latency.map((r) => r.p), { confidence: support })}; a supported percentile is shown with ` +
          'its early-stopping bound (the smallest sample x at which the claim "percentile ≤ x" is supported; shown ' +
          "rounded up, never down), else UNSUPPORTED; excluded = completed requests without the metric (a request " +
          "that was not streamed has no TTFT or TPOT), not in n.",
      )
    }</p>`,
    table(["class", "metric", "p", "n", "excluded", "value (ms)", "CI", `bound at ${sig(support * 100)} %`], latRows),
    "<h2>Disclosure</h2>",
    table(["class", "e2e ≤ ms", "TTFT ≤ ms", "TPOT ≤ ms", "gates required", "as applied in the window"], slo),
    `<ul>${
      [
        ...d.inclusion_rules,
        d.ttft_definition,
        d.tpot_definition,
        d.streaming_rule,
        d.gate_rule,
        d.slo_rules["(any other class)"]!,
      ].map((r) => `<li>${esc(r)}</li>`).join("")
    }</ul>`,
    "<h2>Figures</h2>",
  ].join("\n");
  const after = [
    "<h2>Absent figures and marks</h2>",
    absent.length
      ? `<ul>${absent.map((a) => `<li><b>${esc(a.title)}</b>: ${esc(a.reason)}</li>`).join("")}</ul>`
      : "<p>none</p>",
  ].join("\n");
  const html = pageHtml(figures, { title: `Accepted goodput report: ${m.run_id}`, before, after });
  return { verdicts, html, figures, absent };
}
