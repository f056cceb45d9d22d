import type { RequestRow, ScheduledRequest } from "../schema/mod.ts";
import type { Clock } from "./clock.ts";
import type { DispatchCounters } from "./dispatch.ts";
import { requestId, type Shard } from "./schedule.ts";

/** A closed loop of N users, for comparison with open loop only. */
export interface ClosedLoopOptions {
  clock: Clock;
  users: number;
  durationMs: number;
  thinkMs: number;
  stage: string;
  /** This process's shard i of N: its k-th request is request k·N + i of the run. */
  shard: Shard;
  /** The case drawn for request number `i` of the run (seeded mix). */
  caseOf(i: number): { case_id: string; class: string };
  start(entry: ScheduledRequest, startedMs: number): Promise<RequestRow>;
  done?(row: RequestRow): void;
  signal?: AbortSignal;
}

/**
 * Each user sends its next request only when the previous one ended (plus
 * think time): the offered load falls as the server slows down, which is
 * exactly what open loop avoids. Returns the realised schedule.
 *
 * Request numbers are strided by shard, as the open loop's are: shard i of
 * N numbers its k-th request k·N + i (id `requestId(k·N + i)`, case
 * `caseOf(k·N + i)`), so the shards of one run never share a request id.
 * One shard (N = 1) numbers its requests 0, 1, 2, …
 */
export async function runClosedLoop(o: ClosedLoopOptions, counters: DispatchCounters): Promise<ScheduledRequest[]> {
  const schedule: ScheduledRequest[] = [];
  let k = 0;
  const user = async () => {
    while (!o.signal?.aborted) {
      const now = o.clock.now();
      if (now >= o.durationMs) return;
      const i = k++ * o.shard.count + o.shard.index;
      const c = o.caseOf(i);
      const entry: ScheduledRequest = {
        request_id: requestId(i),
        scheduled_ms: now,
        case_id: c.case_id,
        class: c.class,
        stage: o.stage,
        shard: o.shard.index,
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
