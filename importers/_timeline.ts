/**
 * Placing a source's per-request times on the run's clock (ms since run.json `epoch_iso`): which timeline the source
 * has (wall-clock epoch times, a clock with no epoch, or durations only), where ms 0 is, and each request's
 * scheduled, sent, first-token and end times on it. Nothing is invented silently: a time the source does not hold
 * and cannot be derived from what it holds (a send time from completion − e2e) is null, and a source with durations
 * only places every request at ms 0 and says so (`rates: false`).
 *
 * @module
 */
import { InputError } from "../schema/errors.ts";
import type { ImportedTimeline } from "../schema/imported_manifest.ts";
import type { SourceRequest, SourceRun } from "./source.ts";

/** The placeholder epoch of a source with no wall-clock time. */
export const NO_EPOCH_ISO = "1970-01-01T00:00:00.000Z";

/** A request's times on the run's clock, ms (null: not recorded). */
export interface PlacedTimes {
  /** The tool's schedule when it has one, else its send time, else (durations only) 0. */
  scheduled: number;
  /** null when the tool has a schedule but never sent the request. */
  sent: number | null;
  first_token: number | null;
  /** When the tool saw the request end (answered, failed or cut off); null when it records no end. */
  ended: number | null;
}

/** The source's raw times of one request on its own clock (epoch ms, or ms of a clock with no epoch). */
interface RawTimes {
  scheduled: number | null;
  sent: number | null;
  first_token: number | null;
  ended: number | null;
}

function rawTimes(r: SourceRequest, kind: ImportedTimeline["kind"]): RawTimes {
  if (kind === "epoch") {
    return {
      scheduled: r.scheduled_epoch_ms,
      sent: r.sent_epoch_ms,
      first_token: r.first_token_epoch_ms,
      ended: r.completed_epoch_ms,
    };
  }
  if (kind === "clock") {
    if (r.clock_ms) {
      return {
        scheduled: r.clock_ms.scheduled,
        sent: r.clock_ms.sent,
        first_token: r.clock_ms.first_token,
        ended: r.clock_ms.completed,
      };
    }
    return { scheduled: null, sent: r.sent_clock_ms ?? null, first_token: null, ended: null };
  }
  return { scheduled: null, sent: null, first_token: null, ended: null };
}

/**
 * The times of one request with what its durations imply: a missing send time from first token − TTFT or end − e2e,
 * a missing first token from send + TTFT, a missing end from send + e2e (the tools measure TTFT and e2e from their
 * send: importers/source.ts).
 */
function completed(raw: RawTimes, r: SourceRequest): RawTimes {
  let sent = raw.sent;
  if (sent === null && raw.first_token !== null && r.ttft_ms !== null) sent = raw.first_token - r.ttft_ms;
  if (sent === null && raw.ended !== null && r.e2e_ms !== null) sent = raw.ended - r.e2e_ms;
  const first_token = raw.first_token ?? (sent !== null && r.ttft_ms !== null ? sent + r.ttft_ms : null);
  const ended = raw.ended ?? (sent !== null && r.e2e_ms !== null ? sent + r.e2e_ms : null);
  return { scheduled: raw.scheduled, sent, first_token, ended };
}

/** Which timeline the source's requests are on: the first of epoch, clock, durations that some request has. */
function timelineKind(requests: readonly SourceRequest[]): ImportedTimeline["kind"] {
  const epoch = (r: SourceRequest) =>
    [r.scheduled_epoch_ms, r.sent_epoch_ms, r.first_token_epoch_ms, r.completed_epoch_ms].some((t) => t !== null);
  if (requests.some(epoch)) return "epoch";
  const clock = (r: SourceRequest) =>
    (r.sent_clock_ms ?? null) !== null ||
    (r.clock_ms !== undefined && Object.values(r.clock_ms).some((t) => t !== null));
  return requests.some(clock) ? "clock" : "durations_only";
}

