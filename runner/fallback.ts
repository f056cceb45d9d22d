/**
 * One model round of a request: attempts with retries, falling back along
 * the request's route chain when the policy says so, and waiting on each
 * route's own limit before sending. The hot path of every request, so it
 * adds no work beyond a limiter check and, on a failure, a chain step.
 *
 * @module
 */
import type { AttemptRow, FallbackTrigger } from "../schema/mod.ts";
import type { AttemptContext, AttemptResult, AttemptTarget } from "./attempt.ts";
import { runAttempt } from "./attempt.ts";
import type { RetryController } from "./retry.ts";
import type { RouteLimiter } from "./route_limiter.ts";
import type { RouteBatcher } from "./batch/batcher.ts";
import type { RoutedFailure } from "./router.ts";
import { NO_PROVIDER_SIGNALS } from "./provider_signals.ts";

/**
 * A route as a request uses it: a target and, when the route has limits, its limiter; a batch route's batcher
 * (runner/batch/: its rounds join the route's batch instead of being sent).
 */
export interface FlowRoute extends AttemptTarget {
  limiter: RouteLimiter | null;
  batcher?: RouteBatcher | null;
}

/** Picks the routes of each request (runner/router.ts). */
export interface FlowRouter {
  /** The route a request starts on, then its fallbacks in order. */
  chain(requestId: string, cls: string): readonly FlowRoute[];
  /** The fallback trigger of a failure when the policy falls back on it, else null. */
  trigger(f: RoutedFailure): FallbackTrigger | null;
}

/** What a round needs from its run. */
export interface FallbackContext extends AttemptContext {
  router: FlowRouter;
  retry: RetryController;
}

/** One round of one request, as {@linkcode attemptWithFallback} runs it. */
export interface RoundRequest {
  requestId: string;
  round: number;
  /** The request's route chain: the route it starts on, then its fallbacks. */
  chain: readonly FlowRoute[];
  /** The index in `chain` of the route the round before ended on. */
  at: number;
  /** The request body for a route (its dialect and model). */
  bodyFor: (route: AttemptTarget) => string;
  stream: boolean;
  /** The request's deadline on the run clock. */
  deadlineMs: number;
  /** Receives every attempt as it ends (held-back ones included), in order. */
  settle: (r: AttemptResult) => void;
}

/**
 * A round's result, with the index in the chain of the route that ended it, its first attempt's `sent_ms`, and how
 * long that first attempt waited for its route's limit before it was sent (0 without a limit).
 */
export type RoundResult = AttemptResult & { firstSentMs: number | null; at: number; limitWaitMs: number };

/**
 * Runs one round to its end: sends, retries while the retry policy allows
 * and the deadline leaves room for the backoff (a retry counts when its
 * attempt is sent; one whose wait would reach the deadline is refused as
 * `retry_past_deadline`), and moves to the next route
 * of the chain when the failure is a fallback trigger.
 */
export async function attemptWithFallback(ctx: FallbackContext, req: RoundRequest): Promise<RoundResult> {
  const { requestId, round, chain, bodyFor, stream, deadlineMs, settle } = req;
  let at = req.at;
  let target = withKey(chain[at]!, `${ctx.runId}:${requestId}:${round}`);
  let body = bodyFor(target);
  let firstSentMs: number | null = null;
  let limitWaitMs = 0;
  for (let attempt = 1;; attempt++) {
    if (round === 0 && attempt === 1) ctx.retry.noteFirstAttempt();
    const limiter = chain[at]!.limiter;
    if (limiter) {
      const askedMs = ctx.clock.now();
      const granted = await limiter.acquire(deadlineMs);
      if (attempt === 1) limitWaitMs = ctx.clock.now() - askedMs;
      if (!granted) {
        // A retry held back by its route's limit was never sent: it gives its budget back.
        if (attempt > 1) ctx.retry.unsent();
        const held = heldBack(ctx, target, { requestId, round, attempt });
        settle(held);
        return { ...held, firstSentMs, at, limitWaitMs };
      }
    }
    if (attempt > 1) ctx.retry.sent();
    const r = await runAttempt(ctx, target, { requestId, round, attempt, body, stream, deadlineMs });
    limiter?.release();
    firstSentMs ??= r.row.sent_ms;
    settle(r);
    const trigger = r.failure && at + 1 < chain.length ? ctx.router.trigger(r.failure) : null;
    const roomMs = deadlineMs - ctx.clock.now();
    const decision = r.failure ? ctx.retry.decide(r.failure, attempt, trigger, roomMs) : null;
    if (decision?.retry) {
      r.row.retry_reason = decision.reason;
      r.row.backoff_ms = decision.backoffMs;
      if (trigger !== null) {
        target = withKey(chain[++at]!, target.prepared.headers["idempotency-key"]!);
        body = bodyFor(target);
      }
      await sleep(decision.backoffMs);
      continue;
    }
    if (decision && (decision.reason === "retry_budget_exhausted" || decision.reason === "retry_past_deadline")) {
      // The request's error_kind says why its last failure was not retried (the attempt row keeps its own kind).
      r.failure!.kind = `${r.failure!.kind}+${decision.reason}`;
    }
    return { ...r, firstSentMs, at, limitWaitMs };
  }
}

/** The route with the request's idempotency key added to its headers. */
function withKey(route: FlowRoute, key: string): AttemptTarget {
  const prepared = route.prepared;
  return { ...route, prepared: { ...prepared, headers: { ...prepared.headers, "idempotency-key": key } } };
}

/**
 * An attempt the route's own limit held back until the request deadline:
 * no HTTP call was made (no headers, no status), so the row says so with
 * `error_kind` `route_limit_wait` and the request ends as a timeout.
 */
function heldBack(
  ctx: FallbackContext,
  target: AttemptTarget,
  { requestId, round, attempt }: { requestId: string; round: number; attempt: number },
) {
  const state = target.dialect.newAnswer();
  const kind = "route_limit_wait";
  const row: AttemptRow = {
    run_id: ctx.runId,
    request_id: requestId,
    round,
    attempt,
    route: target.route,
    provider: target.provider,
    model: target.model,
    sent_ms: ctx.clock.now(),
    headers_ms: null,
    first_token_ms: null,
    last_token_ms: null,
    completed_ms: null,
    http_status: null,
    error_kind: kind,
    retry_reason: null,
    backoff_ms: null,
    input_tokens: 0,
    cached_input_tokens: 0,
    output_tokens: 0,
    token_source: null,
    finish_reason: null,
    itl_p50_ms: null,
    itl_max_ms: null,
    streamed: null,
    service_mode: null,
    reasoning_tokens: null,
    cache_write_tokens: null,
    retry_after_ms: null,
    ...NO_PROVIDER_SIGNALS,
  };
  return { row, state, limits: null, failure: { status: null, kind, outcome: "timeout" as const } };
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
