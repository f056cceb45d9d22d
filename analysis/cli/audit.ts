import { audit, type AuditResult, type RuleChoice } from "../audit/audit.ts";
import { loadClaim } from "../audit/claim.ts";
import { percentLabel, percentText } from "../latency/_percentile_checks.ts";
import { supportRuleText } from "../latency/early_stopping.ts";
import { roundUp } from "../latency/round_display.ts";
import {
  confidenceOption,
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
  "usage: deno task audit RUN --claim FILE [--slo FILE] [--confidence C] [--json] [--verify warn] [--partial-shards]";

const fmt = (v: number | null | undefined): string => (v === null || v === undefined ? "-" : String(+v.toPrecision(6)));

function choice(c: RuleChoice): string {
  if (c.slo === null) {
    const at = c.support_confidence === undefined ? "" : ` at ${percentText(c.support_confidence)}`;
    return `window ${c.window} -> ${fmt(c.value)} (n = ${c.n}${c.supported ? "" : `, NOT supported${at}`})`;
  }
  const den = c.denominator === null ? "" : `denominator ${c.denominator}, `;
  return `${den}window ${c.window}, SLO ${c.slo}, gates ${c.gates} -> ${fmt(c.value)}`;
}

/** The audit in plain text: the claim, the recomputation with its disclosure, the verdict, the reproducing choices. */
function formatAudit(r: AuditResult): string {
  const c = r.claim;
  const what = c.metric === "latency_percentile" ? `p${+(c.p! * 100).toPrecision(6)} ${c.latency_metric}` : c.metric;
  const d = r.stated.disclosure;
  const lat = r.stated.latency;
  const out = [
    `claim: ${what} = ${c.value} (class ${c.class ?? "all"}, stage ${c.stage ?? "all"}; source: ${c.source})`,
    `run ${d.run_id} (${d.files.dir}; ${d.files.format})`,
    "recomputed under the stated rules:",
    `  ${choice(r.stated.rules)}`,
    `  window: ${d.window.description}; measurement_seconds = ${d.window.measurement_seconds}`,
    ...(lat
      ? [
        `  n = ${lat.n}, ${lat.confidence * 100} % CI [${fmt(lat.lower)}, ${
          fmt(lat.upper)
        }], supported: ${lat.supported} (${supportRuleText([lat.p], { confidence: lat.support_confidence })}${
          lat.bound === null ? "" : `; the run supports ${percentLabel(lat.p)} ≤ ${roundUp(lat.bound)} (rounded up)`
        })`,
        `  inclusion: ${lat.inclusion}`,
      ]
      : [
        "  SLO per class (as applied in the window):",
        ...Object.values(d.slo_rules).map((rule) => `    ${rule}`),
        `  TTFT: ${d.ttft_definition}`,
        `  TPOT: ${d.tpot_definition}`,
        `  gates: ${d.gate_rule}`,
      ]),
    "assumed (not stated by the claim):",
    ...(r.assumed.length ? r.assumed.map((a) => `  - ${a}`) : ["  (nothing)"]),
    ...r.notes.map((n) => `NOTE: ${n}`),
    `${r.stated.match ? "MATCH" : "MISMATCH"}: recomputed ${fmt(r.stated.value)} vs claimed ${c.value} (difference ${
      fmt(r.stated.difference)
    }; tolerance ±${
      fmt(r.tolerance.allowed)
    } = max(absolute ${r.tolerance.absolute}, relative ${r.tolerance.relative} × |claim|)${
      r.tolerance.stated ? "" : ", default"
    })`,
    `combinations that reproduce the claim (${r.reproducing.length} of ${r.searched} searched):`,
    ...(r.reproducing.length ? r.reproducing.map((x) => `  ${choice(x)}`) : ["  none"]),
  ];
  return out.join("\n");
}

async function main(args: string[]): Promise<void> {
  const parsed = parseFlags(
    args,
    {
      claim: { type: "string" },
      slo: { type: "string" },
      json: { type: "boolean", default: false },
      verify: { type: "string" },
      ...PARTIAL_SHARDS_FLAG,
      confidence: { type: "string" },
    },
    USAGE,
    { positionals: true },
  );
  const { values: v, positionals } = parsed;
  // Every flag, then every file: all problems named at once before the audit starts.
  const check = new InputCheck();
  const dirs = runFolders(check, positionals, 1, 1);
  check.require(v.claim === undefined, "--claim FILE is required");
  const open = openOptions(check, v);
  const supportConfidence = confidenceOption(check, v.confidence);
  const claim = v.claim === undefined ? undefined : await check.load(() => loadClaim(v.claim!));
  const runs = await loadRuns(check, dirs, open);
  // --slo, else the workload's default in data/slo/, else the policy the claim states.
  const slo = await sloPolicyFor(check, runs, v.slo, "the claim's policy");
  const run = runs?.[0];
  check.require(
    run !== undefined && claim !== undefined && slo === undefined && v.slo === undefined && !claim.slo,
    `an SLO policy is required: the claim states none and workload "${run?.manifest.workload.name}" has no default policy in data/slo/; pass --slo FILE`,
  );
  check.throwIfAny(USAGE);
  const sloFile = slo?.file;
  const policy = slo?.policy ?? claim!.slo!;
  const result = audit(run!, claim!, {
    policy,
    policy_source: sloFile ?? claim!.slo_source ?? "the claim's",
    ...(supportConfidence === undefined ? {} : { supportConfidence }),
  });
  if (v.json) console.log(JSON.stringify(result, null, 2));
  else console.log(formatAudit(result));
}

if (import.meta.main) await runMain(() => main(Deno.args));
