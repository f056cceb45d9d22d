/**
 * Outages detected from the log itself: runs of consecutive "down" attempts
 * (503s, refused connections), checked against the server timeline and,
 * when a simulator profile is given, against its planned windows.
 *
 * @module
 */
import pl from "nodejs-polars";
import type { SimProfile } from "../../schema/sim_profile.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import { isRunnerRun } from "../run/imported_run.ts";
import type { ShadedPeriod } from "../plots/timeline.ts";

/** Options of {@linkcode detectOutages}. */
export interface OutageOptions {
  /** Fewest consecutive down attempts (by sent_ms, none answered between) that make an outage. @default {3} */
  minConsecutive?: number;
  /** HTTP statuses that mean "the service is down". @default {[502, 503, 504]} */
  downStatuses?: number[];
  /** Attempt error kinds (before any "+suffix") that mean "the service is down". @default {["connect_refused", "connect_error", "connection_reset"]} */
  downKinds?: string[];
  /** The simulator profile of the run: its planned outages are reported beside the detected ones. @default {null} */
  profile?: SimProfile | null;
  /** Where the simulator's clock started on the run clock, to place planned windows on it. @default {null} (unknown) */
  simStartMs?: number | null;
}

/** Server timeline totals over the rows that overlap a window. */
export interface ServerTotals {
  rows: number;
  errors: number;
  shed: number;
  /** Refused by the target's rate limits (null when the timeline has no such column). */
  rate_limited: number | null;
  admitted: number;
  finished: number;
}

/** One outage found in the attempts. */
export interface DetectedOutage {
  /** sent_ms of the first down attempt of the run. */
  start_ms: number;
  /** sent_ms of the last down attempt of the run. */
  last_down_ms: number;
  /** sent_ms of the first answered attempt after the run; null = the log ends before the service answered again. */
  end_ms: number | null;
  /** end_ms − start_ms (null when not back). */
  duration_ms: number | null;
  down_attempts: number;
  /** Distinct requests with a down attempt in the run. */
  requests_hit: number;
  /** Down attempts by error_kind. */
  by_kind: Record<string, number>;
  /** Server timeline rows overlapping [start_ms, end_ms ?? last_down_ms]; null without a server table. */
  server: ServerTotals | null;
}

/** A planned outage of the simulator profile, on the sim clock and, when known, on the run clock. */
export interface PlannedOutage {
  mode: "503" | "refuse";
  sim_start_ms: number;
  sim_end_ms: number;
  /** On the run clock (needs `simStartMs`); null when the sim start is unknown. */
  run_start_ms: number | null;
  run_end_ms: number | null;
  /** Index into `outages` of the detected outage matched to it in order, or null. */
  detected: number | null;
  /** detected start − planned sim start: where the sim clock started on the run clock, as measured by this outage. */
  implied_sim_start_ms: number | null;
}

/** The result of {@linkcode detectOutages}. */
export interface OutageDetection {
  /** The detection rule in words. */
  rule: string;
  outages: DetectedOutage[];
  /** null when no profile was given. */
  planned: PlannedOutage[] | null;
}

type Kind = "down" | "answered" | "neutral";

/** The server timeline's sample interval: the median gap between rows (1000 ms when fewer than 2 rows). */
export function serverInterval(tMs: number[]): number {
  if (tMs.length < 2) return 1000;
  const gaps = tMs.slice(1).map((t, i) => t - tMs[i]!).sort((a, b) => a - b);
  return gaps[Math.floor(gaps.length / 2)]!;
}

/**
 * The server timeline of one target, sorted by t_ms; null without a server
 * table. A timeline with a `route` column may hold several targets: the one
 * whose route (names joined by "+") includes the first target's route is
 * kept, else the first route in the table.
 */
export function serverTimeline(run: LoadedRun): pl.DataFrame | null {
  if (!run.server) return null;
  let s = run.server;
  if (s.columns.includes("route")) {
    const routes = (s.getColumn("route").unique().toArray() as string[]).sort();
    const m = run.manifest;
    const want = isRunnerRun(m) ? m.targets[0]?.route : m.route;
    const pick = routes.find((r) => want !== undefined && r.split("+").includes(want)) ?? routes[0];
    if (routes.length > 1 && pick !== undefined) s = s.filter(pl.col("route").eq(pl.lit(pick)));
  }
  return s.sort("t_ms");
}

/**
 * Sums the server rows that overlap `[a, b)`: a row at t_ms counts the
 * interval (t_ms − interval, t_ms]. Null when the run has no server table.
 */
export function serverTotals(server: pl.DataFrame | null, a: number, b: number): ServerTotals | null {
  if (!server) return null;
  const t = server.getColumn("t_ms").toArray() as number[];
  const step = serverInterval(t);
  const rows = server.filter(pl.col("t_ms").gt(a).and(pl.col("t_ms").minus(step).lt(b)));
  const sum = (c: string) => rows.height ? Number(rows.getColumn(c).sum()) : 0;
  return {
    rows: rows.height,
    errors: sum("errors"),
    shed: sum("shed"),
    rate_limited: server.columns.includes("rate_limited") ? sum("rate_limited") : null,
    admitted: sum("admitted"),
    finished: sum("finished"),
  };
}

