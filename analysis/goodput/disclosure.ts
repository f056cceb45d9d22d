import {
  type ClassSlo,
  FAILURE_REASONS as FAILURE_ORDER,
  type FailureReason,
  type Gate,
  GATES,
  type ModeSlo,
  type SloPolicy,
} from "../../schema/slo.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import { classSlo, type ResolvedWindow } from "./policy.ts";
import { idList, RUN_END_RULE, type RunEnd } from "../run/run_end_rule.ts";
import { PARTIAL_SHARDS_RULE } from "../run/_shard_set.ts";
import { MODE_RULES } from "./service_modes.ts";
import { GATE_RULE } from "./gate_rule.ts";
import type { ImportedLack, ImportedManifest } from "../../schema/imported_manifest.ts";
import { hasTimeWindow, importCaveats, isImported } from "../run/imported_run.ts";
import { isProduction, PRODUCTION_OPEN_RULE, productionCaveats } from "../run/production_run.ts";
import { type ProductionDisclosure, productionDisclosure } from "./production_disclosure.ts";

export type { ProductionDisclosure, ProductionWindow } from "./production_disclosure.ts";
import { STREAMING, type Streaming, STREAMING_RULE, TPOT_DEFINITION, TTFT_DEFINITION } from "./streaming_rules.ts";

export { TPOT_DEFINITION, TTFT_DEFINITION };

/** Completed requests by how they were streamed (`streamed`/`not_streamed` recorded; `assumed_streamed`/`inferred_not_streamed` in a 1.0 log). */
export type StreamingCounts = Record<Streaming, number>;

/** What the window's requests showed, per class: streaming and gates passed as n/a. */
export interface Observed {
  /** Completed requests of each class by how they were streamed. */
  streaming: Record<string, StreamingCounts>;
  /** Completed requests of each class for which a gate its class requires did not apply (passed as n/a), per gate. */
  gates_na: Record<string, Record<Gate, number>>;
}

/** Where an imported run's rows came from and what the source lacks (run.json `kind: "imported"`). */
export interface ImportedDisclosure {
  tool: ImportedManifest["source"]["tool"];
  tool_version: string | null;
  files: ImportedManifest["source"]["files"];
  timeline: ImportedManifest["timeline"];
  /** What the source does not hold, field by field, with the consequence. */
  lacks: ImportedLack[];
  /** The same in sentences (`importCaveats`), also at the head of `inclusion_rules`. */
  caveats: string[];
}

/** Everything a goodput number is conditional on, printed with it. */
export interface Disclosure {
  run_id: string;
  /** For a run imported from another tool's file: the source and its caveats; null for a run of our runner. */
  imported: ImportedDisclosure | null;
  /** For a production recording: what offered and measurement seconds mean, sampling, windows, drops; else null. */
  production: ProductionDisclosure | null;
  /**
   * The run folder, the log format, the number of shard folders read, the files read in each, and, for a sharded
   * run analysed with shards missing (`allowPartialShards`), the run's shard count and the missing shard indices.
   */
  files: {
    dir: string;
    format: "csv" | "parquet";
    shards: number;
    read: string[];
    partial?: { shard_count: number; missing_shards: number[] };
  };
  denominator: SloPolicy["denominator"];
  window: {
    kind: ResolvedWindow["kind"];
    description: string;
    stages: string[];
    measurement_seconds: number;
    stage_seconds: Record<string, number>;
  };
  /** How the run ended, what the stop censored, and where the window ends (`cut_ms`) for an incomplete run. */
  run_end: RunEnd;
  /** The inclusion and counting rules, in words. */
  inclusion_rules: string[];
  /**
   * The SLO applied to each class found in the window (its own degraded `modes` included), the default for other
   * classes, and the policy's degraded modes (for every class that does not declare the mode itself).
   */
  slo: { classes: Record<string, ClassSlo>; default: ClassSlo; modes: Record<string, ModeSlo> };
  /**
   * Each class's SLO in words with how it was applied: which latency limits
   * apply (TTFT/TPOT not to a class that was not streamed) and the gates
   * that passed as n/a; `(any other class)` for the default.
   */
  slo_rules: Record<string, string>;
  ttft_definition: string;
  tpot_definition: string;
  /** How streaming is known (recorded in 1.1, inferred in 1.0). */
  streaming_rule: string;
  /** Completed requests of each class in the window by how they were streamed. */
  streaming: Record<string, StreamingCounts>;
  /** When a required gate fails, passes, or passes as n/a. */
  gate_rule: string;
  /**
   * Completed requests for which a gate their class requires did not apply
   * (it passed as n/a), per gate: overall and by class.
   */
  gates_not_applicable: { overall: Record<Gate, number>; by_class: Record<string, Record<Gate, number>> };
  failure_order: readonly FailureReason[];
  /** Sample count (requests offered in the window) of every row. */
  n: {
    overall: number;
    by_class: Record<string, number>;
    by_stage: Record<string, number>;
    /** By service mode label (`(none)`: none announced). */
    by_mode: Record<string, number>;
  };
  /** Warnings raised while loading the run. */
  warnings: string[];
}

