/**
 * One item judged to its end: calls until a reply is a verdict, retrying a failed call — an error status of 429, 408
 * or 5xx, a timeout, a transport error, a reply that is not the contract — at most `retries` times and only while the
 * run-wide budget lasts; after Retry-After on a 429 or 503 (at most {@linkcode MAX_RETRY_AFTER_MS}), else after an
 * exponential backoff with full jitter. A stop ends it at once. Every call is kept, with its time and tokens.
 *
 * @module
 */
import type { NetAllowList } from "../net_allow.ts";
import { fullJitterBackoff } from "../retry.ts";
import { judgeCall, type JudgeCallResult } from "./call.ts";
import type { JudgeItem } from "./inputs.ts";
import type { JournalCall, JournalItem } from "./journal.ts";
import { judgeMessages } from "./prompt.ts";
import { readJudgeReply } from "./reply.ts";
import type { RetryBudget } from "./retry_budget.ts";

/** The longest Retry-After honoured, ms: a longer wait asked for is cut to it. */
export const MAX_RETRY_AFTER_MS = 300_000;
/** The backoff between retries without Retry-After: full jitter over base × 2^(retry − 1), capped. */
export const JUDGE_BACKOFF = { base_ms: 500, cap_ms: 20_000 } as const;

/** What every item of a session is judged with. */
export interface JudgeItemContext {
  url: URL;
  allow: NetAllowList;
  key: string | null;
  model: string;
  maxTokens: number;
  timeoutMs: number;
  /** Retries per item. */
  retries: number;
  budget: RetryBudget;
  /** Aborted on a stop. */
  signal: AbortSignal;
  /** Told of every call as it ends (progress, the first failure of each kind). */
  onCall?: (r: JudgeCallResult & { failure: string | null }) => void;
  /** The backoff before retry `n` (1, 2, …), ms. @default full jitter of {@linkcode JUDGE_BACKOFF} */
  backoffMs?: (n: number) => number;
}

/** What is retried: the endpoint may answer the next call. */
export function retryable(failure: string): boolean {
  return /^http_(429|408|5\d\d)$/.test(failure) ||
    ["timeout", "transport_error", "bad_response", "reply_not_json", "reply_off_contract"].includes(failure);
}

/** Waits `ms` unless `signal` aborts first: true when the wait ran its course. */
export function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      resolve(ok);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), Math.max(0, ms));
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** The request body of a judge call: temperature 0, a JSON object asked for, the output cap. */
export function judgeBody(item: JudgeItem, model: string, maxTokens: number): string {
  return JSON.stringify({
    model,
    messages: judgeMessages(item.rubric, item.conversation, item.answer),
    response_format: { type: "json_object" },
    temperature: 0,
    max_tokens: maxTokens,
  });
}

/** Judges one item; the result is its journal entry less the schedule fields. */
export async function judgeItem(
  item: JudgeItem,
  ctx: JudgeItemContext,
): Promise<Pick<JournalItem, "calls" | "verdict" | "reason">> {
  const body = judgeBody(item, ctx.model, ctx.maxTokens);
  const calls: JournalCall[] = [];
  const backoff = ctx.backoffMs ?? ((n: number) => fullJitterBackoff(JUDGE_BACKOFF, n, Math.random));
  for (let retry = 0;; retry++) {
    if (ctx.signal.aborted) return { calls, verdict: null, reason: "stopped" };
    const r = await judgeCall({
      url: ctx.url,
      allow: ctx.allow,
      key: ctx.key,
      body,
      timeoutMs: ctx.timeoutMs,
      signal: ctx.signal,
    });
    let failure = r.failure;
    let verdict: JournalItem["verdict"] = null;
    if (failure === null) {
      const read = readJudgeReply(r.text ?? "", item.rubric);
      if (read.ok) {
        verdict = { scores: read.scores, pass: read.pass, rationale: read.rationale, judged_epoch_ms: Date.now() };
      } else {
        failure = read.kind;
        r.detail = read.problem;
      }
    }
    calls.push({
      ms: Math.round(r.ms * 10) / 10,
      failure,
      reply: r.reply,
      input_tokens: r.reply ? r.usage?.input_tokens ?? null : 0,
      output_tokens: r.reply ? r.usage?.output_tokens ?? null : 0,
    });
    ctx.onCall?.({ ...r, failure });
    if (verdict) return { calls, verdict, reason: null };
    if (failure === null || failure === "stopped") return { calls, verdict: null, reason: "stopped" };
    if (!retryable(failure) || retry >= ctx.retries) return { calls, verdict: null, reason: failure };
    if (!ctx.budget.take()) return { calls, verdict: null, reason: `${failure} (retry budget spent)` };
    const wait = r.retryAfterMs !== null ? Math.min(r.retryAfterMs, MAX_RETRY_AFTER_MS) : backoff(retry + 1);
    if (!(await pause(wait, ctx.signal))) return { calls, verdict: null, reason: "stopped" };
  }
}
