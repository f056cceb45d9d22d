/**
 * The part of a goodput disclosure that says what a production recording's numbers mean (run.json
 * `kind: "production"`): offered = the user actions observed and sampled, the estimate of all of them, each stage
 * window's observed rate, the frozen conditions, the records dropped.
 *
 * @module
 */
import type { DroppedRecords, ProductionManifest } from "../../schema/production_manifest.ts";
import {
  type PartRead,
  PRODUCTION_CLIENT_RULE,
  PRODUCTION_OFFERED_RULE,
  PRODUCTION_SECONDS_RULE,
  productionCaveats,
} from "../run/production_run.ts";
import type { ResolvedWindow } from "./policy.ts";

/** One stage window of a production recording inside the analysis window: its seconds, actions and observed rate. */
export interface ProductionWindow {
  stage: string;
  /** The window's seconds inside the analysis window (the last one ends at the observation's end). */
  seconds: number;
  /** Sampled user actions scheduled in it (offered). */
  sampled_actions: number;
  /** sampled_actions / seconds (null for a window of no length). */
  observed_rps: number | null;
  /** observed_rps / the sampling rate: an estimate of all user actions per second, not a count. */
  estimated_rps: number | null;
}

/** What a production recording's numbers mean (run.json `kind: "production"`). */
export interface ProductionDisclosure {
  /** The app observed: its name and version are frozen conditions of every number. */
  app: ProductionManifest["app"];
  /** The other frozen conditions, as the recording was told them. */
  conditions: Record<string, string>;
  route: string;
  /** The observation window (`status` recording: still open, ends at the last flush). */
  observation: ProductionManifest["observation"];
  sampling: ProductionManifest["sampling"];
  /** offered (sampled user actions in the window) / sampling.rate: an estimate of all user actions, not a count. */
  estimated_user_actions: number;
  /** Each stage window of the analysis window, in run order. */
  windows: ProductionWindow[];
  /** The records the recorder dropped: nonzero counts make the counts lower bounds. */
  dropped: DroppedRecords;
  /** The parts read, in part order (folder, format, tables found). */
  parts: PartRead[];
  /** run.json `definitions`: what the recorder said offered and measurement seconds mean. */
  recorder_definitions: ProductionManifest["definitions"];
  rules: { offered: string; measurement_seconds: string; client: string };
  /** The same in sentences (`productionCaveats`), also at the head of `inclusion_rules`. */
  caveats: string[];
}

/**
 * A production recording's disclosure over the analysis window: the app and its conditions, the observation, the
 * sampling and the estimate of all user actions, each stage window's observed rate, the drops, the parts read, the
 * rules in words. `n` is the window's offered counts (overall and by stage).
 */
export function productionDisclosure(
  m: ProductionManifest,
  parts: PartRead[],
  window: ResolvedWindow,
  n: { overall: number; by_stage: Record<string, number> },
): ProductionDisclosure {
  const rate = m.sampling.rate;
  const windows = window.stages.map((stage) => {
    const seconds = window.stage_seconds[stage] ?? 0;
    const sampled_actions = n.by_stage[stage] ?? 0;
    const observed_rps = seconds > 0 ? sampled_actions / seconds : null;
    return {
      stage,
      seconds,
      sampled_actions,
      observed_rps,
      estimated_rps: observed_rps === null ? null : observed_rps / rate,
    };
  });
  return {
    app: m.app,
    conditions: m.conditions,
    route: m.route,
    observation: m.observation,
    sampling: m.sampling,
    estimated_user_actions: n.overall / rate,
    windows,
    dropped: m.dropped,
    parts,
    recorder_definitions: m.definitions,
    rules: {
      offered: PRODUCTION_OFFERED_RULE,
      measurement_seconds: PRODUCTION_SECONDS_RULE,
      client: PRODUCTION_CLIENT_RULE,
    },
    caveats: productionCaveats(m),
  };
}
