import type { SloPolicy } from "../../schema/slo.ts";
import { percentLabel } from "../latency/_percentile_checks.ts";
import { sig } from "../../lib/number_format.ts";
import { textTable } from "../../lib/text_table.ts";
import { alternatives } from "../audit/alternatives.ts";
import { formatAlternatives } from "../audit/format_alternatives.ts";
import { latencyInWindow } from "../latency/latency.ts";
import { waitBreakdown } from "../latency/wait_breakdown.ts";
import { formatWaitBreakdown } from "../latency/format_wait_breakdown.ts";
import { formatGoodput } from "../goodput/format_goodput.ts";
import { inlineQualityPolicy, qualitySettings } from "../goodput/quality_source.ts";
import { acceptanceBySource, formatAcceptanceBySource } from "../quality/acceptance_by_source.ts";
import { qualityLines } from "../quality/quality_disclosure.ts";
import { qualityGoodput } from "../quality/quality_goodput.ts";
import { loadRunQuality } from "../quality/verdicts.ts";
import { qualityCaveats } from "../report/quality_caveats.ts";
import { providerQuota } from "../goodput/provider_quota.ts";
import { formatProviderQuota } from "../goodput/format_provider_quota.ts";
import { formatIntakeDrills } from "../recovery/format_intake_drill.ts";
import { intakeDrills } from "../recovery/intake_drill.ts";
import type { LatencyRow } from "../latency/latency.ts";
import { runWindow } from "../goodput/policy.ts";
import { DEFAULT_SUPPORT_CONFIDENCE, supportRuleText } from "../latency/early_stopping.ts";
import { runVerdicts } from "../knee/verdicts.ts";
import { reportCaveats } from "../report/caveats.ts";
import { caveatDetailText, firstScreenText, goodputHeadline, verdictOf } from "../report/first_screen.ts";
import { type CommandSpec, type ParsedCommand, runCommand } from "../../lib/command.ts";
import {
  CONFIDENCE_FLAG,
  DENOMINATOR_FLAG,
  JSON_FLAG,
  loadRuns,
  OPEN_FLAGS,
  openOptions,
  runArgument,
  SLO_FLAG,
  sloPolicyFor,
  underPolicy,
} from "./_args.ts";

/** `npx deno task analyze`: its flags, arguments and help (lib/command.ts). */
export const ANALYZE_COMMAND = {
  name: "analyze",
  invocation: "npx deno task analyze",
  summary: "goodput of one run with its disclosure, its latency percentiles with n and confidence intervals, and " +
    "where the wait went",
  details: [
    "Accepted goodput, acceptance and SLO miss rates overall and by class, stage and service mode, under an SLO " +
    "policy, with every rule that counted them (docs/analysis.md).",
    "The provider's quota per stage beside the goodput (the least remaining share of the stated rate limits, the " +
    "implied quota rate, 429 refusals) and which bound first, the quota or the service's capacity; the tiers " +
    "served, when recorded (docs/analysis.md#the-providers-quota).",
    "Where the wait went, for every run: each completed task's e2e wait split into page, network, queue, retrieval, " +
    "model, tools, render and the rest, per class (docs/production_analysis.md); a run without phases (a runner's " +
    "or an imported run) shows network, queue and render as n/a.",
    "Quality from the source the policy names per class (`quality_source`: inline, judge, human, calibrated-judge), " +
    "read from the run's quality table (RUN/quality/); an estimate carries its interval, and the table \"acceptance " +
    'by quality source" shows each open-ended class with every source the table holds (docs/quality_goodput.md).',
  ],
  positionals: [runArgument(1, 1)],
  flags: {
    ...SLO_FLAG,
    ...DENOMINATOR_FLAG,
    alternatives: {
      type: "boolean",
      description: "add the table of the same goodput under other rules (denominators, windows, SLO limits, gates, " +
        "and the quality sources of the run's quality table)",
    },
    ...CONFIDENCE_FLAG,
    ...JSON_FLAG,
    ...OPEN_FLAGS,
  },
  examples: [
    "npx deno task analyze data/runs/explore",
    "npx deno task analyze data/runs/explore --denominator completed --alternatives",
    "npx deno task analyze data/runs/explore --json",
  ],
} as const satisfies CommandSpec;

