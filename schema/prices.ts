import { z } from "zod";

const usd = z.number().nonnegative();
const fraction = z.number().min(0).max(1);
/** Where a number comes from; every ledger line prints it. */
const source = z.string().min(1);
/** Per-component factor: one number for every token kind, or one each. */
const factor = z.union([
  z.number().nonnegative(),
  z.object({
    input: z.number().nonnegative(),
    cached_input: z.number().nonnegative(),
    output: z.number().nonnegative(),
  })
    .strict(),
]);
export type PriceFactor = z.infer<typeof factor>;

/** Prices that apply to an attempt whose input is above a context length (the whole attempt, as providers bill it). */
export const ContextTier = z.object({
  /** Applies when the attempt's input_tokens is strictly above this. */
  above_input_tokens: z.number().int().nonnegative(),
  input_per_mtok: usd,
  /** null: the tier's input price. */
  cached_input_per_mtok: usd.nullable().default(null),
  output_per_mtok: usd,
  /** Reasoning tokens in this tier (null: the tier's output price). */
  reasoning_per_mtok: usd.nullable().default(null),
  /** Prompt-cache writes in this tier (null: the tier's input price). */
  cache_write_per_mtok: usd.nullable().default(null),
}).strict();
export type ContextTier = z.infer<typeof ContextTier>;

/**
 * The prices of one service tier (OpenAI `flex`, `priority`; Anthropic `priority`…), as the provider publishes them:
 * the same fields as the route's base prices, each with the same meaning and defaults, and the tier's own context
 * tiers. An attempt the answer says was served at this tier (attempts `service_tier`, contract 1.7) is priced by them.
 */
export const ServiceTierPrice = z.object({
  input_per_mtok: usd,
  /** null: the tier's input price. */
  cached_input_per_mtok: usd.nullable().default(null),
  output_per_mtok: usd,
  /** null: the tier's output price. */
  reasoning_per_mtok: usd.nullable().default(null),
  /** null: the tier's input price. */
  cache_write_per_mtok: usd.nullable().default(null),
  /** Higher prices of this tier above a context length (the base's context tiers do not apply to it). */
  context_tiers: z.array(ContextTier).default([]),
}).strict();
export type ServiceTierPrice = z.infer<typeof ServiceTierPrice>;

/**
 * Which failed attempts a provider bills. An attempt is `rejected` when
 * its HTTP status is 429; `cancelled` when the client aborted it (timeouts,
 * run stop); `failed` for any other error (other non-2xx, transport errors).
 * Every other attempt was served and is always charged. No default: the
 * sheet must state its terms.
 */
export const ChargePolicy = z.object({
  rejected: z.boolean(),
  failed: z.boolean(),
  cancelled: z.boolean(),
}).strict();
export type ChargePolicy = z.infer<typeof ChargePolicy>;

