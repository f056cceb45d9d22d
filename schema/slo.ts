import { z } from "zod";
import { StageKind } from "./plan.ts";

export const Gate = z.enum(["output_valid", "schema_ok", "quality_ok", "safety_ok", "auth_ok"]);
export type Gate = z.infer<typeof Gate>;

/** Latency limits and required gates of one class. */
export const ClassSlo = z.object({
  e2e_ms: z.number().positive().optional(),
  ttft_ms: z.number().positive().optional(),
  tpot_ms: z.number().positive().optional(),
  gates: z.array(Gate).default(["output_valid", "quality_ok", "safety_ok", "auth_ok"]),
}).strict();
export type ClassSlo = z.infer<typeof ClassSlo>;

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
  denominator: z.enum(["offered", "sent", "completed"]).default("offered"),
  window: SloWindow.default({ exclude_stage_kinds: [] }),
  classes: z.record(z.string(), ClassSlo).default({}),
  default: ClassSlo,
}).strict();
export type SloPolicy = z.infer<typeof SloPolicy>;
