import { z } from "zod";

const stated = z.string().min(1).nullable();

/**
 * What a result is conditional on, frozen into run.json. Every field must be
 * stated; null says "does not apply / unknown" explicitly.
 */
export const RunConditions = z.object({
  model: z.string().min(1),
  model_version: stated,
  region: stated,
  api_tier: stated,
  api_version: stated,
  deployment_image: stated,
  gpu_config: stated,
  autoscaling_policy: stated,
  /** The output-token cap applied to every request (null = the case's own max_output_tokens). */
  output_cap: z.number().int().positive().nullable(),
  route: z.string().min(1).default("default"),
  provider: z.string().min(1),
  notes: z.string().default(""),
}).strict();
export type RunConditions = z.infer<typeof RunConditions>;
