/**
 * Batch routes (docs/batch.md): a route with `batch` in the routes file sends
 * its requests through the provider's batch API. This module picks the
 * provider's batch API for a route's dialect and runs one round of a request
 * as a batch item.
 *
 * @module
 */
import { InputError } from "../../schema/errors.ts";
import { BATCH_DIALECTS } from "../../schema/routes.ts";
import type { AttemptResult, AttemptTarget } from "../attempt.ts";
import type { RoundResult } from "../fallback.ts";
import { anthropicBatchProvider } from "./anthropic_batch.ts";
import { batchAttemptRow, readBatchItem } from "./batch_row.ts";
import type { RouteBatcher } from "./batcher.ts";
import { openaiBatchProvider } from "./openai_batch.ts";
import type { BatchProvider } from "./provider.ts";

export { BatchRoom, RouteBatcher } from "./batcher.ts";
export { batchAttemptRow, readBatchItem } from "./batch_row.ts";
export type { BatchProvider } from "./provider.ts";

/** The batch API of a route's dialect (`openai-chat`: OpenAI Batch; `anthropic-messages`: Message Batches). */
export function batchProviderFor(target: AttemptTarget, where: string): BatchProvider {
  const { dialect, prepared } = target;
  switch (dialect.name) {
    case "openai-chat":
      return openaiBatchProvider(prepared.url(false), prepared.headers);
    case "anthropic-messages":
      return anthropicBatchProvider(prepared.url(false), prepared.headers);
  }
  throw new InputError(
    `${where}.batch: dialect ${dialect.name} has no batch API here; a batch route speaks ${
      BATCH_DIALECTS.join(" or ")
    }`,
  );
}

/** One round of a request on a batch route. */
export interface BatchRoundRequest {
  runId: string;
  requestId: string;
  round: number;
  /** The route's whole request body (its dialect's, built with `stream: false`). */
  body: string;
  /** The index in the request's chain of the batch route. */
  at: number;
  /** Receives the item's attempt. */
  settle: (r: AttemptResult) => void;
}

/**
 * Runs one round as a batch item: joins the route's open batch, waits for the item to be settled, reads its result
 * with the route's dialect and writes its one attempt row. The round's `limitWaitMs` is the wait from joining to the
 * batch's submission, so that the request's `send_lag_ms` is the client's own lateness in joining, not the batch
 * window (docs/batch.md).
 */
export async function batchRound(
  target: AttemptTarget & { batcher: RouteBatcher },
  req: BatchRoundRequest,
): Promise<RoundResult> {
  const { requestId, round } = req;
  const done = await target.batcher.join({ requestId, round, body: req.body });
  const read = readBatchItem(target, done.result, done.collectedMs ?? done.sentMs);
  const row = batchAttemptRow(req.runId, target, {
    requestId,
    round,
    sentMs: done.sentMs,
    collectedMs: done.collectedMs,
    read,
  });
  const r: AttemptResult = { row, state: read.state, limits: null, failure: read.failure };
  req.settle(r);
  return { ...r, firstSentMs: row.sent_ms, at: req.at, limitWaitMs: Math.max(0, done.sentMs - done.joinedMs) };
}