/** Zero counts of every streaming kind. */
export const noStreaming = (): StreamingCounts => Object.fromEntries(STREAMING.map((k) => [k, 0])) as StreamingCounts;

/** Zero counts of every gate. */
export const noGates = (): Record<Gate, number> => Object.fromEntries(GATES.map((g) => [g, 0])) as Record<Gate, number>;

const limitText = (name: string, v: number | undefined) => (v === undefined ? [] : [`${name} ≤ ${v} ms`]);

/**
 * One class's SLO in words with how it applies to the class's completed
 * requests: e2e always; TTFT/TPOT only to streamed ones ("not applicable
 * (not streamed)" when none was); each required gate with its n/a count.
 *
 * @example An unstreamed class is judged by its deadline
 * ```ts
 * import assert from "node:assert/strict";
 * import { noGates, noStreaming, sloRule } from "./disclosure.ts";
 * const slo = { e2e_ms: 5000, ttft_ms: 1500, tpot_ms: 80, gates: ["output_valid" as const] };
 * assert.equal(
 *   sloRule("extract_json", slo, { ...noStreaming(), not_streamed: 114 }, noGates()),
 *   "extract_json: e2e ≤ 5000 ms; TTFT/TPOT limits not applicable (not streamed); gates output_valid",
 * );
 * ```
 */
export function sloRule(cls: string, slo: ClassSlo, s: StreamingCounts | null, na: Record<Gate, number>): string {
  const tokenLimits = [...limitText("TTFT", slo.ttft_ms), ...limitText("TPOT", slo.tpot_ms)];
  const names = tokenLimits.length === 2 ? "TTFT/TPOT limits" : `${tokenLimits[0]?.slice(0, 4)} limit`;
  const observable = s ? s.streamed + s.assumed_streamed : 0;
  const hidden = s ? s.not_streamed + s.inferred_not_streamed : 0;
  const inferred = s?.inferred_not_streamed ? `; inferred for ${s.inferred_not_streamed} from a 1.0 log` : "";
  const limits = limitText("e2e", slo.e2e_ms);
  let note = "";
  if (tokenLimits.length && hidden > 0 && observable === 0) {
    note = `; ${names} not applicable (not streamed${inferred})`;
  } else if (tokenLimits.length) {
    limits.push(...tokenLimits);
    if (s === null) note = `; ${names} apply to streamed requests only`;
    else if (hidden > 0) {
      note = `; ${names} apply to its ${observable} streamed completed requests, not to its ${hidden} not streamed` +
        `${inferred ? ` (${inferred.slice(2)})` : ""}`;
    }
  }
  const gates = slo.gates.map((g) => (na[g] ? `${g} (n/a for ${na[g]})` : g)).join(", ") || "none";
  return `${cls}: ${limits.join(", ") || "no latency limit"}${note}; gates ${gates}`;
}

