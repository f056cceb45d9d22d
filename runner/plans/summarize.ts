import type { Stage } from "../../schema/plan.ts";
import type { ScheduledRequest } from "../../schema/plan.ts";

/** What {@linkcode summarizeSchedule} needs of a built schedule. */
export interface SchedulePart {
  mode: "open" | "closed";
  entries: ScheduledRequest[];
  stages: Stage[];
  totalPlanned: number;
  shard: { index: number; count: number };
}

/** One stage of a schedule summary. */
export interface StageSummary {
  name: string;
  kind: Stage["kind"];
  start_ms: number;
  end_ms: number;
  /** Arrivals of this shard in the stage. */
  requests: number;
  /** The stage's planned rate (`offered_rps`) for the whole run, all shards. */
  planned_rps: number;
  /** requests / stage seconds (this shard only; 0 for an empty span). */
  realised_rps: number;
}

/** Per-stage and per-class counts of a schedule. */
export interface ScheduleSummary {
  mode: "open" | "closed";
  shard: { index: number; count: number };
  /** Arrivals of the full schedule (every shard). */
  total_planned: number;
  /** Arrivals kept by this shard. */
  requests: number;
  stages: StageSummary[];
  /** Class → arrivals of this shard, classes in name order. */
  classes: Record<string, number>;
}

/**
 * Counts a schedule's arrivals per stage and per class.
 *
 * @example Two arrivals in a 1-s stage realise 2 req/s
 * ```ts
 * import { summarizeSchedule } from "./summarize.ts";
 * import assert from "node:assert/strict";
 * const e = (id: string, t: number) => ({ request_id: id, scheduled_ms: t, case_id: "c", class: "qa", stage: "s", shard: 0 });
 * const s = summarizeSchedule({
 *   mode: "open", totalPlanned: 2, shard: { index: 0, count: 1 },
 *   entries: [e("r0", 0), e("r1", 500)],
 *   stages: [{ name: "s", kind: "warmup", start_ms: 0, end_ms: 1000, offered_rps: 2 }],
 * });
 * assert.equal(s.stages[0]?.realised_rps, 2);
 * assert.deepEqual(s.classes, { qa: 2 });
 * ```
 */
export function summarizeSchedule(built: SchedulePart): ScheduleSummary {
  const perStage = new Map<string, number>();
  const perClass = new Map<string, number>();
  for (const e of built.entries) {
    perStage.set(e.stage, (perStage.get(e.stage) ?? 0) + 1);
    perClass.set(e.class, (perClass.get(e.class) ?? 0) + 1);
  }
  const classes = Object.fromEntries([...perClass].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const stages = built.stages.map((s) => {
    const requests = perStage.get(s.name) ?? 0;
    const seconds = (s.end_ms - s.start_ms) / 1000;
    return {
      name: s.name,
      kind: s.kind,
      start_ms: s.start_ms,
      end_ms: s.end_ms,
      requests,
      planned_rps: s.offered_rps,
      realised_rps: seconds > 0 ? requests / seconds : 0,
    };
  });
  return {
    mode: built.mode,
    shard: built.shard,
    total_planned: built.totalPlanned,
    requests: built.entries.length,
    stages,
    classes,
  };
}
