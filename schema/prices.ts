import { z } from "zod";

const usd = z.number().nonnegative();

/** Prices of one route: per-token for hosted APIs, per-hour for self-hosted GPUs. */
export const RoutePrice = z.object({
  input_per_mtok: usd.default(0),
  cached_input_per_mtok: usd.default(0),
  output_per_mtok: usd.default(0),
  per_request: usd.default(0),
  gpu_hour: usd.default(0),
  gpus: z.number().int().nonnegative().default(0),
}).strict();

/** A price sheet: usage × prices gives cost at analysis time, so one log can be priced many ways. */
export const PriceSheet = z.object({
  name: z.string().min(1),
  currency: z.string().length(3),
  /** Date the prices were taken; every ledger prints it. */
  as_of: z.string().date(),
  source: z.string(),
  routes: z.record(z.string(), RoutePrice),
  retrieval_per_call: usd.default(0),
  tool_per_call: z.record(z.string(), usd).default({}),
  storage_per_gb_month: usd.default(0),
  observability_per_request: usd.default(0),
  human_review_per_task: usd.default(0),
  /** Operations cost allocated to the measured window, per hour. */
  allocated_operations_per_hour: usd.default(0),
}).strict();
export type PriceSheet = z.infer<typeof PriceSheet>;
