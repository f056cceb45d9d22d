import { z } from "zod";
import { loadJsonFile } from "./load.ts";

/** A route name: it names the route in `requests.route`, `attempts.route` and price sheets. */
const routeName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "letters, digits, '.', '_' or '-'");

/** What the runner itself holds a route to: attempts wait for a slot or a token, never skip the limit. */
export const RouteLimits = z.object({
  /** Most attempts in flight on this route at once. */
  max_in_flight: z.number().int().positive().max(1_000_000).optional(),
  /** Most attempts started per second (a token bucket holding one second of tokens). */
  rps: z.number().positive().max(1_000_000).optional(),
}).strict();
export type RouteLimits = z.infer<typeof RouteLimits>;

/**
 * A batch route's batching (docs/batch.md): requests the policy sends to the route join its open batch at their
 * scheduled time; the batch is submitted through the provider's batch API once it holds `max_requests`, `window_s`
 * after its first request, or when the schedule's arrivals are over; the run polls every submitted batch each
 * `poll_interval_s` and waits for it at most `max_wait_s` from its submission.
 */
export const BatchSpec = z.object({
  /** Seconds a batch stays open after its first request. @default 60 */
  window_s: z.number().positive().max(86_400).default(60),
  /** Most requests in one batch (OpenAI takes 50,000 per file, Anthropic 100,000 per batch). @default 10000 */
  max_requests: z.number().int().positive().max(50_000).default(10_000),
  /** Seconds between two polls of a submitted batch. @default 30 */
  poll_interval_s: z.number().positive().max(3600).default(30),
  /** Longest wait for a submitted batch, seconds from its submission; unfinished items become timeouts. @default 86400 */
  max_wait_s: z.number().positive().max(7 * 86_400).default(86_400),
}).strict();
export type BatchSpec = z.infer<typeof BatchSpec>;

/** The dialects whose provider has a batch API the runner speaks (runner/batch/). */
export const BATCH_DIALECTS = ["openai-chat", "anthropic-messages"] as const;

/** One route: a target, who serves it, its price sheet and its limits. */
export const RouteSpec = z.object({
  /**
   * Base URL of the provider (or the full endpoint): an OpenAI-compatible server's, or the hosted API's of the
   * route's dialect.
   */
  url: z.string().min(1),
  /**
   * How the provider is spoken to (runner/dialects/, docs/dialects/): `openai-chat` (the default), `openai-responses`,
   * `anthropic-messages`, `gemini`, `bedrock-converse`, `azure-openai`. Checked against the dialects the runner has.
   */
  dialect: z.string().min(1).optional(),
  /** The dialect's own options (api version, deployment, region, service tier…), each checked by the dialect. */
  dialect_options: z.record(z.string(), z.unknown()).optional(),
  provider: z.string().min(1),
  /** Model name sent in the request body and written to `attempts.model`. */
  model: z.string().min(1),
  /** Environment variable holding this route's API key (the key never reaches disk). */
  api_key_env: z.string().min(1).optional(),
  /** Price sheet that prices this route (informational: costs are computed at analysis time). */
  price_sheet: z.string().min(1).optional(),
  limits: RouteLimits.prefault({}),
  /**
   * Makes this a batch route (docs/batch.md): its requests go through the provider's batch API, not one call each.
   * Dialects `openai-chat` (OpenAI Batch) and `anthropic-messages` (Message Batches) only.
   */
  batch: BatchSpec.optional(),
}).strict().superRefine((r, ctx) => {
  if (r.batch && !(BATCH_DIALECTS as readonly string[]).includes(r.dialect ?? "openai-chat")) {
    ctx.addIssue({
      code: "custom",
      path: ["batch"],
      message: `dialect ${r.dialect} has no batch API here; a batch route speaks ${BATCH_DIALECTS.join(" or ")}`,
    });
  }
});
export type RouteSpec = z.infer<typeof RouteSpec>;

/** Failures a fallback policy moves on for: HTTP 429, a timeout, or a 5xx/transport error. */
export const FallbackTrigger = z.enum(["error", "timeout", "429"]);
export type FallbackTrigger = z.infer<typeof FallbackTrigger>;