async function main({ values: v, positionals, check }: ParsedCommand<typeof ANALYZE_COMMAND>): Promise<void> {
  // Every flag, then every file: all problems named at once before the analysis starts.
  const den = v.denominator;
  const supportConfidence = v.confidence;
  const read = await loadRuns(check, positionals, openOptions(v));
  const slo = await sloPolicyFor(check, read, v.slo);
  const runs = await underPolicy(read, slo);
  check.throwIfAny();
  const run = runs![0]!;
  // The run's quality verdicts (RUN/quality/), checked; null when it has none. A bad table: exit 2.
  const quality = (await check.load(() => loadRunQuality(run))) ?? null;
  check.throwIfAny();
  const { file: sloFile, policy } = slo!;
  const effective: SloPolicy = den ? { ...policy, denominator: den } : policy;
  // Goodput with each class's quality from the source the policy names (inline unless it says otherwise).
  const result = qualityGoodput(run, effective, quality);
  // The other tables read quality inline: latency, wait and quota do not depend on it (docs/quality_goodput.md).
  const inline = inlineQualityPolicy(effective);
  const window = runWindow(run, effective.window);
  const latency = latencyInWindow(run, window, { supportConfidence });
  const alt = v.alternatives ? alternatives(run, effective, { quality }) : null;
  const bySource = quality ? acceptanceBySource(run, effective, quality) : [];
  const verdicts = runVerdicts(run, window, { overall: result.overall, policy: inline });
  // The first screen: the verdict, the headline, one line per caveat (the latency table marks its own UNSUPPORTED).
  const rank = { INVALID: 0, WARNING: 1, NOTE: 2 } as const;
  const caveats = [
    ...reportCaveats({ run, verdicts, disclosure: result.disclosure, supportConfidence }),
    ...qualityCaveats(result.quality),
  ].map((c, i) => ({ c, i })).sort((a, b) => rank[a.c.level] - rank[b.c.level] || a.i - b.i).map((x) => x.c);
  const wait = waitBreakdown(run, inline);
  const quota = providerQuota(run, result);
  const drills = intakeDrills(run);
  const hasDrills = drills.drills.length > 0 || drills.not_measured.length > 0;
  if (v.json) {
    const { disclosure, overall, by_class, by_stage, by_mode } = result;
    // Each alternative row's full disclosure would repeat the policy 36 times: its rules are in the row.
    const altRows = alt?.rows.map(({ disclosure: _d, ...r }) => r);
    console.log(
      JSON.stringify(
        {
          verdict: verdictOf(caveats),
          caveats,
          verdicts,
          disclosure: { ...disclosure, slo_file: sloFile },
          overall,
          by_class,
          by_stage,
          by_mode,
          ...(quality || result.quality.classes.length
            ? { quality: result.quality, acceptance_by_quality_source: bySource }
            : {}),
          provider_quota: quota,
          latency: { window: window.description, rows: latency },
          wait_breakdown: { disclosure: wait.disclosure, rows: wait.rows },
          ...(alt
            ? {
              alternatives: {
                class: alt.class,
                lenient_factor: alt.lenient_factor,
                rows: altRows,
                refused: alt.refused,
              },
            }
            : {}),
          ...(hasDrills ? { intake_drills: drills } : {}),
        },
        null,
        2,
      ),
    );
  } else {
    const policyLine = `SLO policy: ${sloFile}${den ? ` (denominator overridden by --denominator ${den})` : ""}`;
    console.log(firstScreenText(caveats, [goodputHeadline(result)]).join("\n"));
    console.log(`\n${formatGoodput(result, { verdicts: [], header: [policyLine] })}`);
    const qualityText = qualityLines(result.quality);
    if (qualityText.length) console.log(`\n${qualityText.join("\n")}`);
    if (bySource.length) console.log(`\n${formatAcceptanceBySource(bySource, qualitySettings(effective).level)}`);
    console.log(`\n${formatProviderQuota(quota)}`);
    console.log(`\n${formatLatency(latency, window.description)}`);
    console.log(`\n${formatWaitBreakdown(wait)}`);
    if (alt) console.log(`\n${formatAlternatives(alt)}`);
    const drillText = formatIntakeDrills(drills);
    if (drillText) console.log(`\n${drillText}`);
    for (const line of caveatDetailText(caveats)) console.log(line);
  }
}

const SLO_METRICS = new Set(["ttft_ms", "tpot_ms", "e2e_ms"]);

/** Completed requests left out of a row's n, with how many were not streamed. */
function excludedText(r: LatencyRow): string {
  if (r.excluded === null) return "-";
  return r.excluded_not_streamed ? `${r.excluded} (${r.excluded_not_streamed} not streamed)` : String(r.excluded);
}
/** Latency values and bounds: 5 significant digits. */
const DIGITS = 5;

/** Overall and per-class percentiles (every metric overall, the SLO metrics per class), each with n and its CI. */
function formatLatency(rows: LatencyRow[], window: string): string {
  const lines = new Map<string, { label: string; metric: string; n: number; excluded: string; cells: string[] }>();
  for (const r of rows) {
    if (r.stage !== null || (r.class !== null && !SLO_METRICS.has(r.metric))) continue;
    const key = `${r.class}/${r.metric}`;
    const line = lines.get(key) ??
      { label: r.class ?? "all", metric: r.metric, n: r.n, excluded: excludedText(r), cells: [] };
    const ci = `[${sig(r.lower, DIGITS)}, ${sig(r.upper, DIGITS, "∞")}]`;
    line.cells.push(
      r.value === null ? "-" : `${sig(r.value, DIGITS)} ${ci}${r.supported ? "" : " UNSUPPORTED"}`,
    );
    lines.set(key, line);
  }
  const ps = [...new Set(rows.map((r) => r.p))];
  const conf = rows[0]?.confidence ?? 0.95;
  const support = rows[0]?.support_confidence ?? DEFAULT_SUPPORT_CONFIDENCE;
  const head = [
    "class",
    "metric",
    "n",
    "excluded",
    ...ps.map((p) => `${percentLabel(p)} [${conf * 100} % CI]`),
  ];
  const body = [...lines.values()].map((l) => [l.label, l.metric, String(l.n), l.excluded, ...l.cells]);
  return [
    `latency (window: ${window}; nearest-rank percentiles, distribution-free CI; ` +
    `${supportRuleText(ps, { confidence: support })}, else UNSUPPORTED; TTFT/e2e from scheduled_ms; excluded = ` +
    "completed requests without the metric, not in n: a request that was not streamed has no TTFT or TPOT; " +
    "per-metric inclusion rules and each percentile's early-stopping bound in --json)",
    ...textTable(head, body),
  ].join("\n");
}

if (import.meta.main) await runCommand(ANALYZE_COMMAND, main);
