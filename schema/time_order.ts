/**
 * The order of a row's times: every time of the log is read from one monotonic clock (DESIGN.md), so within a row a
 * later event never holds an earlier time. A row against it would give a latency below 0 — a request "completed"
 * before the user's action passes every latency limit — so the readers refuse it (analysis/run/_row_checks.ts, and
 * the SQL path's analysis/sql/_sql_checks.ts), naming the file, the two columns and a request id.
 *
 * @module
 */
import type { TableName } from "./events.ts";

/** One rule: `later` is null or ≥ `earlier` (a null `earlier` leaves it unchecked). */
export interface TimeOrder {
  later: string;
  earlier: string;
}

/**
 * The rules per table: a request's send, first token and completion not before its action; an attempt's headers,
 * first token and completion not before its send, and its last token not before its first; a tool step not ending
 * before it started.
 */
export const TIME_ORDER: Partial<Record<TableName, readonly TimeOrder[]>> = {
  requests: [
    { later: "first_sent_ms", earlier: "scheduled_ms" },
    { later: "first_token_ms", earlier: "scheduled_ms" },
    { later: "completed_ms", earlier: "scheduled_ms" },
  ],
  attempts: [
    { later: "headers_ms", earlier: "sent_ms" },
    { later: "first_token_ms", earlier: "sent_ms" },
    { later: "last_token_ms", earlier: "first_token_ms" },
    { later: "completed_ms", earlier: "sent_ms" },
  ],
  tools: [{ later: "ended_ms", earlier: "started_ms" }],
};

/** The problem of `n` rows of `file` against `rule`, `example` one of their request ids. */
export function timeOrderProblem(file: string, rule: TimeOrder, n: number, example: unknown): string {
  return `${file}: ${rule.later}: ${n} rows before their ${rule.earlier} (e.g. request_id ${
    JSON.stringify(example)
  }): the log's times come from one clock, so a later event never holds an earlier time`;
}

/**
 * The rules `rows` of `table` break: one problem per rule with rows out of order, naming `file`, the count and the
 * first such row's request id (rows not yet written, e.g. an import's, checked before they are).
 */
export function rowsTimeOrderProblems(
  file: string,
  table: TableName,
  rows: readonly Record<string, unknown>[],
): string[] {
  const problems: string[] = [];
  for (const rule of TIME_ORDER[table] ?? []) {
    let n = 0, first: unknown = null;
    for (const r of rows) {
      const later = r[rule.later], earlier = r[rule.earlier];
      if (typeof later === "number" && typeof earlier === "number" && later < earlier && n++ === 0) {
        first = r.request_id;
      }
    }
    if (n > 0) problems.push(timeOrderProblem(file, rule, n, first));
  }
  return problems;
}
