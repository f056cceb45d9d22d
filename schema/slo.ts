import { z } from "zod";
import { StageKind } from "./plan.ts";
import { ServiceModeName } from "./service_mode.ts";

/**
 * The gates, in attribution order: the one list the `Gate` enum and type,
 * the failure reasons and the analysis's order come from.
 */
export const GATES = ["output_valid", "schema_ok", "quality_ok", "safety_ok", "auth_ok"] as const;
export const Gate = z.enum(GATES);
export type Gate = z.infer<typeof Gate>;

/**
 * Why a request in the window was not accepted, in attribution order: a
 * request counts under the first that applies (its outcome first, then the
 * mode, latency limits and gates of its SLO). A reason's code in the
 * analysis is its index here.
 */
export const FAILURE_REASONS = [
  "rejected",
  "client_shed",
  "not_sent",
  "timeout",
  "error",
  "undeclared_mode",
  "late_e2e",
  "late_ttft",
  "slow_tpot",
  ...GATES.map((g) => `gate_${g}` as const),
] as const;
export const FailureReason = z.enum(FAILURE_REASONS);
export type FailureReason = z.infer<typeof FailureReason>;

/** The gates no degraded mode may drop where its class requires them. */
export const UNRELAXABLE_GATES: readonly Gate[] = ["auth_ok", "safety_ok"];

/**
 * What a request served in one degraded service mode is held to. Its gates
 * replace the class's; each latency limit set here replaces the class's, one
 * not set stays the class's. A mode never drops `auth_ok` or `safety_ok`
 * where the class requires them (the policy is refused).
 */
export const ModeSlo = z.object({
  /** The output this mode may give, in words (printed with the SLO), e.g. "answers cut to 48 tokens". */
  output: z.string().min(1),
  /** The gates a request served in this mode must pass. */
  gates: z.array(Gate),
  e2e_ms: z.number().positive().optional(),
  ttft_ms: z.number().positive().optional(),
  tpot_ms: z.number().positive().optional(),
}).strict();
export type ModeSlo = z.infer<typeof ModeSlo>;

/** Service mode name → what that mode is allowed. */
export const ModeSlos = z.record(ServiceModeName, ModeSlo);

/**
 * Where a class's `quality_ok` gate takes its verdict from: `inline` (the check run with the request, the requests
 * log's column), `judge` (the model judge's verdict in the run's quality table), `human` (blinded reviewers' consensus
 * on a stratified sample: the class's acceptance becomes an estimate with an interval) or `calibrated-judge` (the
 * judge's pass share corrected for its error measured against the reviewers, Rogan–Gladen). docs/quality_goodput.md.
 */
export const QUALITY_SOURCES = ["inline", "judge", "human", "calibrated-judge"] as const;
export const QualitySourceName = z.enum(QUALITY_SOURCES);
export type QualitySourceName = z.infer<typeof QualitySourceName>;

/** Latency limits and required gates of one class. */
export const ClassSlo = z.object({
  e2e_ms: z.number().positive().optional(),
  ttft_ms: z.number().positive().optional(),
  tpot_ms: z.number().positive().optional(),
  gates: z.array(Gate).default(["output_valid", "quality_ok", "safety_ok", "auth_ok"]),
  /** The degraded service modes this class may be served in (before the policy's `modes`). */
  modes: ModeSlos.optional(),
  /** Where the class's `quality_ok` comes from (absent: `inline`, the requests log's column). */
  quality_source: QualitySourceName.optional(),
  /** The judge model (`judge:<model>` in the quality table) of a `judge` or `calibrated-judge` source, when a run has several. */
  judge: z.string().min(1).optional(),
}).strict();
export type ClassSlo = z.infer<typeof ClassSlo>;

/** How measured quality is used: the least agreement a judge must show with people, and the intervals' level. */
export const QualitySettings = z.object({
  /** A judge whose Cohen's kappa against the reviewers' consensus is below this is refused. @default 0.6 */
  min_judge_kappa: z.number().min(-1).max(1).default(0.6),
  /** Two-sided confidence level of every quality interval. @default 0.95 */
  level: z.number().gt(0).lt(1).default(0.95),
  /**
   * A class's own calibration corrects its judge when it holds at least this many items the reviewers passed and as
   * many they failed; else the calibration pooled over every class is used. @default 10
   */
  min_calibration_per_side: z.number().int().min(1).default(10),
}).strict();
export type QualitySettings = z.infer<typeof QualitySettings>;

