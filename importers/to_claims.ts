/**
 * A summary-only source (a tool's aggregate file: no per-request records) becomes claims, not a run: every headline
 * kept under the tool's own key, value, unit and definition, and each one that is a percentile of TTFT, TPOT or e2e
 * latency also as an audit claim (schema/claim.ts) — what the tool published, for `npx deno task audit` to recompute on
 * a run (an import of the same benchmark's per-request file, or a rerun).
 *
 * A headline maps onto a claim only when its key names a latency percentile in a form this table knows
 * ({@linkcode LATENCY_KEYS}); the value is converted to ms. TPOT maps only where the tool's TPOT excludes the first
 * token as ours does (vLLM); GuideLLM's, AIPerf's and LLMPerf's per-token numbers include it or are per chunk, and
 * stay headlines. Rates, throughputs and means have no audit metric: they stay headlines with the reason.
 *
 * @module
 */
import type { Claim } from "../schema/claim.ts";
import type { ClaimedHeadline, ImportedClaims } from "../schema/imported_claims.ts";
import { SCHEMA_MINOR, SCHEMA_VERSION } from "../schema/version.ts";
import type { SourceHeadline, SourceRun, SourceTool } from "./source.ts";

type LatencyMetric = NonNullable<Claim["latency_metric"]>;

/** A key form that names a latency percentile: the regular expression, and how to read its groups. */
interface LatencyKey {
  tools: SourceTool[];
  re: RegExp;
  /** metric and percentile (0–100) from the match. */
  read: (m: RegExpExecArray) => { metric: LatencyMetric; percent: number } | null;
}

const named = (s: string): LatencyMetric | null =>
  /ttft|first.token/i.test(s) ? "ttft_ms" : /tpot/i.test(s) ? "tpot_ms" : /e2el|latency/i.test(s) ? "e2e_ms" : null;

/** GuideLLM's percentile names: p001 = 0.1th, p01 = 1st, p05 = 5th, p999 = 99.9th, else the number. */
const guidellmPercent = (s: string) =>
  ({ "001": 0.1, "01": 1, "05": 5, "999": 99.9 } as Record<string, number>)[s] ?? Number(s);

/** The key forms of latency percentiles, per tool (the keys as the readers in importers/sources/ name them). */
export const LATENCY_KEYS: readonly LatencyKey[] = [
  {
    // vllm/benchmarks/serve.py: p{p}_{ttft,tpot,e2el}_ms and median_*_ms; TPOT excludes the first token, as ours.
    tools: ["vllm-bench-serve"],
    re: /^(?:p([\d.]+)|median)_(ttft|tpot|e2el)_ms$/,
    read: (m) => ({ metric: named(m[2]!)!, percent: m[1] === undefined ? 50 : Number(m[1]) }),
  },
  {
    // AIPerf profile_export_aiperf.json: records.<tag>.pNN (early) or <tag>.pNN (0.8 flat).
    tools: ["aiperf"],
    re: /(?:^|\.)(ttft|time_to_first_token|request_latency)\.p([\d.]+)$/,
    read: (m) => ({ metric: named(m[1]!)!, percent: Number(m[2]) }),
  },
  {
    // AIPerf profile_export_aiperf.csv: "Time to First Token (ms)/p99", "Request Latency (ms)/p50".
    tools: ["aiperf"],
    re: /^(Time to First Token|Request Latency) \((?:ms|s|ns)\)\/p([\d.]+)$/,
    read: (m) => ({ metric: named(m[1]!)!, percent: Number(m[2]) }),
  },
  {
    // GenAI-Perf profile_export_genai_perf.json: <metric>.pNN; .csv: "Time To First Token (ms)/p99".
    tools: ["genai-perf"],
    re: /^(?:(time_to_first_token|request_latency)\.p|(Time To First Token|Request Latency) \(ms\)\/p)(\d+)$/,
    read: (m) => ({ metric: named(m[1] ?? m[2]!)!, percent: Number(m[3]) }),
  },
  {
    // GuideLLM reports: metrics.<name>.successful.percentiles.pNN / .median (successful requests only).
    tools: ["guidellm"],
    re: /metrics\.(time_to_first_token_ms|request_latency)\.successful\.(?:percentiles\.p(\d+)|median)$/,
    read: (m) => ({ metric: named(m[1]!)!, percent: m[2] === undefined ? 50 : guidellmPercent(m[2]) }),
  },
  {
    // LLMPerf token_benchmark_ray.py: results_<metric>_quantiles_pNN.
    tools: ["llmperf"],
    re: /^results_(ttft_s|end_to_end_latency_s)_quantiles_p([\d.]+)$/,
    read: (m) => ({ metric: named(m[1]!)!, percent: Number(m[2]) }),
  },
  {
    // inference-perf lifecycle metrics: successes.latency.<metric>.pNN / .median.
    tools: ["inference-perf"],
    re: /successes\.latency\.(request_latency|time_to_first_token)\.(?:p([\d.]+)|median)$/,
    read: (m) => ({ metric: named(m[1]!)!, percent: m[2] === undefined ? 50 : Number(m[2]) }),
  },
  {
    // MLPerf LoadGen summary: "99.00 percentile latency (ns)", "90.00 percentile first token latency (ns)".
    tools: ["mlperf-loadgen"],
    re: /^([\d.]+) percentile (first token )?latency \(ns\)$/,
    read: (m) => ({ metric: m[2] ? "ttft_ms" : "e2e_ms", percent: Number(m[1]) }),
  },
  {
    // MLPerf LoadGen detail log: result_99.00_percentile_latency_ns, result_first_token_99.00_percentile_latency_ns.
    tools: ["mlperf-loadgen"],
    re: /^result_(first_token_)?([\d.]+)_percentile_latency_ns$/,
    read: (m) => ({ metric: m[1] ? "ttft_ms" : "e2e_ms", percent: Number(m[2]) }),
  },
];

