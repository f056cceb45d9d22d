import { resolve } from "node:path";
import type { TraceProcess } from "../../schema/plan.ts";
import type { z } from "zod";
import { InputError } from "../../schema/errors.ts";
import { MAX_ROWS_INPUT_BYTES, readInputText } from "../../schema/read_input.ts";
import { type ArrivalGenerator, steadyStage } from "./arrival.ts";
import { readTraceRows } from "./trace_rows.ts";

/**
 * Replays a trace's arrival times. Rows are sorted by time; rows earlier
 * than `start_offset_s` after the trace's first arrival are skipped; times
 * are then relative to the first kept arrival (which lands at ms 0) and
 * divided by `speedup`; arrivals at or after `duration_s` of run time are
 * dropped, and at most `max_requests` are kept. `file` is relative to the
 * plan's folder.
 *
 * The single `trace` stage ends at the first arrival cut by `max_requests`,
 * else at `duration_s`, else at the last arrival. Its
 * `offered_rps` is the replayed count over that span.
 */
export const traceArrivals: ArrivalGenerator<z.infer<typeof TraceProcess>> = {
  process: "trace",
  async arrivals(spec, { planDir, planFile = "arrival plan" }) {
    const path = resolve(planDir, spec.file);
    let text: string;
    try {
      text = await readInputText(path, "trace", MAX_ROWS_INPUT_BYTES);
    } catch (e) {
      const m = (e as Error).message;
      const said = `${path}: cannot read trace: `;
      const detail = m.startsWith(said) ? m.slice(said.length) : m.slice(path.length + 2);
      throw new InputError(`${planFile}: arrivals.file: cannot read trace ${path}: ${detail}`, [], { cause: e });
    }
    const rows = readTraceRows(text, path, {
      format: spec.format,
      timeUnit: spec.time_unit,
      ...(spec.time_field === undefined ? {} : { timeField: spec.time_field }),
    });
    // Stable sort by time: replay order is arrival order, ties keep file order.
    const sorted = rows.map((r) => r.ms).sort((a, b) => a - b);
    const first = sorted[0];
    if (first === undefined) throw new InputError(`${path}: the trace has no rows`);
    const from = first + spec.start_offset_s * 1000;
    const kept = sorted.filter((ms) => ms >= from);
    const origin = kept[0];
    if (origin === undefined) {
      throw new InputError(
        `${planFile}: arrivals.start_offset_s: no trace arrival at or after ${spec.start_offset_s} s`,
      );
    }
    const limitMs = spec.duration_s === undefined ? Infinity : spec.duration_s * 1000;
    const max = spec.max_requests ?? Infinity;
    const timesMs: number[] = [];
    let cutMs: number | undefined;
    for (const ms of kept) {
      const t = (ms - origin) / spec.speedup;
      if (t >= limitMs) break;
      if (timesMs.length >= max) {
        cutMs = t;
        break;
      }
      timesMs.push(t);
    }
    const endMs = cutMs ?? (spec.duration_s !== undefined ? limitMs : timesMs[timesMs.length - 1] ?? 0);
    const offered = endMs > 0 ? (timesMs.length * 1000) / endMs : 0;
    return { timesMs, stages: [steadyStage("trace", endMs, offered)] };
  },
};