/** Which part of the run is measured: stages by kind or name, or an explicit ms range. */
export const SloWindow = z.union([
  z.object({
    exclude_stage_kinds: z.array(StageKind).default([]),
    include_stages: z.array(z.string()).optional(),
  }).strict(),
  z.object({ start_ms: z.number().nonnegative(), end_ms: z.number().positive() }).strict(),
]);

/** An SLO policy file: the denominator, the window and each class's limits. */
export const SloPolicy = z.object({
  /**
   * What the policy judges, in words, when that needs saying (e.g. "latency and validity only: …"): the disclosure
   * states it first among its inclusion rules.
   */
  statement: z.string().min(1).optional(),
  denominator: z.enum(["offered", "sent", "completed"]).default("offered"),
  window: SloWindow.default({ exclude_stage_kinds: [] }),
  classes: z.record(z.string(), ClassSlo).default({}),
  default: ClassSlo,
  /** Degraded service modes every class may be served in (a class's own `modes` entry comes first). */
  modes: ModeSlos.optional(),
  /** Settings of measured quality (`quality_source` other than inline); absent: every default. */
  quality: QualitySettings.optional(),
}).strict().superRefine((p, ctx) => {
  for (const issue of modeRelaxations(p)) ctx.addIssue({ code: "custom", ...issue });
  for (const issue of qualitySourceIssues(p)) ctx.addIssue({ code: "custom", ...issue });
});
export type SloPolicy = z.infer<typeof SloPolicy>;

/**
 * Every mode of `p` that drops `auth_ok` or `safety_ok` although a class it
 * applies to requires it: a class's own modes against that class's gates,
 * `default.modes` against the default's, the policy's `modes` against the
 * gates of every class it applies to (each class, and the default, that does
 * not declare that mode itself).
 */
function modeRelaxations(p: {
  classes: Record<string, ClassSlo>;
  default: ClassSlo;
  modes?: Record<string, ModeSlo>;
}): { path: (string | number)[]; message: string }[] {
  const out: { path: (string | number)[]; message: string }[] = [];
  const check = (path: string[], mode: string, slo: ModeSlo, owners: [string, ClassSlo][]) => {
    for (const g of UNRELAXABLE_GATES) {
      if (slo.gates.includes(g)) continue;
      const strict = owners.filter(([, c]) => c.gates.includes(g)).map(([name]) => name);
      if (!strict.length) continue;
      out.push({
        path: [...path, mode, "gates"],
        message: `mode "${mode}" drops ${g}, which ${strict.join(", ")} require${
          strict.length === 1 ? "s" : ""
        }: a degraded mode may never relax authorization or safety`,
      });
    }
  };
  for (const [name, c] of Object.entries(p.classes)) {
    for (const [mode, slo] of Object.entries(c.modes ?? {})) {
      check(["classes", name, "modes"], mode, slo, [[`class ${name}`, c]]);
    }
  }
  for (const [mode, slo] of Object.entries(p.default.modes ?? {})) {
    check(["default", "modes"], mode, slo, [["the default class", p.default]]);
  }
  // A policy-level mode applies to every class that does not declare that mode itself.
  const all: [string, ClassSlo][] = [
    ["the default class", p.default],
    ...Object.entries(p.classes).map(([n, c]): [string, ClassSlo] => [`class ${n}`, c]),
  ];
  for (const [mode, slo] of Object.entries(p.modes ?? {})) {
    check(["modes"], mode, slo, all.filter(([, c]) => c.modes?.[mode] === undefined));
  }
  return out;
}

/**
 * A measured quality source needs the `quality_ok` gate it feeds (else it would change nothing, silently), and a
 * `judge` model names the judge of a judge source only.
 */
function qualitySourceIssues(p: {
  classes: Record<string, ClassSlo>;
  default: ClassSlo;
}): { path: (string | number)[]; message: string }[] {
  const out: { path: (string | number)[]; message: string }[] = [];
  const entries: [(string | number)[], ClassSlo][] = [
    [["default"], p.default],
    ...Object.entries(p.classes).map(([n, c]): [(string | number)[], ClassSlo] => [["classes", n], c]),
  ];
  for (const [path, c] of entries) {
    const source = c.quality_source ?? "inline";
    if (source !== "inline" && !c.gates.includes("quality_ok")) {
      out.push({
        path: [...path, "quality_source"],
        message: `quality_source ${source} needs quality_ok in the class's gates (it is the gate it decides)`,
      });
    }
    if (c.judge !== undefined && source !== "judge" && source !== "calibrated-judge") {
      out.push({
        path: [...path, "judge"],
        message:
          `judge names a judge model, which only a judge or calibrated-judge quality_source uses (not ${source})`,
      });
    }
  }
  return out;
}