/** What a disclosure reads of a run: its metadata (folder, manifests, format, end, shards, warnings), never its rows. */
export type DisclosedRun =
  & Pick<LoadedRun, "dir" | "manifest" | "manifests" | "format" | "end" | "shard_set" | "warnings" | "parts">
  & { server: unknown };

/**
 * Builds the disclosure of a goodput result: run, files, denominator,
 * window, inclusion rules in words, per-class SLO and how it applied
 * (streaming, gates passed as n/a), the TTFT and TPOT definitions and n.
 * Reads only the run's metadata, so any engine that counted can call it.
 */
export function buildDisclosure(
  run: DisclosedRun,
  policy: SloPolicy,
  window: ResolvedWindow,
  n: Disclosure["n"],
  observed: Observed,
): Disclosure {
  const classes: Record<string, ClassSlo> = {};
  const slo_rules: Record<string, string> = {};
  const streaming: Record<string, StreamingCounts> = {};
  const byClass: Record<string, Record<Gate, number>> = {};
  const overallNa = noGates();
  for (const c of Object.keys(n.by_class).sort()) {
    classes[c] = classSlo(policy, c);
    streaming[c] = observed.streaming[c] ?? noStreaming();
    byClass[c] = observed.gates_na[c] ?? noGates();
    for (const g of GATES) overallNa[g] += byClass[c]![g];
    slo_rules[c] = sloRule(c, classes[c]!, streaming[c]!, byClass[c]!);
  }
  slo_rules["(any other class)"] = sloRule("(any other class)", policy.default, null, noGates());
  const v10 = run.manifest.schema_minor === 0;
  const drainIncluded = run.manifest.stages.some((s) => s.kind === "drain" && window.stages.includes(s.name));
  const shards = run.manifests.length;
  const partial = run.shard_set?.missing.length ? run.shard_set : null;
  const tables = ["requests", "attempts", "tools", ...(run.server ? ["server"] : [])];
  const m = run.manifest;
  // In full: an import's source and lacks, or every rule of a recording (the verdicts carry a recording's headline).
  const caveats = [...importCaveats(m), ...productionCaveats(m)];
  const read = run.parts
    ? run.parts.flatMap((p) => p.tables.map((t) => `${p.dir}/${t}.${p.format}`))
    : tables.map((t) => `${t}.${run.format}`);
  return {
    run_id: run.manifest.run_id,
    imported: isImported(m)
      ? {
        tool: m.source.tool,
        tool_version: m.source.tool_version,
        files: m.source.files,
        timeline: m.timeline,
        lacks: m.lacks,
        caveats,
      }
      : null,
    production: isProduction(m) ? productionDisclosure(m, run.parts ?? [], window, n) : null,
    files: {
      dir: run.dir,
      format: run.format,
      shards,
      read: ["run.json", ...read],
      ...(partial ? { partial: { shard_count: partial.count, missing_shards: partial.missing } } : {}),
    },
    denominator: policy.denominator,
    window: {
      kind: window.kind,
      description: hasTimeWindow(m)
        ? window.description
        : `${window.description} (NO TIME WINDOW: every request is at ms 0 and a stage spans its longest request, ` +
          "so measurement_seconds measures nothing and every rate is null)",
      stages: window.stages,
      measurement_seconds: window.measurement_seconds,
      stage_seconds: window.stage_seconds,
    },
    run_end: run.end,
    inclusion_rules: [
      ...(policy.statement ? [`the SLO policy: ${policy.statement}`] : []),
      ...caveats,
      ...(partial
        ? [
          `${PARTIAL_SHARDS_RULE}; this run: shards ${partial.present.join(", ")} of ${partial.count} read, ${
            partial.missing.join(", ")
          } missing`,
        ]
        : []),
      ...endRules(run.end),
      `a request is in the window when its scheduled_ms is inside it (${window.description})`,
      window.kind === "stages"
        ? `measurement_seconds = sum of the included stages' durations = ${window.measurement_seconds} s; drain stages count only when included (${
          drainIncluded ? "a drain stage is included" : "no drain stage is included"
        })`
        : `measurement_seconds = end_ms − start_ms = ${window.measurement_seconds} s`,
      isProduction(m)
        ? "offered = every sampled user action scheduled (its user action) in the window, whatever happened to it " +
          "(one row per action: retries count once)"
        : "offered = every request scheduled in the window, whatever happened to it (one row per request: retries " +
          "count once)",
      "sent = offered minus outcome not_sent and client_shed; completed = outcome ok",
      "accepted = completed, within every latency limit of its class that applies to it (limit inclusive), and every " +
      "gate its class requires true where the gate applies (null fails; a gate that does not apply passes as n/a)",
      "e2e = completed_ms − scheduled_ms (a missing time fails a set limit); TTFT and TPOT limits apply only to " +
      "streamed requests: an unstreamed request is judged by its e2e limit",
      ...(v10
        ? [
          "contract 1.0 log: streaming and gate applicability are not recorded: streaming is inferred (streaming " +
          "rule), and every gate a class requires applies to its requests (null fails)",
        ]
        : []),
      `slo_miss_rate = (${policy.denominator} − accepted) / ${policy.denominator}; acceptance_rate = accepted / offered`,
      "accepted_goodput = accepted / measurement_seconds; per-stage rows use that stage's seconds inside the window",
      "a rate with a zero denominator is null",
      `each non-accepted request is attributed to its first failing reason, in order: ${FAILURE_ORDER.join(", ")}`,
      ...MODE_RULES,
    ],
    slo: { classes, default: policy.default, modes: policy.modes ?? {} },
    slo_rules,
    ttft_definition: TTFT_DEFINITION,
    tpot_definition: TPOT_DEFINITION,
    streaming_rule: STREAMING_RULE,
    streaming,
    gate_rule: GATE_RULE,
    gates_not_applicable: { overall: overallNa, by_class: byClass },
    failure_order: FAILURE_ORDER,
    n,
    warnings: run.warnings,
  };
}

