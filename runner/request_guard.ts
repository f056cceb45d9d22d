/**
 * The last resort of a request's flow (runner/request_flow.ts): an exception
 * nobody expected becomes that request's row, never a lost run.
 *
 * @module
 */
import type { AttemptRow, RequestRow, WorkloadCase } from "../schema/mod.ts";
import { type FlowContext, offeredRow, type PlannedRequest } from "./request_flow.ts";

/** What a request has written so far, so that a failure mid-way writes each row exactly once. */
export interface Written {
  /** How many of `attemptRows` are in the log (they are appended in order at the end). */
  attemptsAppended: number;
  request: boolean;
  attemptRows: AttemptRow[];
  /** Token counts of attempt rows still being filled in. */
  counting: Promise<void>[];
}

/** One request on its way through the flow: the planned request, its case, when it started, what it wrote. */
export interface RequestInFlight {
  req: PlannedRequest;
  c: WorkloadCase;
  startedMs: number;
  written: Written;
}

/**
 * The last resort: an exception nobody expected inside one request's flow
 * becomes that request's row (outcome `invalid_response`, error kind
 * `runner_error:<error name>`), with the attempt rows it had, and one line on
 * stderr naming the request; the run goes on.
 */
export async function recordRunnerError(ctx: FlowContext, flight: RequestInFlight, err: unknown): Promise<RequestRow> {
  const { req, c, startedMs, written } = flight;
  const name = err instanceof Error ? err.name : typeof err;
  console.error(`error: request ${req.request_id}: runner error, recorded as invalid_response: ${String(err)}`);
  // Its row is already in the log (cannot happen: appending it is the last step); never a second row.
  if (written.request) throw err;
  const row = offeredRow(
    { runId: ctx.runId, route: "", stream: ctx.stream(c.class) },
    req,
    c,
    startedMs - req.scheduled_ms,
  );
  // Never a rejection left unhandled: counts that fail leave their rows as they were.
  await Promise.allSettled(written.counting);
  const rows = written.attemptRows;
  const attempts = [
    ...rows.slice(0, written.attemptsAppended),
    ...rows.slice(written.attemptsAppended).filter((a) => tryAppend(ctx, a)),
  ];
  row.route = attempts.at(-1)?.route ?? firstRoute(ctx, req, c);
  row.attempts = attempts.length;
  row.first_sent_ms = attempts.length ? Math.min(...attempts.map((a) => a.sent_ms)) : null;
  row.outcome = "invalid_response";
  row.error_kind = `runner_error:${name}`.slice(0, 64);
  ctx.sinks.requests.append(row);
  return row;
}

function tryAppend(ctx: FlowContext, a: AttemptRow): boolean {
  try {
    ctx.sinks.attempts.append(a);
    return true;
  } catch {
    return false;
  }
}

function firstRoute(ctx: FlowContext, req: PlannedRequest, c: WorkloadCase): string {
  try {
    return ctx.router.chain(req.request_id, c.class)[0]?.route ?? "";
  } catch {
    return "";
  }
}
