/**
 * The stages of an imported run on the run's clock: one per stage of the source (in the tool's order), plus one per
 * stage label its records use that the source does not describe. A stage's window must hold every request of it
 * (the analysis counts a request in a window by its scheduled_ms), so it runs from the earlier of the tool's stated
 * start and its first scheduled request to the next stage's start; the last stage to the later of the tool's stated
 * end and the last time its requests recorded. Windows that would overlap because arrivals of two stages overlap
 * are kept as they are, and the run says so.
 *
 * @module
 */
import type { ImportedStage } from "../schema/imported_manifest.ts";
import type { SourceStage } from "./source.ts";
import { type Placement, stageTimes } from "./_timeline.ts";

/** The stages and what building them found (overlaps, stages without requests or window), each a sentence. */
export interface BuiltStages {
  stages: ImportedStage[];
  notes: string[];
}

const count = (n: number | null) => (n !== null && Number.isInteger(n) && n >= 0 ? n : null);

/** `warmup` for the tool's warm-up phase (a stage named warmup or warm-up), else `steady`. */
const kindOf = (name: string): ImportedStage["kind"] => (/^warm[-_ ]?up\b/i.test(name) ? "warmup" : "steady");

/** The stages of the run, from the source's stages, its requests' stage labels and their placed times. */
export function buildStages(
  sourceStages: readonly SourceStage[],
  requestStages: readonly string[],
  placement: Placement,
): BuiltStages {
  const notes: string[] = [];
  const described = new Map(sourceStages.map((s) => [s.name, s]));
  const names = [...new Set([...sourceStages.map((s) => s.name), ...requestStages])];
  const spans = names.flatMap((name) => {
    const mine = placement.times.filter((_, i) => requestStages[i] === name);
    const sched = mine.map((t) => t.scheduled);
    const ends = mine.flatMap((t) => [t.scheduled, t.sent, t.first_token, t.ended]).filter((t): t is number =>
      t !== null
    );
    const stated = described.has(name) ? stageTimes(placement, described.get(name)!) : { start: null, end: null };
    const starts = [...sched, ...(stated.start === null ? [] : [stated.start])];
    if (!starts.length) {
      notes.push(
        `stage "${name}" has no request record and no stated window: not a stage of the run (its totals stay in the tool's headlines)`,
      );
      return [];
    }
    const lastSched = sched.length ? Math.max(...sched) : null;
    return [{
      name,
      start: Math.min(...starts),
      end: Math.max(...ends, ...(stated.end === null ? [] : [stated.end])),
      lastSched,
      source: described.get(name) ?? null,
    }];
  });
  spans.sort((a, b) => a.start - b.start);
  const stages: ImportedStage[] = spans.map((s, i) => {
    const next = spans[i + 1];
    let end = s.end;
    if (next && end > next.start) {
      if (s.lastSched === null || s.lastSched < next.start) end = next.start;
      else {
        notes.push(
          `stages "${s.name}" and "${next.name}" overlap in their arrivals: their windows overlap, so a window over ` +
            "both counts the overlap's seconds twice",
        );
      }
    }
    // The window is half-open: it must end after its last scheduled request (1 ms after it at least).
    if (s.lastSched !== null && end <= s.lastSched) end = s.lastSched + 1;
    if (end <= s.start) end = s.start + 1;
    const src = s.source;
    const concurrency = src?.concurrency ?? null;
    return {
      name: s.name,
      kind: kindOf(s.name),
      start_ms: s.start,
      end_ms: end,
      offered_rps: src?.rate_rps ?? null,
      concurrency: concurrency !== null && Number.isInteger(concurrency) && concurrency > 0 ? concurrency : null,
      tool_duration_s: src?.duration_s ?? null,
      tool_totals: {
        ok: count(src?.totals.ok ?? null),
        error: count(src?.totals.error ?? null),
        cancelled: count(src?.totals.cancelled ?? null),
        incomplete: count(src?.totals.incomplete ?? null),
      },
    };
  });
  return { stages, notes };
}

/** The stage window rule, stated in run.json `mapping` and in docs/importing.md. */
export const STAGE_WINDOW_RULE =
  "a stage runs from the earlier of the tool's stated start and its first scheduled request to the next stage's " +
  "start (the last stage: to the later of the tool's stated end and the last time its requests recorded), and at " +
  "least 1 ms past its last scheduled request; a stage named warmup is kind warmup, every other stage steady; its " +
  "offered_rps is the rate the tool was set to (null when it set none: closed loop)";