const MS_PER: Record<string, number> = { ms: 1, s: 1000, ns: 1e-6, us: 1e-3 };

/** How a headline becomes a claim, stated in claims.json `mapping` and docs/importing.md. */
export const CLAIM_RULES: readonly string[] = [
  "a headline becomes an audit claim only when its key names a percentile of TTFT, TPOT or e2e latency in a form " +
  "known per tool (importers/to_claims.ts LATENCY_KEYS): metric latency_percentile, p = the percentile / 100, the " +
  "value converted to ms, class null (all), stage the tool's stage label (null for the whole run), no tolerance " +
  "(the audit's default: 1 % of the value), and the tool's key, unit and definition in `source`",
  "TPOT maps only for vLLM (its TPOT excludes the first token, as ours); every other tool's per-token number " +
  "includes the first token or is per chunk, and stays a headline",
  "rates, throughputs, counts, means and validity flags have no audit metric: they stay headlines, with why_not",
];

/** The claim of a headline, or why it has none. */
export function headlineClaim(
  source: Pick<SourceRun, "tool" | "tool_version" | "files">,
  h: SourceHeadline,
): { claim: Claim; why_not: null } | { claim: null; why_not: string } {
  if (h.value === null) return { claim: null, why_not: "the tool gives no number for it" };
  for (const k of LATENCY_KEYS) {
    if (!k.tools.includes(source.tool)) continue;
    const m = k.re.exec(h.key);
    const read = m ? k.read(m) : null;
    if (!read) continue;
    const per = MS_PER[h.unit];
    if (per === undefined) return { claim: null, why_not: `a latency percentile in "${h.unit}", a unit not converted` };
    if (!(read.percent > 0 && read.percent <= 100)) {
      return { claim: null, why_not: `percentile ${read.percent} is not in (0, 100]` };
    }
    const version = source.tool_version ?? "version not stated";
    const files = source.files.map((f) => f.path).join(", ");
    return {
      claim: {
        metric: "latency_percentile",
        latency_metric: read.metric,
        p: read.percent / 100,
        class: null,
        stage: h.stage,
        value: h.value * per,
        source: `${source.tool} (${version}), ${files}: ${h.key} = ${h.value} ${h.unit}${
          h.stage === null ? "" : ` (stage ${h.stage})`
        }; the tool's definition: ${h.definition}`,
      },
      why_not: null,
    };
  }
  return {
    claim: null,
    why_not: "not a TTFT, TPOT or e2e percentile in a form the importer maps: no audit metric of ours has the " +
      "tool's definition (the audit recomputes accepted_goodput, acceptance_rate, slo_miss_rate and latency " +
      "percentiles)",
  };
}

/** A claim file name for headline `i`: its position and its key made safe for a file name. */
function claimFile(i: number, key: string): string {
  const slug = key.replace(/[^A-Za-z0-9.]+/g, "_").replace(/^_+|_+$/g, "").slice(0, 80) || "headline";
  return `claims/${String(i).padStart(3, "0")}-${slug}.json`;
}

/** claims.json of a summary-only source, without `importer` (the writer adds it). */
export function toClaims(source: SourceRun): Omit<ImportedClaims, "importer"> {
  const headlines: ClaimedHeadline[] = source.headlines.map((h, i) => {
    const got = headlineClaim(source, h);
    return {
      key: h.key,
      stage: h.stage,
      value: h.value,
      ...(h.text === undefined ? {} : { text: h.text }),
      unit: h.unit,
      definition: h.definition,
      claim: got.claim === null ? null : { file: claimFile(i, h.key), claim: got.claim },
      why_not: got.why_not,
    };
  });
  return {
    schema_version: SCHEMA_VERSION,
    schema_minor: SCHEMA_MINOR,
    kind: "imported-claims",
    source: {
      tool: source.tool,
      tool_version: source.tool_version,
      files: source.files.map((f) => ({ path: f.path, sha256: f.sha256, format: f.format })),
      model: source.model,
      notes: source.notes,
    },
    stages: source.stages.map((s) => ({
      name: s.name,
      rate_rps: s.rate_rps,
      concurrency: s.concurrency,
      duration_s: s.duration_s,
      totals: s.totals,
    })),
    lacks: source.lacks,
    mapping: [...CLAIM_RULES],
    headlines,
  };
}
