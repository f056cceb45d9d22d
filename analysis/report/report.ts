/**
 * The self-contained HTML report of a run. It leads with the first screen
 * (one verdict line, the headline cards, one line per caveat, the rules it was
 * measured under), then every figure whose inputs exist, each caveat's whole
 * text, then the tables (goodput;
 * latency with n and CI, and the disclosure, collapsed) and the absent
 * figures with why. The plotly.js bundle is inlined once: the file opens
 * offline.
 *
 * @module
 */
import type { SloPolicy } from "../../schema/slo.ts";
import { alternatives } from "../audit/alternatives.ts";
import { latencyInWindow } from "../latency/latency.ts";
import { DEFAULT_SUPPORT_CONFIDENCE } from "../latency/early_stopping.ts";
import { goodput } from "../goodput/goodput.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import { policyForRun, runWindow } from "../goodput/policy.ts";
import { runVerdicts } from "../knee/verdicts.ts";
import { alternativesFigure } from "../plots/alternatives_chart.ts";
import { costWaterfallFigure } from "../plots/cost_waterfall.ts";
import type { ReportExtras } from "../plots/extras.ts";
import { failuresFigure } from "../plots/failures.ts";
import type { Figure } from "../plots/figure.ts";
import { goodputVsLoadFigure, loadCurveFromGoodput } from "../plots/goodput_vs_load.ts";
import { escapeHtml, pageHtml } from "../plots/html.ts";
import { latencyCdfFigure, latencyCdfInput } from "../plots/latency_cdf.ts";
import { latencyPercentilesFigure } from "../plots/latency_percentiles.ts";
import { routeComparisonFigure } from "../plots/route_comparison.ts";
import { sloSweepFigure, sloSweepInput } from "../plots/slo_sweep.ts";
import { timelineFigure } from "../plots/timeline.ts";
import { timelineInput } from "../plots/timeline_input.ts";
import { type Caveat, reportCaveats } from "./caveats.ts";
import { latencyTableRows, TABLES_CSS, tablesHtml } from "./report_tables.ts";
import { caveatsDetailHtml, VERDICT_CSS, verdictHtml } from "./verdict_block.ts";
import { goodputHeadline, kneeHeadline, type Verdict, verdictOf } from "./first_screen.ts";
import { sig } from "../../lib/number_format.ts";
import { waitBreakdown } from "../latency/wait_breakdown.ts";
import { waitBreakdownFigure } from "../plots/wait_breakdown.ts";
import { waitHtml } from "./report_wait.ts";
import { providerQuota } from "../goodput/provider_quota.ts";
import { quotaHtml } from "./report_quota.ts";
import type { RunQuality } from "../quality/verdicts.ts";
import { QUALITY_CSS, qualitySection } from "./report_quality.ts";

/** Options of {@linkcode buildReport}. */
export interface ReportOptions {
  /**
   * Where the policy came from, printed on the first screen: for a file, its name and sha256 prefix
   * (`policySourceLabel(path)`), never a local path. @default {"(policy given in code)"}
   */
  policy_source?: string;
  /** Inputs computed elsewhere: knee marks, ledger, route comparison, outages. @default {{}} */
  extras?: ReportExtras;
  /** One-sided confidence of the latency table's supported rule (MLPerf LoadGen early stopping). @default {0.99} */
  supportConfidence?: number;
  /**
   * The run's quality table (`loadRunQuality(run)`; the report command reads it): the section "Quality by rubric".
   * Null: the run has none; absent: none supplied. Either way the absent list says so. @default {undefined}
   */
  quality?: RunQuality | null;
}

/** A figure the report could not include, and why. */
export interface AbsentFigure {
  id: string;
  title: string;
  reason: string;
}

/** The result of {@linkcode buildReport}. */
export interface Report {
  /** The run's verdicts (`runVerdicts(...).lines`), among the caveats on the first screen; empty when there are none. */
  verdicts: string[];
  /** The first screen's verdict line (`verdictOf(caveats)`). */
  verdict: Verdict;
  /** The headline in plain lines, as the cards say it: goodput, knee and limit, cost per accepted task. */
  headline: string[];
  /** Every caveat on the first screen, INVALID first (`reportCaveats`): one line each, the whole text below. */
  caveats: Caveat[];
  html: string;
  /** Every figure of the page, in page order: the figures block, then the section "Quality by rubric"'s. */
  figures: Figure[];
  absent: AbsentFigure[];
}

const esc = escapeHtml;

