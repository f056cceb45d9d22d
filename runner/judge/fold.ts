/**
 * A finished journal folded into the judge's part of the quality table: one verdict row per judged item — its tokens,
 * time and calls summed over every call for it in every session, failed and retried calls included — and the part's
 * `details`: the model, endpoint and settings, the items judged and not (with the reasons counted), and the calls and
 * tokens of ALL calls, those of unjudged items too.
 *
 * @module
 */
import { InputError } from "../../schema/errors.ts";
import type { QualityRow } from "../../schema/quality.ts";
import type { JudgeItem } from "./inputs.ts";
import type { JournalCall, JournalEntry, JournalItem, JournalSession } from "./journal.ts";

/** How many unjudged request ids `details` lists (the count is always whole). */
export const MAX_LISTED_UNJUDGED = 100;

/** The rows and details of a judge's part. */
export interface FoldedJudge {
  rows: QualityRow[];
  details: Record<string, unknown>;
}

/** Tokens of calls: the replies' usage summed, null when a reply carried none; calls without a reply count 0. */
function tokens(calls: readonly JournalCall[], field: "input_tokens" | "output_tokens"): number | null {
  let sum = 0;
  for (const c of calls) {
    const v = c[field];
    if (v === null) return null;
    sum += v;
  }
  return sum;
}

const countInto = (m: Record<string, number>, key: string) => {
  m[key] = (m[key] ?? 0) + 1;
};

/**
 * Folds `entries` (a journal's, every session) over `items` (the run's judge items, in order). A verdict scored by
 * another rubric than the item's now, a second verdict on one item, or an entry for a request that is not an item is
 * an {@linkcode InputError}: the journal is not of this judging.
 *
 * @example Two sessions, one item: a 429 then a verdict; the row counts both calls
 * ```ts
 * import { foldJudgeJournal } from "./fold.ts";
 * import assert from "node:assert/strict";
 * const rubric = { rubric_id: "r", sha256: "a".repeat(64) } as never;
 * const items = [{ request_id: "q1", case_id: "c", rubric, conversation: [], answer: "x" }];
 * const session = { type: "session", model: "m", run_id: "run", target: "http://127.0.0.1:1", started_iso:
 *   "2026-01-01T00:00:00.000Z", rate_per_s: 2, max_in_flight: 4, retries: 2, retry_budget: 0.2, max_tokens: 512,
 *   timeout_s: 60, items: 1 } as const;
 * const item = { type: "item", request_id: "q1", rubric_id: "r", rubric_sha256: "a".repeat(64), start_lag_ms: 0,
 *   waited_for_slot: false } as const;
 * const folded = foldJudgeJournal([
 *   session,
 *   { ...item, calls: [{ ms: 5, failure: "http_429", reply: false, input_tokens: 0, output_tokens: 0 }],
 *     verdict: null, reason: "stopped" },
 *   session,
 *   { ...item, calls: [{ ms: 20, failure: null, reply: true, input_tokens: 300, output_tokens: 40 }],
 *     verdict: { scores: { ok: 1 }, pass: true, rationale: "Fine.", judged_epoch_ms: 1 }, reason: null },
 * ], items, { runId: "run", model: "m" });
 * assert.equal(folded.rows[0]!.calls, 2);
 * assert.equal(folded.rows[0]!.time_spent_ms, 25);
 * assert.equal(folded.rows[0]!.input_tokens, 300);
 * assert.equal(folded.details.failed_calls, 1);
 * ```
 */
