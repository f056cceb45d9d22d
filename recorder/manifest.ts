/**
 * run.json of a production recording (schema/production_manifest.ts): built from the recorder's state at start, after
 * each flush and rotation, and at close; written whole to a temporary file and renamed over the last one, so a
 * reader never sees half of it (here at the start; then by the log's writer, recorder/writer.ts).
 *
 * @module
 */
import { renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import type { Stage } from "../schema/plan.ts";
import { type DroppedRecords, ProductionManifest, type ProductionPart } from "../schema/production_manifest.ts";
import { SCHEMA_MINOR, SCHEMA_VERSION } from "../schema/version.ts";
import type { Settings } from "./options.ts";
import { SAMPLING_RULE } from "./sampling.ts";
import { stageName } from "./task_rows.ts";
import { RECORDER_VERSION } from "./version.ts";
import type { WriterKind } from "./writer.ts";

/** What "offered", "measurement seconds" and each time column mean in a production log (run.json `definitions`). */
export const DEFINITIONS = {
  offered: "the user actions the recorder observed: one requests row per task the app began (rec.begin) whose " +
    "request id passed the sampling rule (sampling.rate of all actions), written once it completed, failed, " +
    "timed out (no complete() within task_timeout_ms of its action: outcome aborted, error_kind " +
    "unfinished_timeout) or was still open at close (aborted, unfinished_at_close); a task dropped because the " +
    "buffer was full is counted in dropped, not written; a stage's offered_rps is the sampled actions whose " +
    "scheduled_ms falls in its window (written or dropped) per second of the window — divide by sampling.rate " +
    "for the app's whole rate",
  measurement_seconds: "the observation window: from ms 0 (the recorder's start) to observation.ended_ms (its " +
    "close; while recording, the last flush); each stage is a fixed window of stage_s seconds from ms 0, the last " +
    "one ending at the observation's end",
  times: "scheduled_ms is the user's action: the page's action_ms placed on the service clock (minus the page's " +
    "clock_offset_ms) when a page record joined the task, else TaskStart.at, else the moment of rec.begin(); " +
    "first_sent_ms is the page's sent_ms when joined, else task.sent(), else the first model call's send; " +
    "send_lag_ms = first_sent_ms − scheduled_ms; first_token_ms is the page's first paint of a token when joined, " +
    "else task.firstToken(), else the final model call's first token; completed_ms (ok tasks only) is the page's " +
    "rendered_ms when joined, else task.rendered(), else the moment of task.complete(); an instant the app told " +
    "(TaskStart.at, a task's or a model call's at) that was later than the recorder's clock when told, or earlier " +
    "than the task's action (a call's instants: than its send; a token: than the token before it), is not " +
    "written: the moment of the call is, and recorder_errors counts it",
} as const;

/** The runtime the recorder runs in, e.g. `deno 2.9.6` or `node v20.20.2`. */
export function runtimeName(): string {
  const v = process.versions as Record<string, string | undefined>;
  if (v.deno) return `deno ${v.deno}`;
  if (v.bun) return `bun ${v.bun}`;
  return `node ${process.version}`;
}

/**
 * The stage windows from ms 0 to `end_ms` (at least one), each `stage_ms` long but the last, which ends at `end_ms`;
 * `offered_rps` is the window's request rows per second of the window (0 for a window of no length).
 *
 * @example Two windows of 1 s, the observation ending at 1.5 s: 3 actions in the first, 2 in the second
 * ```ts
 * import { productionStages } from "./manifest.ts";
 * import assert from "node:assert/strict";
 * const stages = productionStages(new Map([[0, 3], [1, 2]]), 1000, 1500);
 * // w0001 holds 2 actions over 0.5 s: 4 per second.
 * assert.deepEqual(stages.map((s) => [s.name, s.start_ms, s.end_ms, s.offered_rps]), [
 *   ["w0000", 0, 1000, 3], ["w0001", 1000, 1500, 4],
 * ]);
 * ```
 */
export function productionStages(counts: ReadonlyMap<number, number>, stage_ms: number, end_ms: number): Stage[] {
  let last = Math.max(0, Math.ceil(end_ms / stage_ms) - 1);
  for (const i of counts.keys()) last = Math.max(last, i);
  const stages: Stage[] = [];
  for (let i = 0; i <= last; i++) {
    const start_ms = i * stage_ms;
    const end = Math.max(start_ms, Math.min((i + 1) * stage_ms, end_ms));
    const seconds = (end - start_ms) / 1000;
    const n = counts.get(i) ?? 0;
    stages.push({
      name: stageName(i),
      kind: "steady",
      start_ms,
      end_ms: end,
      offered_rps: seconds > 0 ? n / seconds : 0,
    });
  }
  return stages;
}

/** What run.json is built from. */
export interface ManifestState {
  settings: Settings;
  epoch_ms: number;
  status: "recording" | "closed";
  /** ms since the epoch of the last flush, or of the close. */
  ended_ms: number;
  parts: readonly ProductionPart[];
  requests: number;
  dropped: DroppedRecords;
  /** Request rows per stage window. */
  stageCounts: ReadonlyMap<number, number>;
  classes: readonly string[];
  /** The thread that writes the log. */
  writer: WriterKind;
}

/** run.json, checked against the contract (a failure is the recorder's own bug: thrown, counted by the caller). */
export function buildManifest(st: ManifestState): ProductionManifest {
  const s = st.settings;
  const iso = (ms: number) => new Date(st.epoch_ms + ms).toISOString();
  return ProductionManifest.parse({
    schema_version: SCHEMA_VERSION,
    schema_minor: SCHEMA_MINOR,
    kind: "production",
    run_id: s.run_id,
    epoch_iso: iso(0),
    app: s.app,
    conditions: s.conditions,
    observation: {
      status: st.status,
      started_iso: iso(0),
      ended_iso: st.status === "closed" ? iso(st.ended_ms) : null,
      ended_ms: st.ended_ms,
      stage_s: s.stage_s,
    },
    sampling: { rate: s.sample, rule: SAMPLING_RULE },
    definitions: DEFINITIONS,
    workload: { name: s.workload.name, classes: [...st.classes] },
    route: s.route,
    stages: productionStages(st.stageCounts, s.stage_s * 1000, st.ended_ms),
    parts: st.parts,
    requests: st.requests,
    dropped: st.dropped,
    recorder: {
      name: "goodput-recorder",
      version: RECORDER_VERSION,
      runtime: runtimeName(),
      buffer_rows: s.max_rows,
      flush_ms: s.flush_ms,
      settle_ms: s.settle_ms,
      rotate_s: s.rotate_s,
      rotate_bytes: s.rotate_bytes,
      writer: st.writer,
    },
  });
}

/** run.json's text. */
export function manifestText(m: ProductionManifest): string {
  return JSON.stringify(m, null, 2) + "\n";
}

/** Writes the first run.json (at the recorder's start, in the folder it created). */
export function writeManifestSync(out: string, m: ProductionManifest): void {
  const file = join(out, "run.json");
  writeFileSync(`${file}.tmp`, manifestText(m));
  renameSync(`${file}.tmp`, file);
}
