import { audit, type AuditResult, type RuleChoice } from "../audit/audit.ts";
import { loadAnyClaim, type ResolvedClaim, type ResolvedHeadlineClaim } from "../audit/claim.ts";
import { auditHeadline } from "../audit/headline_audit.ts";
import { claimsSource, isClaimsFolder, runSource } from "../audit/headline_source.ts";
import { pickRow } from "../audit/alternatives.ts";
import { importCaveats, isImported, runKind } from "../run/imported_run.ts";
import { goodput } from "../goodput/goodput.ts";
import { loadRunQuality } from "../quality/verdicts.ts";
import { policyForRun } from "../goodput/policy.ts";
import { formatHeadlineAudit } from "./_headline_text.ts";
import type { InputCheck } from "../../lib/cli.ts";
import { percent, sig } from "../../lib/number_format.ts";
import { percentLabel } from "../latency/_percentile_checks.ts";
import { supportRuleText } from "../latency/early_stopping.ts";
import { roundUp } from "../latency/round_display.ts";
import { type CommandSpec, type ParsedCommand, runCommand } from "../../lib/command.ts";
import {
  CONFIDENCE_FLAG,
  JSON_FLAG,
  loadRuns,
  OPEN_FLAGS,
  openOptions,
  runArgument,
  SLO_DEFAULT_TEXT,
  SLO_FLAG,
  sloPolicyFor,
} from "./_args.ts";

/** `npx deno task audit`: its flags, arguments and help (lib/command.ts). */
export const AUDIT_COMMAND = {
  name: "audit",
  invocation: "npx deno task audit",
  summary: "recomputes a published number from a run's raw log and lists every rule choice that reproduces it",
  details: [
    "The claim (JSON, `Claim` in analysis/audit/claim.ts) states the metric, its value and whatever rules its source " +
    "gave; what it leaves out is assumed and listed (docs/analysis.md#audit).",
    "A headline claim (`HeadlineClaim`: a `headline` key) audits a peer tool's own number in a folder written by " +
    "`npx deno task import` (RUN, or the claim's `run`): recomputed under the tool's rules, then ours, and the rule " +
    "choices that reproduce it (docs/importing.md#auditing-a-published-headline).",
  ],
  positionals: [{
    ...runArgument(0, 1),
    description: "a run folder; for a headline claim, the import folder (a run of kind imported, or claims.json of " +
      "a summary), else the claim's `run`",
  }],
  flags: {
    claim: {
      type: "string",
      arg: "FILE",
      required: true,
      description: "the claim to audit (e.g. `data/claims/explore-vendor-success-rate.json`)",
    },
    slo: {
      ...SLO_FLAG.slo,
      defaultText: `${SLO_DEFAULT_TEXT}, else the policy the claim states; one of them is required`,
    },
    ...CONFIDENCE_FLAG,
    ...JSON_FLAG,
    ...OPEN_FLAGS,
  },
  examples: [
    "npx deno task audit data/runs/explore --claim data/claims/explore-vendor-success-rate.json",
    "npx deno task audit /tmp/aiperf-run1 --claim data/claims/aiperf-run1-request-throughput.json",
  ],
} as const satisfies CommandSpec;

/** Values in the audit text: 6 significant digits. */
const DIGITS = 6;

function choice(c: RuleChoice): string {
  if (c.slo === null) {
    const at = c.support_confidence === undefined ? "" : ` at ${percent(c.support_confidence)}`;
    return `window ${c.window} -> ${sig(c.value, DIGITS)} (n = ${c.n}${c.supported ? "" : `, NOT supported${at}`})`;
  }
  const den = c.denominator === null ? "" : `denominator ${c.denominator}, `;
  const q = c.quality === undefined ? "" : `, quality ${c.quality}`;
  return `${den}window ${c.window}, SLO ${c.slo}, gates ${c.gates}${q} -> ${sig(c.value, DIGITS)}`;
}

/** A recomputed value with as many significant digits as the published one (at least 6, at most 17). */
const shown = (r: AuditResult, v: number | null) => sig(v, Math.min(17, Math.max(DIGITS, r.published.significant)));

/** How the claim's value was compared: the stated tolerance, or its published precision. */
function comparedText(r: AuditResult): string {
  const t = r.tolerance;
  if (t.stated) {
    return `within the tolerance the claim states: ±${sig(t.allowed, DIGITS)} = max(absolute ${t.absolute}, ` +
      `relative ${t.relative} × |claim|)`;
  }
  return `at the published precision: ${r.published.text} stands for ±${sig(t.allowed, DIGITS)}`;
}

/** The one verdict line of a metric claim's audit. */
function verdictLine(r: AuditResult, what: string): string {
  const c = r.claim;
  const how = r.tolerance.stated
    ? `within the stated tolerance ±${sig(r.tolerance.allowed, DIGITS)}`
    : "at the published precision";
  const word = r.stated.value === null ? "NOT RECOMPUTED" : r.stated.match ? "REPRODUCED" : "NOT REPRODUCED";
  const head = `AUDIT: ${word}${r.stated.value === null ? "" : ` ${how}`} — ${what} = ${r.published.text} (class ${
    c.class ?? "all"
  }, stage ${c.stage ?? "all"})`;
  if (r.stated.value === null) return `${head}: no value under the stated rules (nothing in the window)`;
  const k = r.reproducing.length;
  return `${head}: the stated rules give ${shown(r, r.stated.value)}; ${
    k === 0 ? "none" : k
  } of ${r.searched} rule combinations searched give it${
    k > 1 ? " (they cannot be told apart at that precision)" : ""
  }`;
}