/**
 * Finds outages in a run's attempts. Attempts are ordered by `sent_ms`; an
 * attempt is *down* when its HTTP status is in `downStatuses` or its
 * error_kind in `downKinds`, *answered* when it got any other HTTP status,
 * and *neutral* otherwise (timeouts, cut streams: slow, not down). An outage
 * is a run of at least `minConsecutive` down attempts with no answered one
 * between them; it starts at the first down attempt and ends at the first
 * answered attempt after it (the service is back).
 *
 * @example Four 503s in a row between two answers make one outage
 * ```ts ignore
 * const { outages } = detectOutages(run);
 * // outages[0]: start_ms = first 503's sent_ms, end_ms = next 200's sent_ms
 * ```
 */
export function detectOutages(run: LoadedRun, options: OutageOptions = {}): OutageDetection {
  const minRun = options.minConsecutive ?? 3;
  const statuses = new Set(options.downStatuses ?? [502, 503, 504]);
  const kinds = new Set(options.downKinds ?? ["connect_refused", "connect_error", "connection_reset"]);
  const server = serverTimeline(run);
  const a = run.attempts.select("request_id", "sent_ms", "http_status", "error_kind").sort("sent_ms");
  const ids = a.getColumn("request_id").toArray() as string[];
  const sent = a.getColumn("sent_ms").toArray() as number[];
  const status = a.getColumn("http_status").toArray() as (number | bigint | null)[];
  const errKind = a.getColumn("error_kind").toArray() as (string | null)[];
  const kindOf = (i: number): Kind => {
    const s = status[i] === null || status[i] === undefined ? null : Number(status[i]);
    if (s !== null && statuses.has(s)) return "down";
    const k = errKind[i]?.split("+")[0];
    if (k !== undefined && kinds.has(k)) return "down";
    return s !== null ? "answered" : "neutral";
  };
  const labelOf = (i: number) => errKind[i]?.split("+")[0] ?? `http_${status[i]}`;

  const outages: DetectedOutage[] = [];
  let down: number[] = [];
  const close = (answeredAt: number | null) => {
    if (down.length >= minRun) {
      const start = sent[down[0]!]!, last = sent[down[down.length - 1]!]!;
      const by_kind: Record<string, number> = {};
      for (const i of down) by_kind[labelOf(i)] = (by_kind[labelOf(i)] ?? 0) + 1;
      outages.push({
        start_ms: start,
        last_down_ms: last,
        end_ms: answeredAt,
        duration_ms: answeredAt === null ? null : answeredAt - start,
        down_attempts: down.length,
        requests_hit: new Set(down.map((i) => ids[i])).size,
        by_kind,
        server: serverTotals(server, start, answeredAt ?? last + 1),
      });
    }
    down = [];
  };
  for (let i = 0; i < sent.length; i++) {
    const k = kindOf(i);
    if (k === "down") down.push(i);
    else if (k === "answered") close(sent[i]!);
  }
  close(null);

  const rule = `an outage is a run of ≥ ${minRun} consecutive attempts (ordered by sent_ms) that were down ` +
    `(HTTP ${[...statuses].join("/")} or error_kind ${[...kinds].join("/")}) with no answered attempt ` +
    `(any other HTTP status) between them; timeouts and cut streams neither extend nor end a run; ` +
    `it starts at the first down attempt's sent_ms and ends at the sent_ms of the first answered attempt after it`;
  return {
    rule,
    outages,
    planned: options.profile ? plannedOutages(options.profile, outages, options.simStartMs) : null,
  };
}

/** Planned windows of a profile, matched in order to the detected outages they precede or overlap. */
function plannedOutages(
  profile: SimProfile,
  detected: DetectedOutage[],
  simStartMs: number | null | undefined,
): PlannedOutage[] {
  const planned = [...profile.faults.outages].sort((x, y) => x.start_ms - y.start_ms);
  // Without the sim start, match by order: planned outages and detections are both sorted in time.
  const offset = simStartMs ?? null;
  const used = new Set<number>();
  return planned.map((o, pi) => {
    let match: number | null = null;
    if (offset !== null) {
      const idx = detected.findIndex((d, i) =>
        !used.has(i) && d.start_ms < offset + o.end_ms && (d.end_ms ?? Infinity) > offset + o.start_ms
      );
      match = idx >= 0 ? idx : null;
    } else if (detected.length === planned.length) {
      match = pi;
    }
    if (match !== null) used.add(match);
    const d = match === null ? null : detected[match]!;
    return {
      mode: o.mode,
      sim_start_ms: o.start_ms,
      sim_end_ms: o.end_ms,
      run_start_ms: offset === null ? null : offset + o.start_ms,
      run_end_ms: offset === null ? null : offset + o.end_ms,
      detected: match,
      implied_sim_start_ms: d ? d.start_ms - o.start_ms : null,
    };
  });
}

/**
 * Detected outages as periods to shade on the run timeline: from the first
 * down attempt to the first answered one (to the last down attempt when the
 * service was not back by the end of the log).
 */
export function outagePeriods(detection: OutageDetection): ShadedPeriod[] {
  return detection.outages.map((o, i) => ({
    start_ms: o.start_ms,
    end_ms: o.end_ms ?? o.last_down_ms,
    label: `outage ${i + 1}${o.end_ms === null ? " (not back)" : ""}`,
  }));
}