/** How each request picks its route. */
export const RoutingPolicy = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("single"), route: routeName }).strict(),
  z.object({
    kind: z.literal("fallback"),
    primary: routeName,
    /** Tried in order, each once the previous one failed with a trigger. */
    fallbacks: z.array(routeName).min(1),
    on: z.array(FallbackTrigger).min(1).default(["error", "timeout", "429"]),
  }).strict(),
  z.object({
    kind: z.literal("split_by_class"),
    /** Class → route; classes not listed go to `default`. */
    classes: z.record(z.string(), routeName),
    default: routeName,
  }).strict(),
  z.object({
    kind: z.literal("split_by_percent"),
    /** Route → relative weight; a request's route is a seeded hash of its request_id. */
    weights: z.record(routeName, z.number().nonnegative()),
    /** Seed of the hash. @default 0 */
    seed: z.number().int().nonnegative().default(0),
  }).strict(),
]);
export type RoutingPolicy = z.infer<typeof RoutingPolicy>;

/** Every route name a policy refers to, with the field that names it. */
export function policyRoutes(p: RoutingPolicy): [string, (string | number)[]][] {
  switch (p.kind) {
    case "single":
      return [[p.route, ["route"]]];
    case "fallback":
      return [
        [p.primary, ["primary"]],
        ...p.fallbacks.map((r, i): [string, (string | number)[]] => [r, ["fallbacks", i]]),
      ];
    case "split_by_class":
      return [...Object.entries(p.classes).map(([c, r]): [string, (string | number)[]] => [r, ["classes", c]]), [
        p.default,
        ["default"],
      ]];
    case "split_by_percent":
      return Object.keys(p.weights).map((r): [string, (string | number)[]] => [r, ["weights", r]]);
  }
}

/**
 * A routes file (`data/routes/*.json`, `--routes`): named routes and the
 * policy that sends each request to one of them. Every route the policy
 * names must be defined; a fallback chain names each route once; percent
 * weights must not all be zero.
 */
export const RoutesFile = z.object({
  name: z.string().min(1),
  description: z.string().default(""),
  routes: z.record(routeName, RouteSpec),
  policy: RoutingPolicy,
}).strict().superRefine((f, ctx) => {
  const names = Object.keys(f.routes);
  if (names.length === 0) ctx.addIssue({ code: "custom", path: ["routes"], message: "at least one route is needed" });
  for (const [name, path] of policyRoutes(f.policy)) {
    if (!(name in f.routes)) {
      ctx.addIssue({
        code: "custom",
        path: ["policy", ...path],
        message: `no route "${name}" (routes: ${names.join(", ") || "none"})`,
      });
    }
  }
  const p = f.policy;
  if (p.kind === "fallback") {
    const chain = [p.primary, ...p.fallbacks];
    chain.forEach((r, i) => {
      if (chain.indexOf(r) !== i) {
        ctx.addIssue({
          code: "custom",
          path: ["policy", "fallbacks", i - 1],
          message: `"${r}" is already in the chain`,
        });
      }
    });
  }
  if (p.kind === "fallback") {
    // A batch item is never retried inside the run, so a chain cannot move past (or onto) a batch route.
    for (const [name, path] of policyRoutes(p)) {
      if (f.routes[name]?.batch) {
        ctx.addIssue({
          code: "custom",
          path: ["policy", ...path],
          message: `"${name}" is a batch route: a fallback chain cannot hold one (batch items are not retried)`,
        });
      }
    }
  }
  if (p.kind === "split_by_percent" && !Object.values(p.weights).some((w) => w > 0)) {
    ctx.addIssue({ code: "custom", path: ["policy", "weights"], message: "at least one weight must be above 0" });
  }
});
export type RoutesFile = z.infer<typeof RoutesFile>;

/** Reads and validates a routes file; an {@linkcode InputError} names the file and every bad field. */
export function loadRoutesFile(path: string): Promise<RoutesFile> {
  return loadJsonFile(path, RoutesFile, "routes file");
}