/** A hosted API priced per token (USD per million tokens). */
export const HostedPrice = z.object({
  kind: z.literal("hosted"),
  /** What was priced (informational; the ledger warns when the log's model differs). */
  provider: z.string().nullable().default(null),
  model: z.string().nullable().default(null),
  /**
   * Uncached input: input_tokens − cached_input_tokens (OpenAI usage counts cached tokens inside prompt_tokens), minus
   * cache_write_tokens when cache_write_per_mtok prices them.
   */
  input_per_mtok: usd,
  /** null: cached input is billed at the input price. */
  cached_input_per_mtok: usd.nullable().default(null),
  output_per_mtok: usd,
  /**
   * Reasoning tokens (attempts' reasoning_tokens, which are part of output_tokens) at this price instead of
   * output_per_mtok: output − reasoning at the output price, reasoning at this one, never both. null: billed as output.
   */
  reasoning_per_mtok: usd.nullable().default(null),
  /**
   * Prompt-cache writes (attempts' cache_write_tokens, which are part of input_tokens) at this price instead of
   * input_per_mtok. null: billed as uncached input.
   */
  cache_write_per_mtok: usd.nullable().default(null),
  /** A fee per charged attempt. @default 0 */
  per_request: usd.default(0),
  /** Higher prices above a context length; the highest threshold below the attempt's input applies. */
  context_tiers: z.array(ContextTier).default([]),
  /**
   * The tier an attempt is billed at when its answer does not say which tier served it (attempts `service_tier`
   * null): `standard` (the base prices), `batch` (batch_discount applies), or a key of `tiers` or `tier_multipliers`.
   * An attempt whose answer names its tier is billed at that one.
   */
  service_tier: z.string().min(1).default("standard"),
  /** Fraction off under the batch API (0.5 = half price). null: no batch API. */
  batch_discount: z.union([fraction, z.object({ input: fraction, cached_input: fraction, output: fraction }).strict()])
    .nullable().default(null),
  /** Price multipliers of other service tiers (priority, flex, ...) on the base prices. */
  tier_multipliers: z.record(z.string(), factor).default({}),
  /**
   * Other service tiers' own prices (`{"flex": {"input_per_mtok": …, "output_per_mtok": …}}`), as providers publish
   * them; a tier is named here or in tier_multipliers, not both.
   */
  tiers: z.record(z.string().min(1), ServiceTierPrice).default({}),
  charge: ChargePolicy,
  /** Overrides the sheet's source and date for this route. */
  source: source.optional(),
  as_of: z.iso.date().optional(),
}).strict().superRefine((p, ctx) => {
  const known = [
    "standard",
    ...(p.batch_discount !== null ? ["batch"] : []),
    ...Object.keys(p.tier_multipliers),
    ...Object.keys(p.tiers),
  ];
  for (const t of Object.keys(p.tiers)) {
    if (t in p.tier_multipliers || t === "standard" || t === "batch") {
      ctx.addIssue({
        code: "custom",
        path: ["tiers", t],
        message: `"${t}" is priced twice (${t in p.tier_multipliers ? "tier_multipliers" : "the base prices"} too)`,
      });
    }
  }
  if (!known.includes(p.service_tier)) {
    ctx.addIssue({
      code: "custom",
      path: ["service_tier"],
      message: `"${p.service_tier}" is not priced (known: ${known.join(", ")})`,
    });
  }
});
export type HostedPrice = z.infer<typeof HostedPrice>;

/** A self-hosted deployment priced by GPU time: replicas × GPUs per replica × hourly price. */
export const SelfHostedPrice = z.object({
  kind: z.literal("self_hosted"),
  gpu_type: z.string().min(1),
  gpu_hour: usd,
  gpus_per_replica: z.number().int().positive(),
  /** Spare replicas kept running beyond what the timeline shows, paid for over the time `gpu_time` charges. @default 0 */
  redundancy_replicas: z.number().int().nonnegative().default(0),
  /** Operating the deployment (on-call, cluster), per hour of the time `gpu_time` charges. @default 0 */
  operations_per_hour: usd.default(0),
  /** Replicas to assume when the run has no server timeline (null: a timeline is required). */
  fixed_replicas: z.number().int().positive().nullable().default(null),
  /**
   * Which replica time a ledger charges. `run`: the whole run's, from its start to its end (warm-up, drain, pauses,
   * idle and warming replicas included): time outside every measured stage is allocated to the measured stages in
   * proportion to their seconds. `window`: only the window's rows (a deployment shared and always on, whose warm-up
   * and drain time other work pays for); the rest is listed at price 0. @default "run"
   */
  gpu_time: z.enum(["run", "window"]).default("run"),
  source: source.optional(),
  as_of: z.iso.date().optional(),
}).strict();
export type SelfHostedPrice = z.infer<typeof SelfHostedPrice>;

/** How one route is priced. */
export const RoutePrice = z.discriminatedUnion("kind", [HostedPrice, SelfHostedPrice]);
export type RoutePrice = z.infer<typeof RoutePrice>;

