/**
 * What every peer exporter needs from our own rows: which requests a peer tool would have recorded at all, whether
 * it would call one a success, when a row ended, and the statistics the tools print (numpy's linear percentile).
 *
 * @module
 */
import type { AttemptRow, RequestRow } from "../../schema/events.ts";

/** The run's clock: epoch ms of our ms 0. */
export const epochMs = (epochIso: string): number => Date.parse(epochIso);

/**
 * The rows a peer tool would have a record of: sent ones (a never-sent row has no counterpart in a tool that only
 * records what it sent), in send order.
 */
export function sentRows(rows: readonly RequestRow[]): RequestRow[] {
  return rows.filter((r) => r.first_sent_ms !== null).sort((a, b) => a.first_sent_ms! - b.first_sent_ms!);
}

/**
 * A peer tool's success: an answer streamed to its end (our `ok`). The tools check no content, so an `ok` row whose
 * quality, schema or safety gate failed is a success to them too; a malformed answer (`invalid_response`) is a
 * failure to them as to us (their stream parser throws).
 */
export const answered = (r: RequestRow): boolean =>
  r.outcome === "ok" && r.first_token_ms !== null && r.completed_ms !== null;

/** The text a peer tool keeps for a failed row: our outcome and error kind (`http_error: http_503`). */
export const failureText = (r: RequestRow): string => r.error_kind ? `${r.outcome}: ${r.error_kind}` : r.outcome;

/**
 * Decode gaps spread evenly: our rows keep no per-token times, so `n` output tokens after the first get
 * `n − 1` equal gaps summing to the decode time (first token → completion). Fewer than 2 tokens: no gap.
 */
export function evenGaps(decodeMs: number, outputTokens: number): number[] {
  if (outputTokens < 2) return [];
  return Array.from({ length: outputTokens - 1 }, () => decodeMs / (outputTokens - 1));
}

/** numpy.percentile with its default linear interpolation, over values sorted ascending; 0 for none (numpy of [0]). */
export function npPercentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const pos = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

/** numpy.mean, numpy.median, numpy.std (population) and numpy.percentile(99) of values (0 for none). */
export function npSummary(values: readonly number[]): { mean: number; median: number; std: number; p99: number } {
  const s = [...values].sort((a, b) => a - b);
  if (!s.length) return { mean: 0, median: 0, std: 0, p99: 0 };
  const mean = s.reduce((a, b) => a + b, 0) / s.length;
  const std = Math.sqrt(s.reduce((a, b) => a + (b - mean) ** 2, 0) / s.length);
  return { mean, median: npPercentile(s, 50), std, p99: npPercentile(s, 99) };
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
