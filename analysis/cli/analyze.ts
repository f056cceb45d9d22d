import type { SloPolicy } from "../../schema/slo.ts";
import { percentLabel } from "../latency/_percentile_checks.ts";
import { sig } from "../../lib/number_format.ts";
import { textTable } from "../../lib/text_table.ts";
import { alternatives, formatAlternatives } from "../audit/alternatives.ts";
import { latencyInWindow } from "../latency/latency.ts";
import { formatGoodput } from "../goodput/format_goodput.ts";
import { goodput } from "../goodput/goodput.ts";
import { formatIntakeDrills } from "../recovery/format_intake_drill.ts";
import { intakeDrills } from "../recovery/intake_drill.ts";
import type { LatencyRow } from "../latency/latency.ts";
import { runWindow } from "../goodput/policy.ts";
import { DEFAULT_SUPPORT_CONFIDENCE, supportRuleText } from "../latency/early_stopping.ts";
import { runVerdicts } from "../knee/verdicts.ts";
import {
  confidenceOption,
  denominatorOption,
  InputCheck,
  loadRuns,
  openOptions,
  parseFlags,
  PARTIAL_SHARDS_FLAG,
  runFolders,
  runMain,
  sloPolicyFor,
} from "./_args.ts";

const USAGE =
  "usage: deno task analyze RUN [--slo FILE] [--denominator offered|sent|completed] [--alternatives] [--confidence C] [--json] [--verify warn] [--partial-shards]";

async function main(args: string[]): Promise<void> {
  const parsed = parseFlags(
    args,
    {
      slo: { type: "string" },
      denominator: { type: "string" },
      json: { type: "boolean", default: false },
      alternatives: { type: "boolean", default: false },
      verify: { type: "string" },
      ...PARTIAL_SHARDS_FLAG,
      confidence: { type: "string" },
    },
    USAGE,
    { positionals: true },
  );
  const { values: v, positionals } = parsed;
  // Every flag, then every file: all problems named at once before the analysis starts.
  const check = new InputCheck();
  const dirs = runFolders(check, positionals, 1, 1);
  const open = openOptions(check, v);
  const den = denominatorOption(check, v.denominator);
  const supportConfidence = confidenceOption(check, v.confidence);
  const runs = await loadRuns(check, dirs, open);
  const slo = await sloPolicyFor(check, runs, v.slo);
  check.throwIfAny(USAGE);
  const run = runs![0]!;
  const { file: sloFile, policy } = slo!;
  const effective: SloPolicy = den ? { ...policy, denominator: den } : policy;
  const result = goodput(run, effective);
  const window = runWindow(run, effective.window);
  const latency = latencyInWindow(run, window, supportConfidence === undefined ? {} : { supportConfidence });
  const alt = v.alternatives ? alternatives(run, effective) : null;
  const verdicts = runVerdicts(run, window, result);
  const drills = intakeDrills(run);
  const hasDrills = drills.drills.length > 0 || drills.not_measured.length > 0;
  if (v.json) {
    const { disclosure, overall, by_class, by_stage, by_mode } = result;
    // Each alternative row's full disclosure would repeat the policy 36 times: its rules are in the row.
    const altRows = alt?.rows.map(({ disclosure: _d, ...r }) => r);
    console.log(
      JSON.stringify(
        {
          verdicts,
          disclosure: { ...disclosure, slo_file: sloFile },
          overall,
          by_class,
          by_stage,
          by_mode,
          latency: { window: window.description, rows: latency },
          ...(alt ? { alternatives: { class: alt.class, lenient_factor: alt.lenient_factor, rows: altRows } } : {}),
          ...(hasDrills ? { intake_drills: drills } : {}),
        },
        null,
        2,
      ),
    );
  } else {
    const policyLine = `SLO policy: ${sloFile}${den ? ` (denominator overridden by --denominator ${den})` : ""}`;
    console.log(formatGoodput(result, { verdicts: verdicts.lines, header: [policyLine] }));
    console.log(`\n${formatLatency(latency, window.description)}`);
    if (alt) console.log(`\n${formatAlternatives(alt)}`);
    const drillText = formatIntakeDrills(drills);
    if (drillText) console.log(`\n${drillText}`);
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

if (import.meta.main) await runMain(() => main(Deno.args));