/** The audit in plain text: the verdict line, the claim, the recomputation with its disclosure, the choices. */
function formatAudit(r: AuditResult): string {
  const c = r.claim;
  const what = c.metric === "latency_percentile" ? `${percentLabel(c.p!)} ${c.latency_metric}` : c.metric;
  const d = r.stated.disclosure;
  const lat = r.stated.latency;
  const out = [
    verdictLine(r, what),
    `claim: ${what} = ${r.published.text} (class ${c.class ?? "all"}, stage ${c.stage ?? "all"}; source: ${c.source})`,
    `run ${d.run_id} (${d.files.dir}; ${d.files.format})`,
    // An imported run: its source and what it lacks; a recording: what its counts mean; before any number.
    ...(d.imported ? d.imported.caveats.map((c) => `  ${c}`) : []),
    ...(d.production ? d.production.caveats.map((c) => `  ${c}`) : []),
    "recomputed under the stated rules:",
    `  ${choice(r.stated.rules)}`,
    `  window: ${d.window.description}; measurement_seconds = ${d.window.measurement_seconds}`,
    ...(lat
      ? [
        `  n = ${lat.n}, ${lat.confidence * 100} % CI [${sig(lat.lower, DIGITS)}, ${
          sig(lat.upper, DIGITS)
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
    `compared ${comparedText(r)}: recomputed ${shown(r, r.stated.value)} vs claimed ${r.published.text} ` +
    `(difference ${sig(r.stated.difference, DIGITS)})`,
    `combinations that reproduce the claim (${r.reproducing.length} of ${r.searched} searched):`,
    ...(r.reproducing.length ? r.reproducing.map((x) => `  ${choice(x)}`) : ["  none"]),
  ];
  return out.join("\n");
}

/** A headline claim: the import folder read (a run or claims.json), audited, printed. */
async function headlineMain(
  check: InputCheck,
  claim: ResolvedHeadlineClaim,
  dir: string | undefined,
  v: ParsedCommand<typeof AUDIT_COMMAND>["values"],
): Promise<void> {
  const claimFile = v.claim!;
  check.require(dir === undefined, "a headline claim needs its import folder: RUN, or `run` in the claim");
  check.throwIfAny();
  if (isClaimsFolder(dir!)) {
    const src = await check.load(() => claimsSource(dir!));
    check.throwIfAny();
    const result = auditHeadline(src!, { ...claim, file: claimFile });
    if (v.json) console.log(JSON.stringify(result, null, 2));
    else console.log(formatHeadlineAudit(result, `${dir} (claims.json: a summary-only import)`, []));
    return;
  }
  const runs = await loadRuns(check, [dir!], openOptions(v));
  const run = runs?.[0];
  check.require(
    run !== undefined && !isImported(run.manifest),
    `${dir}: not an imported run (run.json ${
      run && runKind(run.manifest) === "production" ? 'kind "production": a production recording' : "has no kind"
    })`,
  );
  const slo = await sloPolicyFor(check, runs, v.slo, "the claim's policy");
  check.throwIfAny();
  const src = runSource(run!);
  const policy = slo?.policy ?? claim.slo;
  const stage = claim.stage ?? (src.stages.length === 1 ? src.stages[0]!.name : null);
  let goodputUnder: { value: number | null; policy: string } | undefined;
  if (policy) {
    const row = pickRow(goodput(run!, policyForRun(policy, run!, "the audit's SLO policy")), null, stage);
    goodputUnder = {
      value: row.measurement_seconds ? row.accepted / row.measurement_seconds : null,
      policy: slo?.file ?? claim.slo_source ?? "the claim's policy",
    };
  }
  const result = auditHeadline(src, { ...claim, file: claimFile }, goodputUnder);
  const caveats = importCaveats(run!.manifest);
  if (v.json) console.log(JSON.stringify({ ...result, caveats }, null, 2));
  else console.log(formatHeadlineAudit(result, dir!, caveats));
}

async function main({ values: v, positionals, check }: ParsedCommand<typeof AUDIT_COMMAND>): Promise<void> {
  // Every flag, then every file: all problems named at once before the audit starts.
  const open = openOptions(v);
  const supportConfidence = v.confidence;
  const any = v.claim === undefined ? undefined : await check.load(() => loadAnyClaim(v.claim!));
  if (any?.kind === "headline") return headlineMain(check, any.claim, positionals[0] ?? any.claim.run, v);
  const claim: ResolvedClaim | undefined = any?.claim;
  check.require(positionals.length === 0, "a metric claim is audited against a run: give the RUN folder");
  const runs = await loadRuns(check, positionals, open);
  // --slo, else the workload's default in data/slo/, else the policy the claim states.
  const slo = await sloPolicyFor(check, runs, v.slo, "the claim's policy");
  const run = runs?.[0];
  check.require(
    run !== undefined && claim !== undefined && slo === undefined && v.slo === undefined && !claim.slo,
    `an SLO policy is required: the claim states none and workload "${run?.manifest.workload.name}" has no default policy in data/slo/; pass --slo FILE`,
  );
  // The run's quality verdicts (RUN/quality/): the search then also tries each quality source; a bad table: exit 2.
  const quality = run ? (await check.load(() => loadRunQuality(run))) ?? null : null;
  check.throwIfAny();
  const sloFile = slo?.file;
  const policy = slo?.policy ?? claim!.slo!;
  const result = audit(run!, claim!, {
    policy,
    policy_source: sloFile ?? claim!.slo_source ?? "the claim's",
    supportConfidence,
    quality,
  });
  if (v.json) console.log(JSON.stringify(result, null, 2));
  else console.log(formatAudit(result));
}

if (import.meta.main) await runCommand(AUDIT_COMMAND, main);
