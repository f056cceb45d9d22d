/**
 * What the peer exporters share: which of our rows a peer tool would have recorded, and when a row ended.
 *
 * @module
 */
import type { AttemptRow, RequestRow } from "../../schema/events.ts";

/** Rows the runner sent: a peer tool records a request only once it has sent it (never-sent rows are dropped). */
export function sentRows(rows: readonly RequestRow[]): RequestRow[] {
  return rows.filter((r) => r.first_sent_ms !== null);
}

/**
 * When a row ended, in run ms: its `completed_ms`, else (a failure) the latest end its attempts recorded
 * (completed, last token, headers, first token, sent — the first one known), else its send time.
 */
export function endMs(row: RequestRow, attempts: readonly AttemptRow[] = []): number {
  if (row.completed_ms !== null) return row.completed_ms;
  let end = row.first_sent_ms ?? row.scheduled_ms;
  for (const a of attempts) {
    if (a.request_id !== row.request_id) continue;
    const t = a.completed_ms ?? a.last_token_ms ?? a.headers_ms ?? a.first_token_ms ?? a.sent_ms;
    end = Math.max(end, t);
  }
  return end;
}

/** The label a peer tool would write for a failed row: the HTTP status when there is one, else our error kind. */
export function failureLabel(row: RequestRow): string {
  return row.error_kind ?? row.outcome;
}
