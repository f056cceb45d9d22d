/**
 * What the parent of `--workers` and its workers say to each other: one JSON
 * object per line, the worker on its stdout (`ready` once prepared, `progress`
 * every second, `end` once finalised), the parent on the worker's stdin
 * (`start` once every worker is ready, or `abort` when one failed before). A worker whose stdin closes stops as
 * on SIGTERM: its parent is gone. The worker's stderr is its own (warnings and
 * errors), shown by the parent with the worker's name.
 *
 * @module
 */
import { z } from "zod";
import { OUTCOMES } from "../../schema/events.ts";

/** The worker is prepared (inputs checked, targets probed, folder made) and waits for the start time. */
export const ReadyMessage = z.object({ type: z.literal("ready"), dir: z.string(), scheduled: z.number().int() })
  .strict();

/** The worker's progress line, as numbers (runner/progress.ts `ProgressSnapshot`). */
export const ProgressMessage = z.object({
  type: z.literal("progress"),
  t_s: z.number(),
  offered: z.number().int(),
  total: z.number().int(),
  in_flight: z.number().int(),
  done: z.number().int(),
  ok: z.number().int(),
  rejected: z.number().int(),
  errors: z.number().int(),
  not_sent: z.number().int(),
  shed: z.number().int(),
  lag_max_ms: z.number(),
}).strict();

/** The worker's run is finalised: its folder, its times and its counts (run.json `result`). */
export const EndMessage = z.object({
  type: z.literal("end"),
  dir: z.string(),
  status: z.string(),
  epoch_iso: z.string(),
  start_iso: z.string().nullable(),
  offered: z.number().int(),
  by_outcome: z.partialRecord(z.enum(OUTCOMES), z.number().int()),
  not_sent: z.number().int(),
  client_shed: z.number().int(),
  send_lag_p99_ms: z.number().nullable(),
  send_lag_max_ms: z.number().nullable(),
  client_limited: z.boolean(),
  client_limit_reason: z.string().nullable(),
  /** The worker's own CPU time over the run (run.json `result.runner_cpu_ms`). */
  runner_cpu_ms: z.number().nullable(),
}).strict();

/** Any line a worker writes on its stdout. */
export const WorkerMessage = z.discriminatedUnion("type", [ReadyMessage, ProgressMessage, EndMessage]);
export type WorkerMessage = z.infer<typeof WorkerMessage>;
export type EndMessage = z.infer<typeof EndMessage>;
export type ProgressMessage = z.infer<typeof ProgressMessage>;

/** The parent's line to every worker once all are ready: the shared start time. */
export const StartMessage = z.object({ type: z.literal("start"), start_at: z.string().datetime() }).strict();

/** The parent's line to a worker waiting for the start when another failed: nothing is run. */
export const AbortMessage = z.object({ type: z.literal("abort"), reason: z.string() }).strict();

/** Any line the parent writes on a worker's stdin. */
export const ParentMessage = z.discriminatedUnion("type", [StartMessage, AbortMessage]);
export type ParentMessage = z.infer<typeof ParentMessage>;

/** A line as one message of `schema`, or null when it is not one (the parent shows such a line as the worker's text). */
export function parseLine<T>(schema: z.ZodType<T>, line: string): T | null {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return null;
  }
  const parsed = schema.safeParse(raw);
  return parsed.success ? parsed.data : null;
}

/** One message as its line (with the line end). */
export function messageLine(m: WorkerMessage | ParentMessage): string {
  return JSON.stringify(m) + "\n";
}