/** The source's timeline and every request's times on the run's clock, in request order. */
export interface Placement {
  timeline: ImportedTimeline;
  epoch_iso: string;
  /** The origin on the source's own clock (epoch ms, or clock ms); null for durations only. */
  origin: number | null;
  times: PlacedTimes[];
}

/**
 * Places every request of `source` on the run's clock. ms 0 is the earliest time of the source (its records and, for
 * epoch times, its stages' stated starts), floored to a whole ms so that `epoch_iso` states it exactly. A request
 * with no time of its own in a source whose others have times is an InputError naming the record.
 */
export function placeRequests(source: SourceRun): Placement {
  const kind = timelineKind(source.requests);
  const raw = source.requests.map((r) => completed(rawTimes(r, kind), r));
  const unplaced = source.requests.filter((_, i) => {
    const t = raw[i]!;
    return kind !== "durations_only" && t.scheduled === null && t.sent === null;
  });
  if (unplaced.length) {
    throw new InputError(
      `${source.tool}: ${unplaced.length} record(s) have no send or scheduled time while the others have them`,
      unplaced.slice(0, 10).map((r) =>
        `${r.at}: no send or scheduled time (nor a first token or end with its duration)`
      ),
    );
  }
  const scheduledFrom = raw.some((t) => t.scheduled !== null)
    ? "schedule"
    : kind === "durations_only"
    ? "none"
    : "send";
  if (kind === "durations_only") {
    return {
      timeline: {
        kind,
        origin: "none: the source holds durations only, so every request is placed at ms 0 (scheduled and sent), " +
          "its first token at its TTFT and its end at its e2e; request order is the source's record order",
        epoch_known: false,
        scheduled_from: "none",
        rates: false,
      },
      epoch_iso: NO_EPOCH_ISO,
      origin: null,
      times: source.requests.map((r) => ({
        scheduled: 0,
        sent: 0,
        first_token: r.ttft_ms,
        ended: r.e2e_ms,
      })),
    };
  }
  const starts = kind === "epoch"
    ? source.stages.map((s) => s.start_epoch_ms).filter((t): t is number => t !== null)
    : [];
  const all = raw.flatMap((t) => [t.scheduled, t.sent, t.first_token, t.ended]).filter((t): t is number => t !== null);
  const origin = Math.floor(Math.min(...all, ...starts));
  const rel = (t: number | null) => (t === null ? null : t - origin);
  const times = raw.map((t) => ({
    scheduled: rel(t.scheduled ?? t.sent)!,
    sent: rel(t.sent),
    first_token: rel(t.first_token),
    ended: rel(t.ended),
  }));
  const epoch = kind === "epoch";
  const from = scheduledFrom === "schedule"
    ? "the tool's scheduled (targeted) time"
    : "the tool's send time (it keeps no schedule)";
  return {
    timeline: {
      kind,
      origin: epoch
        ? `the source's earliest wall-clock time (${new Date(origin).toISOString()}), floored to the ms; ` +
          `scheduled_ms is ${from}`
        : "the earliest time on the tool's own clock (time.perf_counter(): no epoch), so epoch_iso is a placeholder " +
          `(${NO_EPOCH_ISO}) and only differences between times are real; scheduled_ms is ${from}`,
      epoch_known: epoch,
      scheduled_from: scheduledFrom,
      rates: true,
    },
    epoch_iso: epoch ? new Date(origin).toISOString() : NO_EPOCH_ISO,
    origin,
    times,
  };
}

/** A stage's stated start and end on the run's clock (epoch sources only; null otherwise). */
export function stageTimes(
  placement: Placement,
  stage: { start_epoch_ms: number | null; end_epoch_ms: number | null },
): { start: number | null; end: number | null } {
  if (placement.timeline.kind !== "epoch" || placement.origin === null) return { start: null, end: null };
  const o = placement.origin;
  return {
    start: stage.start_epoch_ms === null ? null : stage.start_epoch_ms - o,
    end: stage.end_epoch_ms === null ? null : stage.end_epoch_ms - o,
  };
}
