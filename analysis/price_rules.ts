import type { OverheadSheet } from "../schema/prices.ts";

/** How every cost in a ledger is computed, in words: printed with each ledger. */
export function ledgerRules(overheads: OverheadSheet | null): string[] {
  const review = overheads?.human_review;
  return [
    "costs are priced at analysis time: the log's usage × the price sheet; another sheet re-prices the same log without re-running",
    "scope: the attempts and tool calls of the requests scheduled in the goodput window, and server timeline rows whose t_ms is in it",
    "cost_per_accepted_task = (provider_or_gpu + retries + retrieval + tools + storage + observability + human_review + allocated_operations) / accepted tasks; " +
    "failed attempts, retries and review stay in the numerator, only accepted tasks (as in goodput) in the denominator",
    "hosted routes: uncached input = input_tokens − cached_input_tokens, cached input and output tokens per attempt at the route's service tier; " +
    "a context tier prices the whole attempt when its input is above the tier's threshold",
    "attempt billing categories: rejected = HTTP 429; cancelled = aborted by the client (attempt/request/idle timeout, run stop); served = any other 2xx; " +
    "failed = everything else; served attempts are always charged, the others as the sheet's charge terms say (uncharged ones are listed at 0)",
    "retries = attempts after the first of their round, on whatever route (fallbacks included); on self-hosted routes they cost GPU time, already in provider_or_gpu",
    "self-hosted routes: GPU-hours = Σ (replicas + replicas_warming) × row seconds × GPUs per replica over the window (idle and warming capacity is paid for), " +
    "plus spare replicas for redundancy; spread over requests by their input + output tokens on that target",
    "tool and retrieval calls are charged per call, failed ones included; storage and observability per sent request",
    review
      ? `human review: expected reviews = ${review.sample_rate} × ${review.basis} tasks; corrections = ${review.correction_rate} × reviews`
      : "human review: not priced (no overheads sheet)",
    "allocated operations: per hour of the measurement window, spread evenly over the offered requests",
    "naive figures (what a price calculator gives): model bill (provider_or_gpu + retries) / sent requests, and / charged tokens × 1e6",
  ];
}
