import type { OverheadSheet } from "../../schema/prices.ts";
import { sourceKind } from "../../schema/quality.ts";
import type { QualityTable } from "../../schema/quality_file.ts";
import { overheadSource } from "./_overhead_source.ts";
import type { LineBook } from "./price_lines.ts";

/** What human review is charged on: the window's requests (by index) and the run's quality table. */
export interface ReviewUsage {
  completed: boolean[];
  accepted: boolean[];
  /** The run's quality table and the window's requests by request_id (their index); null: the run has none. */
  quality: { table: QualityTable; index: ReadonlyMap<string, number> } | null;
}

/** Which basis the ledger charged human review on, and what it counted. */
export interface ReviewBasis {
  /**
   * `recorded`: the time the quality table's human and adjudicated verdicts record; `expected`: the overheads sheet's
   * expected counts (the run has no such verdict); `none`: neither (no verdict and no overheads sheet).
   */
  basis: "recorded" | "expected" | "none";
  /** Human and adjudicated verdicts in the quality table (0 unless `recorded`). */
  verdicts: number;
  /** Of those, the verdicts on the window's requests: the ones charged. */
  verdicts_in_window: number;
  /** Of the window's, those that record no time_spent_ms: not charged (their time is not known). */
  no_time: number;
  /** The recorded minutes charged: Σ time_spent_ms / 60 000 of the window's verdicts. */
  minutes: number;
  /** The sources of the verdicts (`human:ana`, `adjudicated:lead`), sorted. */
  sources: string[];
}

const REVIEW_KINDS = new Set(["human", "adjudicated"]);
const DETAIL = {
  human: "recorded time of human:* verdicts (quality table)",
  adjudicated: "recorded time of adjudicated:* verdicts (quality table)",
} as const;

/**
 * Prices human review. When the run's quality table holds any `human:*` or `adjudicated:*` verdict, the recorded
 * minutes replace the sheet's expected counts: each verdict on a request of the window is charged to that request,
 * its time_spent_ms / 3 600 000 reviewer hours × `human_review.hourly` (0 without a sheet, said so); a verdict that
 * records no time is not charged and a warning counts them. Otherwise the sheet's expected counts: reviews =
 * sample_rate × each accepted (or completed) task, × minutes_per_review, and corrections = correction_rate × reviews,
 * × minutes_per_correction, at the same hourly price. Returns the basis used.
 */
export function priceReview(
  book: LineBook,
  usage: ReviewUsage,
  sheet: OverheadSheet | null,
  warnings: string[],
): ReviewBasis {
  const hr = sheet?.human_review;
  const source = overheadSource(sheet, hr?.source);
  const rows = usage.quality?.table.rows.filter((r) => REVIEW_KINDS.has(sourceKind(r.source))) ?? [];
  if (rows.length && usage.quality) {
    const index = usage.quality.index;
    let inWindow = 0, noTime = 0, ms = 0;
    for (const r of rows) {
      const req = index.get(r.request_id);
      if (req === undefined) continue;
      inWindow++;
      if (r.time_spent_ms === null) {
        noTime++;
        continue;
      }
      ms += r.time_spent_ms;
      const kind = sourceKind(r.source) as "human" | "adjudicated";
      book.add(
        {
          item: "human_review",
          route: null,
          detail: DETAIL[kind],
          unit: "reviewer hour",
          unit_price: hr?.hourly ?? 0,
          source,
        },
        r.time_spent_ms / 3_600_000,
        req,
      );
    }
    if (noTime) {
      warnings.push(
        `human review: ${noTime} of the ${inWindow} human and adjudicated verdicts on the window's requests record no ` +
          `time_spent_ms: their review time is not known and not charged`,
      );
    }
    return {
      basis: "recorded",
      verdicts: rows.length,
      verdicts_in_window: inWindow,
      no_time: noTime,
      minutes: ms / 60_000,
      sources: [...new Set(rows.map((r) => r.source))].sort(),
    };
  }
  const none = { verdicts: 0, verdicts_in_window: 0, no_time: 0, minutes: 0, sources: [] };
  if (!hr) return { basis: "none", ...none };
  const basis = hr.basis === "accepted" ? usage.accepted : usage.completed;
  const reviewHours = hr.minutes_per_review / 60, fixHours = hr.minutes_per_correction / 60;
  const reviewDetail =
    `reviews: ${hr.sample_rate} of ${hr.basis} tasks × ${hr.minutes_per_review} min (expected count)`;
  const fixDetail = `corrections: ${hr.correction_rate} of reviews × ${hr.minutes_per_correction} min (expected count)`;
  for (let i = 0; i < basis.length; i++) {
    if (!basis[i]) continue;
    book.add(
      {
        item: "human_review",
        route: null,
        detail: reviewDetail,
        unit: "review",
        unit_price: reviewHours * hr.hourly,
        source,
      },
      hr.sample_rate,
      i,
    );
    book.add(
      {
        item: "human_review",
        route: null,
        detail: fixDetail,
        unit: "correction",
        unit_price: fixHours * hr.hourly,
        source,
      },
      hr.sample_rate * hr.correction_rate,
      i,
    );
  }
  return { basis: "expected", ...none };
}