export function foldJudgeJournal(
  entries: readonly JournalEntry[],
  items: readonly JudgeItem[],
  o: { runId: string; model: string },
): FoldedJudge {
  const byRequest = new Map<string, JournalItem[]>();
  const sessions: { session: JournalSession; ended_iso: string | null; stopped: boolean | null }[] = [];
  for (const e of entries) {
    if (e.type === "item") byRequest.set(e.request_id, [...byRequest.get(e.request_id) ?? [], e]);
    else if (e.type === "session") sessions.push({ session: e, ended_iso: null, stopped: null });
    else if (sessions.length) Object.assign(sessions.at(-1)!, { ended_iso: e.ended_iso, stopped: e.stopped });
  }
  const problems: string[] = [];
  const known = new Set(items.map((i) => i.request_id));
  for (const id of byRequest.keys()) if (!known.has(id)) problems.push(`request ${id} is not an item to judge`);
  const rows: QualityRow[] = [];
  const reasons: Record<string, number> = {};
  const failures: Record<string, number> = {};
  const unjudged: string[] = [];
  const all: JournalCall[] = [];
  let late = 0, maxLag = 0;
  for (const item of items) {
    const mine = byRequest.get(item.request_id) ?? [];
    const calls = mine.flatMap((e) => e.calls);
    all.push(...calls);
    for (const e of mine) {
      if (e.waited_for_slot) late++;
      maxLag = Math.max(maxLag, e.start_lag_ms);
    }
    const verdicts = mine.filter((e) => e.verdict);
    if (verdicts.length > 1) problems.push(`request ${item.request_id} has ${verdicts.length} verdicts`);
    const v = verdicts[0];
    if (!v?.verdict) {
      unjudged.push(item.request_id);
      countInto(reasons, mine.at(-1)?.reason ?? "not_tried");
      continue;
    }
    if (v.rubric_sha256 !== item.rubric.sha256) {
      problems.push(
        `request ${item.request_id} was scored by rubric ${v.rubric_id} ${v.rubric_sha256.slice(0, 12)}, the ` +
          `workload's is ${item.rubric.rubric_id} ${item.rubric.sha256.slice(0, 12)}`,
      );
      continue;
    }
    rows.push({
      run_id: o.runId,
      request_id: item.request_id,
      source: `judge:${o.model}`,
      rubric_id: item.rubric.rubric_id,
      rubric_sha256: item.rubric.sha256,
      scores: JSON.stringify(v.verdict.scores),
      pass: v.verdict.pass,
      rationale: v.verdict.rationale,
      time_spent_ms: Math.round(calls.reduce((s, c) => s + c.ms, 0) * 10) / 10,
      judged_epoch_ms: v.verdict.judged_epoch_ms,
      input_tokens: tokens(calls, "input_tokens"),
      output_tokens: tokens(calls, "output_tokens"),
      calls: calls.length,
    });
  }
  if (problems.length) {
    throw new InputError("the judge's journal does not fit this run's items (remove it to judge again)", problems);
  }
  for (const c of all) if (c.failure) countInto(failures, c.failure);
  const withoutUsage = all.filter((c) => c.reply && c.input_tokens === null).length;
  const last = sessions.at(-1)?.session;
  const sum = (f: "input_tokens" | "output_tokens") => all.reduce((s, c) => s + (c[f] ?? 0), 0);
  return {
    rows,
    details: {
      model: o.model,
      target: last?.target ?? null,
      rate_per_s: last?.rate_per_s ?? null,
      max_in_flight: last?.max_in_flight ?? null,
      retries: last?.retries ?? null,
      retry_budget: last?.retry_budget ?? null,
      max_tokens: last?.max_tokens ?? null,
      timeout_s: last?.timeout_s ?? null,
      items: items.length,
      judged: rows.length,
      unjudged: {
        items: unjudged.length,
        reasons,
        request_ids: unjudged.slice(0, MAX_LISTED_UNJUDGED),
        ...(unjudged.length > MAX_LISTED_UNJUDGED ? { listed: `the first ${MAX_LISTED_UNJUDGED}` } : {}),
      },
      calls: all.length,
      failed_calls: all.filter((c) => c.failure !== null).length,
      failures,
      calls_without_reply: all.filter((c) => !c.reply).length,
      replies_without_usage: withoutUsage,
      input_tokens: sum("input_tokens"),
      output_tokens: sum("output_tokens"),
      tokens_note: withoutUsage
        ? `${withoutUsage} replies carried no usage: the token totals leave them out (a lower bound), and the rows ` +
          "of their items have null tokens"
        : "the replies' usage over every call; a call that got no reply (an error status, a timeout) counts 0",
      late_starts: late,
      max_start_lag_ms: Math.round(maxLag * 10) / 10,
      sessions: sessions.map((s) => ({
        started_iso: s.session.started_iso,
        ended_iso: s.ended_iso,
        target: s.session.target,
        items: s.session.items,
        stopped: s.stopped,
      })),
      started_iso: sessions[0]?.session.started_iso ?? null,
      ended_iso: sessions.at(-1)?.ended_iso ?? null,
    },
  };
}