/** The end-of-run rule of an incomplete run, with what it did to this run (nothing for a complete run). */
function endRules(end: RunEnd): string[] {
  if (end.cut_ms === null) return [];
  if (end.status === "recording") {
    return [
      `RECORDING STILL OPEN: ${PRODUCTION_OPEN_RULE}`,
      `this run: ${end.rule}; the window ends at ${end.cut_ms} ms; ${end.after_cut} tasks scheduled at or after it ` +
      "left out of numerator and denominator",
    ];
  }
  return [
    `INCOMPLETE RUN (${end.status}): ${RUN_END_RULE}`,
    `this run: ${end.rule}; the log ends at ${end.log_end_ms} ms and the window at ${end.cut_ms} ms of ` +
    `${end.planned_ms} ms planned; ${decidedRule(end)}${end.censored} requests censored (cut off by the stop; ` +
    `${end.restored} restored from the schedule): ${end.censored_ids.join(", ") || "none"}; ${end.after_cut} other ` +
    "requests scheduled at or after the window's end; all of them in neither numerator nor denominator",
  ];
}

/** What the e2e limits decided of the requests the stop cut off, or that none were given. */
function decidedRule(end: RunEnd): string {
  if (end.deadlines === null) {
    return "read without an SLO policy's e2e limits (deadlines), so no request cut off by the stop was decided " +
      "failed, even one already past its limit; ";
  }
  return `${end.decided} requests cut off by the stop already past their e2e limit at the log's end ` +
    `(${end.deadlines}) failed: in the window and the denominator, not accepted: ` +
    `${end.decided ? idList(end.decided_ids) : "none"}; `;
}
