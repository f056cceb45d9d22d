import type { ClassSlo, ModeSlo, SloPolicy } from "../schema/slo.ts";
import { FAILURE_ORDER, type FailureReason } from "./classify.ts";
import type { LoadedRun } from "./loaded_run.ts";
import { classSlo, type ResolvedWindow } from "./policy.ts";
import { RUN_END_RULE, type RunEnd } from "./run_end.ts";
import { MODE_RULES } from "./service_modes.ts";

/** Everything a goodput number is conditional on, printed with it. */
export interface Disclosure {
  run_id: string;
  /** The run folder, the log format, the number of shard folders and the files read in each. */
  files: { dir: string; format: "csv" | "parquet"; shards: number; read: string[] };
  denominator: SloPolicy["denominator"];
  window: {
    kind: ResolvedWindow["kind"];
    description: string;
    stages: string[];
    measurement_seconds: number;
    stage_seconds: Record<string, number>;
  };
  /** How the run ended and where its log ends: for an incomplete run the window stops at `cut_ms`. */
  run_end: RunEnd;
  /** The inclusion and counting rules, in words. */
  inclusion_rules: string[];
  /**
   * The SLO applied to each class found in the window (its own degraded `modes` included), the default for other
   * classes, and the policy's degraded modes (for every class that does not declare the mode itself).
   */
  slo: { classes: Record<string, ClassSlo>; default: ClassSlo; modes: Record<string, ModeSlo> };
  tpot_definition: string;
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

/** The TPOT definition, stated in every disclosure. */
export const TPOT_DEFINITION =
  "TPOT = (last_token_ms − first_token_ms) / (output_tokens − 1) of the final answered attempt (highest attempt " +
  "with both token times) of the request's last round in attempts; undefined when that attempt has ≤ 1 output " +
  "token, and then the TPOT limit does not apply";

/**
 * Builds the disclosure of a goodput result: run, files, denominator,
 * window, inclusion rules in words, per-class SLO, TPOT definition and n.
 */
export function buildDisclosure(
  run: LoadedRun,
  policy: SloPolicy,
  window: ResolvedWindow,
  n: Disclosure["n"],
): Disclosure {
  const classes: Record<string, ClassSlo> = {};
  for (const c of Object.keys(n.by_class).sort()) classes[c] = classSlo(policy, c);
  const drainIncluded = run.manifest.stages.some((s) => s.kind === "drain" && window.stages.includes(s.name));
  const shards = run.manifests.length;
  const tables = ["requests", "attempts", "tools", ...(run.server ? ["server"] : [])];
  return {
    run_id: run.manifest.run_id,
    files: {
      dir: run.dir,
      format: run.format,
      shards,
      read: ["run.json", ...tables.map((t) => `${t}.${run.format}`)],
    },
    denominator: policy.denominator,
    window: {
      kind: window.kind,
      description: window.description,
      stages: window.stages,
      measurement_seconds: window.measurement_seconds,
      stage_seconds: window.stage_seconds,
    },
    run_end: run.end,
    inclusion_rules: [
      ...endRules(run.end),
      `a request is in the window when its scheduled_ms is inside it (${window.description})`,
      window.kind === "stages"
        ? `measurement_seconds = sum of the included stages' durations = ${window.measurement_seconds} s; drain stages count only when included (${
          drainIncluded ? "a drain stage is included" : "no drain stage is included"
        })`
        : `measurement_seconds = end_ms − start_ms = ${window.measurement_seconds} s`,
      "offered = every request scheduled in the window, whatever happened to it (one row per request: retries count once)",
      "sent = offered minus outcome not_sent and client_shed; completed = outcome ok",
      "accepted = completed, within every latency limit of its class (limit inclusive), and every required gate true (null fails)",
      "e2e = completed_ms − scheduled_ms; TTFT = first_token_ms − scheduled_ms (a missing time fails a set limit)",
      `slo_miss_rate = (${policy.denominator} − accepted) / ${policy.denominator}; acceptance_rate = accepted / offered`,
      "accepted_goodput = accepted / measurement_seconds; per-stage rows use that stage's seconds inside the window",
      "a rate with a zero denominator is null",
      `each non-accepted request is attributed to its first failing reason, in order: ${FAILURE_ORDER.join(", ")}`,
      ...MODE_RULES,
    ],
    slo: { classes, default: policy.default, modes: policy.modes ?? {} },
    tpot_definition: TPOT_DEFINITION,
    failure_order: FAILURE_ORDER,
    n,
    warnings: run.warnings,
  };
}

/** The end-of-run rule of an incomplete run, with what it did to this run (nothing for a complete run). */
function endRules(end: RunEnd): string[] {
  if (end.cut_ms === null) return [];
  return [
    `INCOMPLETE RUN (${end.status}): ${RUN_END_RULE}`,
    `this run: ${end.rule}; the window ends at ${end.cut_ms} ms of ${end.planned_ms} ms planned; ${end.after_cut} ` +
    `requests scheduled at or after it left out of numerator and denominator; ${end.unresolved} scheduled before it ` +
    `were in flight when the run ended and count as not accepted (${end.restored} restored from the schedule)`,
  ];
}
