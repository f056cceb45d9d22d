import type { OverheadSheet } from "../../schema/prices.ts";
import type { EvaluationCharges } from "./price_overheads.ts";

/** How every cost in a ledger is computed, in words: printed with each ledger. */
export function ledgerRules(
  overheads: OverheadSheet | null,
  evaluation: Pick<EvaluationCharges, "judge" | "human_review">,
): string[] {
  const review = overheads?.human_review;
  const rec = evaluation.human_review;
  return [
    "costs are priced at analysis time: the log's usage × the price sheet; another sheet re-prices the same log without re-running",
    "scope: the attempts and tool calls of the requests scheduled in the goodput window; self-hosted replica time as the gpu_time rule below says",
    "cost_per_accepted_task = (provider_or_gpu + retries + retrieval + tools + storage + observability + judge + human_review + allocated_operations) / accepted tasks; " +
    "failed attempts, retries, the judge and review stay in the numerator, only accepted tasks (as in goodput) in the denominator",
    "hosted routes: uncached input = input_tokens − cached_input_tokens, cached input and output tokens per attempt at the route's service tier; " +
    "a context tier prices the whole attempt when its input is above the tier's threshold",
    "service tiers: each hosted attempt is priced at the tier its answer says served it (attempts service_tier, contract 1.7), else at " +
    "the sheet's service_tier; a tier of the entry's tiers at its own prices (and its own context tiers), standard at the base prices, " +
    "batch and a tier of tier_multipliers at the base prices × their factor, a served tier the sheet does not name at the base prices " +
    "(said so on its lines); the disclosure counts the charged attempts of each route by the tier prices that applied",
    "reasoning and cache writes: with reasoning_per_mtok set, an attempt's reasoning_tokens (which the target counts inside output_tokens) are " +
    "billed at it and output_tokens − reasoning_tokens at output_per_mtok, each token once; with cache_write_per_mtok set, cache_write_tokens " +
    "(inside input_tokens) are billed at it and uncached input = input − cached − cache writes; an attempt whose count is null (not reported " +
    "by the target) is billed wholly at the output (input) price on a line that says so, and a warning counts them; neither price set: both " +
    "are billed as output and input",
    "attempt billing categories: rejected = HTTP 429; cancelled = aborted by the client (attempt/request/idle timeout, run stop); served = any other 2xx; " +
    "failed = everything else; served attempts are always charged, the others as the sheet's charge terms say (uncharged ones are listed at 0)",
    "retries = attempts after the first of their round, on whatever route (fallbacks included); on self-hosted routes they cost GPU time, already in provider_or_gpu",
    "self-hosted routes: GPU-hours = Σ (replicas + replicas_warming) × row seconds × GPUs per replica of the server rows, split busy = " +
    "min(running, replicas), idle = max(replicas − running, 0) (serving replicas with no running sequence at the row's sample) and " +
    "warming = replicas_warming (provisioning or loading); spread over requests by their input + output tokens on that target",
    'self-hosted time (gpu_time "run", the default): paid from the run\'s start (ms 0) to its end (run.json result.ended_ms); rows whose ' +
    "t_ms is in the window are charged to it, and the time outside every measured stage (warm-up, drain, pauses, after the last stage) is " +
    "allocated to the measured stages in proportion to their seconds — all of it to a ledger's window, its seconds' share to a knee level; " +
    'spare replicas and deployment operations over the same time; gpu_time "window" charges the window\'s rows only and lists the outside ' +
    "share at price 0",
    "tool and retrieval calls are charged per call, failed ones included; storage and observability per sent request",
    evaluation.judge.length
      ? "judge: a model judge's tokens as recorded in the quality table (every call: retries and items left unjudged " +
        "included) × its model's price per million (overheads evaluation.judge_models; a model without one is NOT " +
        "PRICED, at 0 with a warning); each verdict's own tokens charged to its request, the tokens of calls on items " +
        "left unjudged (the part's totals − its verdicts' sum) in an equal share per judged item of the part; verdicts " +
        "outside the window not charged"
      : "judge: none (no judge verdict in the run's quality table)",
    rec.basis === "recorded"
      ? `human review: recorded minutes (basis recorded): Σ time_spent_ms of the human:* and adjudicated:* verdicts on the ` +
        `window's requests (${rec.verdicts_in_window} of ${rec.verdicts}, ${
          Math.round(rec.minutes * 100) / 100
        } min) × ` +
        `${review ? `the hourly ${review.hourly}` : "price 0 (no overheads sheet)"}, each charged to its request; ` +
        "they replace the expected-count estimate; a verdict that records no time is not charged"
      : review
      ? `human review: expected counts (basis expected, no human verdict recorded): reviews = ${review.sample_rate} × ` +
        `${review.basis} tasks; corrections = ${review.correction_rate} × reviews`
      : "human review: not priced (no overheads sheet, no human verdict recorded)",
    "allocated operations: per hour of the measurement window, spread evenly over the offered requests",
    "naive figures (what a price calculator gives): model bill (provider_or_gpu + retries) / sent requests, and / charged tokens × 1e6",
  ];
}