/**
 * A price sheet: usage × prices gives cost at analysis time, so one log can
 * be priced under many sheets. Routes are keyed by the log's route name;
 * the key `*` prices every route not named.
 */
export const PriceSheet = z.object({
  price_sheet_version: z.literal(1),
  name: z.string().min(1),
  currency: z.string().length(3),
  /** Date the prices were taken; every ledger prints it. */
  as_of: z.iso.date(),
  source,
  notes: z.string().default(""),
  routes: z.record(z.string().min(1), RoutePrice),
}).strict().refine((s) => Object.keys(s.routes).length > 0, { path: ["routes"], message: "at least one route" });
export type PriceSheet = z.infer<typeof PriceSheet>;

const sourced = { source: source.optional() };

/**
 * Human review of a sample of tasks, plus the corrections it finds: an expected-count model. For a run whose quality
 * table records human or adjudicated verdicts, the ledger charges their recorded time at `hourly` instead.
 */
export const HumanReview = z.object({
  /** Which tasks are sampled: accepted ones, or every completed one. */
  basis: z.enum(["accepted", "completed"]),
  sample_rate: fraction,
  minutes_per_review: z.number().nonnegative(),
  /** Share of reviewed tasks that need a correction. */
  correction_rate: fraction,
  minutes_per_correction: z.number().nonnegative(),
  hourly: usd,
  ...sourced,
}).strict();
export type HumanReview = z.infer<typeof HumanReview>;

/**
 * The price of a model judge's tokens (per million), as its provider bills them: every call the judge made, retries
 * and calls on items it could not score included (the quality table records them).
 */
export const JudgeModelPrice = z.object({
  input_per_mtok: usd,
  output_per_mtok: usd,
  source: source.optional(),
  as_of: z.iso.date().optional(),
}).strict();
export type JudgeModelPrice = z.infer<typeof JudgeModelPrice>;

/**
 * Evaluating the answers: the price of each model judge's tokens, keyed by the model the quality table names
 * (`judge:<model>`). A judge whose model is not here is NOT PRICED in the ledger (its tokens listed at 0, said so).
 * Human review is priced by `human_review.hourly`.
 */
export const Evaluation = z.object({
  judge_models: z.record(z.string().min(1), JudgeModelPrice).default({}),
  ...sourced,
}).strict();
export type Evaluation = z.infer<typeof Evaluation>;

/**
 * Costs around the model that every route pays: retrieval, tools, storage,
 * observability, evaluation (a model judge), human review and allocated operations. Each section may
 * state its own source; otherwise the sheet's applies.
 */
export const OverheadSheet = z.object({
  overhead_sheet_version: z.literal(1),
  name: z.string().min(1),
  currency: z.string().length(3),
  as_of: z.iso.date(),
  source,
  notes: z.string().default(""),
  /** Per call of the retrieval tool (tools rows named `tool`). */
  retrieval: z.object({ tool: z.string().min(1).default("retrieval"), per_call: usd, ...sourced }).strict(),
  /** Per call of every other tool: `per_tool` by name, else `per_call`. Failed calls are charged. */
  tools: z.object({ per_call: usd, per_tool: z.record(z.string(), usd).default({}), ...sourced }).strict(),
  /** Stored records (prompt, output, log) of every sent request. */
  storage: z.object({
    per_gb_month: usd,
    bytes_per_request: z.number().nonnegative(),
    retention_months: z.number().nonnegative(),
    ...sourced,
  }).strict(),
  /** Traces and logs: per sent request and per attempt (span). */
  observability: z.object({ per_request: usd, per_attempt: usd.default(0), ...sourced }).strict(),
  human_review: HumanReview,
  /** A model judge's tokens, per judge model (absent: no judge priced). */
  evaluation: Evaluation.optional(),
  /** Shared operations (platform, on-call, licences) allocated per hour of the measurement window. */
  allocated_operations: z.object({ per_hour: usd, ...sourced }).strict(),
}).strict();
export type OverheadSheet = z.infer<typeof OverheadSheet>;
