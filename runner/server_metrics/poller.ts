/**
 * Reads each polled server's own metrics once a second during the run and writes one server-table row per reading
 * (runner/server_metrics/engines.ts maps them). A reading that fails or lacks a needed value is counted in run.json
 * `server_metrics.targets[]` and gives no row; nothing here can end the run. A reading still running when the next
 * is due is not doubled: that server skips the tick.
 *
 * @module
 */
import { epochMsOf } from "../../schema/events.ts";
import { parsePrometheusText } from "../../lib/prometheus_text.ts";
import type { Clock } from "../clock.ts";
import { CsvSink } from "../sinks/csv_sink.ts";
import { LogWriteError } from "../sinks/log_write_error.ts";
import { writeCsvSchema } from "../sinks/csv_schema.ts";
import { POLL_PERIOD_MS, type PolledServer, readSlots } from "./detect.ts";

/** A running poller. */
export interface Polling {
  /** The server table's sink, open until the run is finalised (null: nothing polled). */
  readonly sink: CsvSink<"server"> | null;
  /** Stops polling and waits for readings in flight; the sink stays open. */
  stop(): Promise<void>;
}

/** Reads one server once and appends its row (or counts why there is none). */
export async function pollOnce(
  s: PolledServer,
  o: {
    clock: Clock;
    runId: string;
    sink: CsvSink<"server">;
    timeoutMs: number;
    /** A write of server.csv that failed (a full disk): told, never thrown (the run stops on it). */
    onWriteError?: (e: LogWriteError) => void;
  },
): Promise<void> {
  const r = s.record;
  r.polls++;
  let text: string;
  try {
    const res = await fetch(s.metricsUrl, { redirect: "manual", signal: AbortSignal.timeout(o.timeoutMs) });
    text = await res.text();
    if (res.status !== 200) {
      r.failed_polls++;
      return;
    }
  } catch {
    // No answer in time, refused, reset: this second has no reading (counted).
    r.failed_polls++;
    return;
  }
  const t = o.clock.now();
  const metrics = parsePrometheusText(text);
  r.lines_dropped += metrics.dropped;
  const slots = s.slotsUrl ? await readSlots(s.slotsUrl, o.timeoutMs) : undefined;
  const reading = { metrics, ...(s.slotsUrl ? { slots } : {}), previous: s.previous.metrics };
  const row = s.mapping.row(reading, s.exposed);
  if ("why" in row) {
    r.rows_dropped++;
    return;
  }
  s.previous = reading;
  o.sink.append({ run_id: o.runId, t_ms: t, route: s.route, ...row.counts });
  flushTold(o.sink, o.onWriteError);
}

/** Flushes `sink`; a failed write goes to `onWriteError` (thrown when there is none). */
function flushTold(sink: CsvSink<"server">, onWriteError: ((e: LogWriteError) => void) | undefined): void {
  try {
    sink.flush();
  } catch (e) {
    if (!(e instanceof LogWriteError) || !onWriteError) throw e;
    onWriteError(e);
  }
}

/**
 * Starts reading `servers` every `periodMs` (from now: call at ms 0). Opens `server.csv` and its schema sidecar
 * when there is any server to read.
 */
export function startPolling(
  servers: readonly PolledServer[],
  o: {
    clock: Clock;
    dir: string;
    runId: string;
    epochIso: string;
    periodMs?: number;
    /** A write of server.csv that failed (a full disk); without it the error is thrown. */
    onWriteError?: (e: LogWriteError) => void;
  },
): Polling {
  if (servers.length === 0) return { sink: null, stop: () => Promise.resolve() };
  const periodMs = o.periodMs ?? POLL_PERIOD_MS;
  const sink = CsvSink.open(o.dir, "server", { epochMs: epochMsOf(o.epochIso) });
  writeCsvSchema(o.dir, "server", { identity: { run_id: o.runId, epoch_iso: o.epochIso } });
  const busy = new Map<PolledServer, Promise<void>>();
  const tick = () => {
    for (const s of servers) {
      if (busy.has(s)) continue;
      const p = pollOnce(s, {
        clock: o.clock,
        runId: o.runId,
        sink,
        timeoutMs: periodMs * 0.9,
        ...(o.onWriteError ? { onWriteError: o.onWriteError } : {}),
      })
        .finally(() => busy.delete(s));
      busy.set(s, p);
    }
  };
  tick();
  const timer = setInterval(tick, periodMs);
  return {
    sink,
    async stop() {
      clearInterval(timer);
      await Promise.all(busy.values());
      flushTold(sink, o.onWriteError);
    },
  };
}
