/**
 * A page's record of one task (posted by recorder/browser.js): checked field by field, then turned into the page and
 * network phases of the task it joins. Page-clock times are placed on the service clock with the page's own estimate
 * of the offset between the two clocks (page − service), which each of those rows states with its error bound.
 *
 * @module
 */
import { z } from "zod";
import type { PhaseRow } from "../schema/events.ts";
import type { PageRecord } from "./types.ts";

/** The longest request id and page error the recorder takes from a page. */
const MAX_ID = 256;
const MAX_ERROR = 200;

const time = z.number(); // zod 4: finite only
const PageRecordSchema = z.object({
  request_id: z.string().min(1).max(MAX_ID),
  action_ms: time,
  sent_ms: time,
  first_byte_ms: time.nullable(),
  first_paint_ms: time.nullable(),
  last_byte_ms: time.nullable(),
  rendered_ms: time.nullable(),
  clock_offset_ms: time,
  clock_error_ms: time.nonnegative(),
  error: z.string().min(1).max(MAX_ERROR).nullable().optional(),
});

type TimeKey = "action_ms" | "sent_ms" | "first_byte_ms" | "first_paint_ms" | "last_byte_ms" | "rendered_ms";

/** Each pair (earlier, later) of a page's times that must be in that order when both are there. */
const ORDER: readonly (readonly [TimeKey, TimeKey])[] = [
  ["action_ms", "sent_ms"],
  ["sent_ms", "first_byte_ms"],
  ["sent_ms", "first_paint_ms"],
  ["sent_ms", "last_byte_ms"],
  ["sent_ms", "rendered_ms"],
  ["first_byte_ms", "first_paint_ms"],
  ["first_byte_ms", "last_byte_ms"],
  ["first_byte_ms", "rendered_ms"],
  ["first_paint_ms", "rendered_ms"],
  ["last_byte_ms", "rendered_ms"],
];

/** A page record checked: the record, or every problem with it. */
export type PageCheck = { ok: true; record: PageRecord } | { ok: false; problems: string[] };

/**
 * Checks a page record: every time a finite number (the optional ones finite or null), `clock_error_ms` ≥ 0, a
 * request id of 1–256 characters, an `error` of at most 200, and the times in the order the page lives them
 * (action ≤ sent ≤ first byte ≤ first paint ≤ rendered, first byte ≤ last byte ≤ rendered), every problem at once.
 *
 * @example A paint before the send is refused
 * ```ts
 * import { checkPageRecord } from "./page_join.ts";
 * import assert from "node:assert/strict";
 * const r = {
 *   request_id: "q1", action_ms: 100, sent_ms: 104, first_byte_ms: 180, first_paint_ms: 103, last_byte_ms: 400,
 *   rendered_ms: 420, clock_offset_ms: 2, clock_error_ms: 1,
 * };
 * assert.deepEqual(checkPageRecord(r), {
 *   ok: false,
 *   problems: ["sent_ms (104) is after first_paint_ms (103)", "first_byte_ms (180) is after first_paint_ms (103)"],
 * });
 * ```
 */
export function checkPageRecord(record: unknown): PageCheck {
  const parsed = PageRecordSchema.safeParse(record);
  if (!parsed.success) {
    return {
      ok: false,
      problems: parsed.error.issues.map((i) => `${i.path.map(String).join(".") || "(record)"}: ${i.message}`),
    };
  }
  const r = parsed.data;
  const problems: string[] = [];
  for (const [a, b] of ORDER) {
    const x = r[a];
    const y = r[b];
    if (x !== null && y !== null && x > y) problems.push(`${a} (${x}) is after ${b} (${y})`);
  }
  if (problems.length) return { ok: false, problems };
  return { ok: true, record: { ...r, error: r.error ?? null } };
}

/** A page time on the service clock (ms since the Unix epoch): page time − (page − service). */
export function toService(page: PageRecord, t: number): number {
  return t - page.clock_offset_ms;
}

/** The service-side times a page's phases meet. */
export interface ServiceEnds {
  /** The service received the request, and wrote the answer's last byte (null: not told). */
  received: number | null;
  responded: number | null;
}

/**
 * The page and network phases of a task whose page record joined, on the run's clock (ms since `epoch_ms`): `page`
 * (action → send), `network_up` (the page's send → the service received it), `network_down` (the service's last
 * byte → the page's last byte), `render` (the page's last byte → the first paint after the final DOM update). A
 * phase whose two ends are not both known is not written; a network phase spans two clocks, so clock error can make
 * it negative: it is written as measured, with the offset and its error bound on the row.
 *
 * @example A page 5 ms ahead of the service, the run's epoch at 1000
 * ```ts
 * import { pagePhases } from "./page_join.ts";
 * import assert from "node:assert/strict";
 * const page = {
 *   request_id: "q1", action_ms: 2005, sent_ms: 2009, first_byte_ms: 2100, first_paint_ms: 2110, last_byte_ms: 2300,
 *   rendered_ms: 2320, clock_offset_ms: 5, clock_error_ms: 1.5,
 * };
 * const rows = pagePhases(page, { received: 2010, responded: 2290 }, { run_id: "r", epoch_ms: 1000 });
 * // page: 2005 − 5 − 1000 = 1000 → 2009 − 5 − 1000 = 1004; network_up: 1004 → 2010 − 1000 = 1010; …
 * assert.deepEqual(rows.map((p) => [p.phase, p.started_ms, p.ended_ms]), [
 *   ["page", 1000, 1004], ["network_up", 1004, 1010], ["network_down", 1290, 1295], ["render", 1295, 1315],
 * ]);
 * ```
 */
export function pagePhases(
  page: PageRecord,
  service: ServiceEnds,
  run: { run_id: string; epoch_ms: number },
): PhaseRow[] {
  const onRun = (t: number) => toService(page, t) - run.epoch_ms;
  const rows: PhaseRow[] = [];
  const add = (phase: string, side: "page" | "network", started: number | null, ended: number | null) => {
    if (started === null || ended === null) return;
    rows.push({
      run_id: run.run_id,
      request_id: page.request_id,
      phase,
      side,
      started_ms: started,
      ended_ms: ended,
      clock_offset_ms: page.clock_offset_ms,
      clock_error_ms: page.clock_error_ms,
    });
  };
  const sent = onRun(page.sent_ms);
  const lastByte = page.last_byte_ms === null ? null : onRun(page.last_byte_ms);
  add("page", "page", onRun(page.action_ms), sent);
  add("network_up", "network", sent, service.received === null ? null : service.received - run.epoch_ms);
  add("network_down", "network", service.responded === null ? null : service.responded - run.epoch_ms, lastByte);
  add("render", "page", lastByte, page.rendered_ms === null ? null : onRun(page.rendered_ms));
  return rows;
}
