import type { RequestRow, ScheduledRequest } from "../schema/mod.ts";
import type { Clock } from "./clock.ts";
import type { DispatchCounters } from "./dispatch.ts";

/** A closed loop of N users, for comparison with open loop only. */
export interface ClosedLoopOptions {
  clock: Clock;
  users: number;
  durationMs: number;
  thinkMs: number;
  stage: string;
  shard: number;
  /** The case drawn for the k-th request of the run (seeded mix). */
  caseOf(k: number): { case_id: string; class: string };
  start(entry: ScheduledRequest, startedMs: number): Promise<RequestRow>;
  done?(row: RequestRow): void;
  signal?: AbortSignal;
}

/**
 * Each user sends its next request only when the previous one ended (plus
 * think time): the offered load falls as the server slows down, which is
 * exactly what open loop avoids. Returns the realised schedule.
 */
export async function runClosedLoop(o: ClosedLoopOptions, counters: DispatchCounters): Promise<ScheduledRequest[]> {
  const schedule: ScheduledRequest[] = [];
  let k = 0;
  const user = async () => {
    while (!o.signal?.aborted) {
      const now = o.clock.now();
      if (now >= o.durationMs) return;
      const c = o.caseOf(k);
      const entry: ScheduledRequest = {
        request_id: `r${String(k++).padStart(7, "0")}`,
        scheduled_ms: now,
        case_id: c.case_id,
        class: c.class,
        stage: o.stage,
        shard: o.shard,
      };
      schedule.push(entry);
      counters.dispatched++;
      counters.inFlight++;
      // start() records its own failures (runner/request_guard.ts); a rejection here is a bug that must not end the run.
      const row = await o.start(entry, now).catch((err) => {
        console.error(`error: request ${entry.request_id} failed without a row: ${String(err)}`);
        return null;
      });
      counters.inFlight--;
      counters.finished++;
      if (row) o.done?.(row);
      if (o.thinkMs > 0) await new Promise((r) => setTimeout(r, o.thinkMs));
    }
  };
  await Promise.all(Array.from({ length: o.users }, user));
  return schedule.sort((a, b) => a.scheduled_ms - b.scheduled_ms);
}