/**
 * Builds the report of a run under an SLO policy. The first screen states
 * the verdict: the headline (accepted goodput, acceptance, the knee and the
 * limit at the chosen headroom from `extras.knee`), what was measured under
 * which rules (denominator, window, the SLO file by name) and every caveat
 * (`reportCaveats`: an incomplete run, nothing accepted, a client-limited
 * run or stage, missing shards, a sweep cut short, a log lacking fields,
 * unsupported percentiles, load warnings). Figures follow: goodput vs
 * offered load (knee and limits marked when `extras.knee` gives them), the
 * run timeline (outages shaded from `extras.outages`), failures by class
 * and by stage, p99 e2e per class per stage, where the wait went (each
 * task's e2e split into page, network, queue, retrieval, model, tools,
 * render and the rest: `waitBreakdown`), e2e and TTFT CDFs against the
 * SLO, the e2e SLO sweep, the alternatives chart, and, when supplied, the
 * cost waterfall (`extras.ledger`) and the route comparison
 * (`extras.routes`). With `quality`, the section "Quality by rubric" (`qualitySection`: the raters' agreement, the
 * disagreement record, each judge's confusion matrix against the people, acceptance by quality source per class).
 * Then the tables (the wait breakdown's among them, and the provider's quota per stage beside
 * the goodput: `providerQuota`) and
 * each absent figure or mark with its reason.
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
  const rv = runVerdicts(run, window, { overall: g.overall, policy });
  const wait = waitBreakdown(run, policy);
  const absent: AbsentFigure[] = [];

  const curve = loadCurveFromGoodput(g, m.stages);
  if (extras.knee) Object.assign(curve, extras.knee);
  if (!extras.knee || extras.knee.knee_rps === null) {
    absent.push({
      id: "goodput-vs-load:knee",
      title: "knee and limit marks on goodput vs offered load",
      reason: extras.knee?.knee_note ??
        (extras.knee
          ? "the knee analysis supplied found no knee"
          : 'no knee: the run has fewer than two load levels, or none was supplied (runReportExtras, or "knee" ' +
            "in the extras file)"),
    });
  }
  const P = 0.99;
  const figures: Figure[] = [
    goodputVsLoadFigure(curve),
    timelineFigure(timelineInput(run, policy, { outages: extras.outages ?? [] })),
    failuresFigure(g, { by: "class" }),
    failuresFigure(g, { by: "stage" }),
    latencyPercentilesFigure(latency, {
      metric: "e2e_ms",
      p: P,
      stages: stageOrder,
      window: `${window.stages.join("+")} (${window.measurement_seconds} s)`,
      run_id: m.run_id,
    }),
    waitBreakdownFigure(wait),
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
      reason: 'no price sheet given (npx deno task report RUN --prices FILE, or "ledger" in the extras file)',
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

  const quality = options.quality ? qualitySection(run, policy, options.quality) : null;
  if (!quality) {
    absent.push({
      id: "quality",
      title: 'section "Quality by rubric" (agreement, disagreements, judge vs people, acceptance by quality source)',
      reason: options.quality === null
        ? "the run has no quality table (RUN/quality/: npx deno task judge, npx deno task review import)"
        : "no quality table supplied (buildReport's quality option: loadRunQuality(run); the report command reads it)",
    });
  }

  const caveats = reportCaveats({
    run,
    verdicts: rv,
    disclosure: g.disclosure,
    tableRows: latencyTableRows(latency),
    figureRows: latency.filter((r) => r.metric === "e2e_ms" && r.p === P && r.class !== null && r.stage !== null),
    supportConfidence: support,
  });
  const before = [
    verdictHtml({
      goodput: g,
      policy_source: options.policy_source ?? "(policy given in code)",
      knee: extras.knee,
      ledger: extras.ledger,
      routes: extras.routes,
      caveats,
      manifest: m,
      format: run.format,
    }),
    '<h2 id="figures">Figures</h2>',
  ].join("\n");
  const after = [
    quality?.html ?? "",
    caveatsDetailHtml(caveats),
    tablesHtml(g, latency, support),
    quotaHtml(providerQuota(run, g)),
    waitHtml(wait),
    '<h2 id="absent">Absent figures and marks</h2>',
    absent.length
      ? `<ul>${absent.map((a) => `<li><b>${esc(a.title)}</b>: ${esc(a.reason)}</li>`).join("")}</ul>`
      : "<p>none</p>",
  ].join("\n");
  const html = pageHtml(figures, {
    title: `Accepted goodput report: ${m.run_id}`,
    before,
    after,
    css: VERDICT_CSS + TABLES_CSS + QUALITY_CSS,
  });
  return {
    verdicts: rv.lines,
    verdict: verdictOf(caveats),
    headline: headlineLines(g, extras),
    caveats,
    html,
    figures: [...figures, ...quality?.figures ?? []],
    absent,
  };
}

/** The headline cards as plain lines (the report CLI's and the demo's first screen). */
function headlineLines(g: ReturnType<typeof goodput>, extras: ReportExtras): string[] {
  const k = extras.knee;
  const chosen = k?.headroom ?? null;
  const at = chosen === null ? undefined : k?.limits.find((l) => l.headroom === chosen);
  const knee = k
    ? kneeHeadline(
      k.knee_rps === null ? null : { offered_rps: k.knee_rps, signal: k.knee_signal ?? null },
      { headroom: chosen, limit_rps: at?.rps ?? null },
      k.knee_note ?? "none found",
    )
    : "knee: not computed";
  const l = extras.ledger;
  const total = l ? l.components.reduce((s, c) => s + c.amount, 0) : 0;
  const cost = !l
    ? "cost per accepted task: not priced (--prices FILE)"
    : l.accepted_tasks === 0
    ? "cost per accepted task: none (nothing accepted)"
    : `cost per accepted task ${sig(total / l.accepted_tasks)} ${l.currency} = ${sig(total)} ${l.currency} / ` +
      `${l.accepted_tasks} accepted`;
  return [goodputHeadline(g), knee, cost];
}
