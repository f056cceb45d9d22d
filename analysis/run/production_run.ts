/**
 * What the analysis needs to know about a production recording (run.json `kind: "production"`,
 * schema/production_manifest.ts): what its counts mean (offered = the user actions observed and sampled, not a
 * planned load), how its measurement seconds are counted (the observation window), its stage windows' observed
 * rates, the frozen conditions (the app and its version), the records the recorder dropped, and where its log ends
 * (a recording still open ends at its last flush). Every verb carries these into its disclosure.
 *
 * @module
 */
import type { TableName } from "../../schema/events.ts";
import type { AnyManifest } from "../../schema/imported_manifest.ts";
import type { Stage } from "../../schema/plan.ts";
import { isProduction, type ProductionManifest } from "../../schema/production_manifest.ts";
import { clipStages, type RunEnd } from "./run_end_rule.ts";
import { importCaveats } from "./imported_run.ts";

export { isProduction };

/** One part of a production recording as read. */
export interface PartRead {
  /** The part's folder name (`part-00000`). */
  dir: string;
  /** The format read: run.json's for the part, or what the folder holds when run.json lags behind a rotation. */
  format: "csv" | "parquet";
  /** The tables the folder holds (a table it does not hold is read as empty). */
  tables: TableName[];
}

/** What "offered" means for a production recording, stated in every disclosure of one. */
export const PRODUCTION_OFFERED_RULE =
  "PRODUCTION RECORDING: offered = the user actions the recorder observed and sampled (one requests row per sampled " +
  "action; run.json sampling: the rate r and the rule that chose them), not a planned load: there is no plan and no " +
  "schedule; the estimate of all user actions is offered / r, an estimate, not a count";

/** How a production recording's measurement seconds are counted. */
export const PRODUCTION_SECONDS_RULE =
  "measurement seconds of a production recording = the observation window: each stage window's length (run.json " +
  "observation.stage_s), the last one ending at the observation's end (observation.ended_ms: the close, or the last " +
  "flush of a recording still open); a stage window's rate = the sampled user actions scheduled in it / its seconds " +
  "(run.json stages offered_rps, recomputed from the log)";

/** Why a production recording gets no client-limited verdict. */
export const PRODUCTION_CLIENT_RULE =
  "the app is the client: there is no load generator and no planned arrival process, so no client-limited verdict " +
  "is made; the time from the user's action to the model call is part of the wait the user had (where the wait went), " +
  "not the lag of a load generator";

/** Where a recording still open ends, and what that leaves out. */
export const PRODUCTION_OPEN_RULE =
  'a recording still open (run.json observation.status "recording") ends at its last flush (observation.ended_ms): ' +
  "every window is clipped there; a task scheduled at or after it is in neither numerator nor denominator; a task " +
  "still in flight then (or waiting for its page record) is not in the log yet, so the last stage window's counts are " +
  "lower bounds; that window is cut (left out of the knee)";

const secs = (ms: number) => `${+(ms / 1000).toFixed(3)} s`;

/**
 * The frozen conditions of a recording in one line: the app, its version, the conditions as given, the route, the
 * recorder and (run.json `recorder.writer`, when stated) the thread that wrote the log.
 */
export function productionConditions(m: ProductionManifest): string {
  const given = Object.entries(m.conditions).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`);
  return `frozen conditions: app ${m.app.name} ${m.app.version}${given.length ? `; ${given.join(", ")}` : ""}; ` +
    `route ${m.route}; recorder ${m.recorder.name} ${m.recorder.version} on ${m.recorder.runtime}` +
    (m.recorder.writer
      ? `, writing on ${m.recorder.writer === "thread" ? "its writer thread" : "the app's thread"}`
      : "");
}

/** The records the recorder dropped, in total over its tables (page records and its own errors not included). */
export function droppedRows(m: ProductionManifest): number {
  const d = m.dropped;
  return d.requests + d.attempts + d.tools + d.phases;
}

/** The dropped-records caveat: the counts, and that nonzero drops make every count a lower bound. */
export function droppedCaveat(m: ProductionManifest): string {
  const d = m.dropped;
  if (droppedRows(m) + d.page_records_unjoined + d.recorder_errors === 0) {
    return "the recorder dropped no record (run.json dropped: every count 0)";
  }
  return `DROPPED RECORDS: the recorder dropped ${d.requests} requests, ${d.attempts} attempts, ${d.tools} tools ` +
    `and ${d.phases} phases rows (its buffer was full); ${d.page_records_unjoined} page records joined no task; ` +
    `${d.recorder_errors} errors of the recorder itself: ` +
    (d.requests
      ? "offered, completed and accepted are lower bounds (a dropped requests row is a user action not counted), "
      : "") +
    "and a task whose attempts, tools, phases or page record were dropped lacks that part of its wait";
}

/** The sampling in words: every action, or the share r and the estimate rule. */
function samplingLine(m: ProductionManifest): string {
  const s = m.sampling;
  return s.rate === 1
    ? `sampling: every user action recorded (rate 1, rule: ${s.rule}): offered counts the user actions observed`
    : `sampling: rate ${s.rate} (rule: ${s.rule}): offered counts the sampled actions; all user actions ≈ offered / ` +
      `${s.rate} (an estimate, not a count)`;
}

/**
 * The caveats of a production recording, each a sentence a reviewer can quote: what it is and its observation
 * window, what offered means and the sampling, how measurement seconds are counted, the frozen conditions, why there
 * is no client-limited verdict, and the records dropped. Empty for any other run.
 *
 * @example A runner's run has none
 * ```ts
 * import assert from "node:assert/strict";
 * import { productionCaveats } from "./production_run.ts";
 * assert.deepEqual(productionCaveats({ schema_version: 1 } as never), []);
 * ```
 */
export function productionCaveats(m: AnyManifest): string[] {
  if (!isProduction(m)) return [];
  return [
    `PRODUCTION RECORDING of ${m.app.name} ${m.app.version}: the user actions of a live app, observed from ` +
    `${m.observation.started_iso} ${observedUntil(m)}; not a planned load`,
    PRODUCTION_OFFERED_RULE,
    samplingLine(m),
    PRODUCTION_SECONDS_RULE,
    productionConditions(m),
    PRODUCTION_CLIENT_RULE,
    droppedCaveat(m),
  ];
}

/** Where the observation ends, in words: its close, or the last flush of a recording still open. */
function observedUntil(m: ProductionManifest): string {
  const o = m.observation;
  return o.status === "closed"
    ? `to ${o.ended_iso ?? `${secs(o.ended_ms)} after its start`} (closed)`
    : `to its last flush, ${secs(o.ended_ms)} after its start (STILL RECORDING)`;
}

/**
 * The first lines every verb prints for a production recording (the verdicts; the report's banner): one sentence of
 * what its numbers mean, and the dropped records when there are any. {@linkcode productionCaveats} states every
 * rule in full (the disclosure). Empty for any other run.
 *
 * @example A recording of every action, nothing dropped: one line
 * ```ts
 * import assert from "node:assert/strict";
 * import { productionHeadline } from "./production_run.ts";
 * const m = {
 *   kind: "production", app: { name: "chat", version: "2" }, sampling: { rate: 1, rule: "all" },
 *   observation: { status: "closed", started_iso: "2026-05-01T08:00:00Z", ended_iso: "2026-05-01T09:00:00Z" },
 *   dropped: { requests: 0, attempts: 0, tools: 0, phases: 0, page_records_unjoined: 0, recorder_errors: 0 },
 * };
 * assert.deepEqual(productionHeadline(m as never), [
 *   "PRODUCTION RECORDING of chat 2, observed from 2026-05-01T08:00:00Z to 2026-05-01T09:00:00Z (closed): offered = " +
 *   "the user actions observed and sampled (every action recorded), not a planned load; measurement seconds = the " +
 *   "observation window, stage window by stage window; the app is the client, so no client-limited verdict (every " +
 *   "rule in the disclosure)",
 * ]);
 * ```
 */
export function productionHeadline(m: AnyManifest): string[] {
  if (!isProduction(m)) return [];
  const r = m.sampling.rate;
  const sampled = r === 1 ? "every action recorded" : `rate ${r}: all actions ≈ offered / ${r}, an estimate`;
  const d = m.dropped;
  const dropped = droppedRows(m) + d.page_records_unjoined + d.recorder_errors > 0 ? [droppedCaveat(m)] : [];
  return [
    `PRODUCTION RECORDING of ${m.app.name} ${m.app.version}, observed from ${m.observation.started_iso} ` +
    `${observedUntil(m)}: offered = the user actions observed and sampled (${sampled}), not a planned load; ` +
    "measurement seconds = the observation window, stage window by stage window; the app is the client, so no " +
    "client-limited verdict (every rule in the disclosure)",
    ...dropped,
  ];
}

/**
 * The lines of where a run came from, which every verb states first: an imported run's source and what it lacks
 * ({@linkcode importCaveats}), or what a production recording's counts mean ({@linkcode productionHeadline}); empty
 * for a runner's run.
 */
export function runSourceCaveats(m: AnyManifest): string[] {
  return [...importCaveats(m), ...productionHeadline(m)];
}

/** A recording's stage windows as the analysis uses them, and as they would be whole. */
export interface ProductionStages {
  /** run.json's windows clipped at the observation's end, each with its observed rate recomputed from the log. */
  stages: Stage[];
  /** The same windows whole: a recording still open has its last window at its full length (`observation.stage_s`). */
  whole: Stage[];
}

/**
 * The stage windows of a recording: run.json's, clipped at `observation.ended_ms`, each window's `offered_rps` the
 * sampled actions scheduled in it (`counts[i]`, for run.json's stage i) / its clipped seconds (0 for an empty span).
 *
 * @example Two hourly windows, a closed recording 90 min long: 7200 actions then 900 in the last half hour
 * ```ts
 * import assert from "node:assert/strict";
 * import { productionStages } from "./production_run.ts";
 * const w = (name: string, h: number) => ({ name, kind: "steady" as const, start_ms: h * 3.6e6, end_ms: (h + 1) * 3.6e6, offered_rps: 0 });
 * const m = { observation: { status: "closed", ended_ms: 5.4e6, stage_s: 3600 }, stages: [w("h0", 0), w("h1", 1)] };
 * const s = productionStages(m as never, [7200, 900]);
 * // 7200 / 3600 s = 2 /s; 900 / 1800 s = 0.5 /s
 * assert.deepEqual(s.stages.map((x) => [x.end_ms, x.offered_rps]), [[3.6e6, 2], [5.4e6, 0.5]]);
 * ```
 */
export function productionStages(m: ProductionManifest, counts: readonly number[]): ProductionStages {
  const end = m.observation.ended_ms;
  const rated = m.stages.map((s, i) => ({ ...s, i }));
  const stages = clipStages(rated, end).map(({ i, ...s }) => {
    const seconds = (s.end_ms - s.start_ms) / 1000;
    return { ...s, offered_rps: seconds > 0 ? (counts[i] ?? 0) / seconds : 0 };
  });
  if (m.observation.status === "closed") return { stages, whole: stages };
  const full = m.observation.stage_s * 1000;
  const whole = stages.map((s, k) =>
    k === stages.length - 1 ? { ...s, end_ms: Math.max(s.end_ms, s.start_ms + full) } : s
  );
  return { stages, whole };
}

/**
 * How a production recording ends: a closed one is complete over its observation window; one still recording is
 * cut at its last flush ({@linkcode PRODUCTION_OPEN_RULE}), with `afterCut` requests scheduled at or after it.
 */
export function productionRunEnd(m: ProductionManifest, s: ProductionStages, afterCut: number): RunEnd {
  const o = m.observation;
  if (o.status === "closed") {
    return {
      status: "complete",
      cut_ms: null,
      log_end_ms: null,
      planned_ms: o.ended_ms,
      rule: `production recording, closed: the observation window runs from ${o.started_iso} to ${
        o.ended_iso ?? "its close"
      } (${o.ended_ms} ms); the stage windows are clipped there`,
      log_end_rule: null,
      planned_stages: s.whole,
      after_cut: 0,
      censored: 0,
      censored_ids: [],
      decided: 0,
      decided_ids: [],
      deadlines: null,
      restored: 0,
      headline: null,
    };
  }
  const planned_ms = Math.max(o.ended_ms, ...s.whole.map((x) => x.end_ms));
  return {
    status: "recording",
    cut_ms: o.ended_ms,
    log_end_ms: o.ended_ms,
    planned_ms,
    rule: `production recording still open: its log ends at the last flush, observation.ended_ms ${o.ended_ms} ms`,
    log_end_rule: null,
    planned_stages: s.whole,
    after_cut: afterCut,
    censored: 0,
    censored_ids: [],
    decided: 0,
    decided_ids: [],
    deadlines: null,
    restored: 0,
    headline: `RECORDING STILL OPEN (run.json observation.status "recording"): the log ends at its last flush, ` +
      `${secs(o.ended_ms)} after the recorder started, and every window ends there: ${afterCut} tasks scheduled ` +
      "after it are in neither numerator nor denominator; tasks still in flight then are not in the log yet, so the " +
      "last stage window's counts are lower bounds.",
  };
}
