import type { OverheadSheet } from "../../schema/prices.ts";
import type { QualityTable } from "../../schema/quality_file.ts";
import { overheadSource } from "./_overhead_source.ts";
import type { LineBook } from "./price_lines.ts";
import { type JudgeCharge, priceJudge } from "./price_judge.ts";
import { priceReview, type ReviewBasis } from "./price_review.ts";

/** What overheads are charged on: the window's requests (by index) and their tool calls. */
export interface OverheadUsage {
  sent: boolean[];
  completed: boolean[];
  accepted: boolean[];
  /** Attempts of each request in the window. */
  attempts: Int32Array;
  /** Tool calls of the window's requests: request index and tool name. */
  tools: { req: Int32Array; tool: string[] };
  measurement_seconds: number;
  /** The run's quality table and the window's requests by request_id (their index); null: the run has none. */
  quality: { table: QualityTable; index: ReadonlyMap<string, number> } | null;
}

/** How the evaluation lines were charged: each judge part, and the basis of human review. */
export interface EvaluationCharges {
  judge: JudgeCharge[];
  human_review: ReviewBasis;
  /** One line each: a judge model NOT PRICED, verdicts that record no time or tokens, totals below their rows. */
  warnings: string[];
}

/**
 * Prices the overheads every route pays, per request where a request causes
 * them: retrieval and tool calls (failed calls included), storage and
 * observability of every sent request, a model judge's recorded tokens
 * (analysis/cost/price_judge.ts), human review — its recorded time when the
 * quality table has human verdicts, else the sheet's expected counts
 * (analysis/cost/price_review.ts) — and shared operations over the window,
 * spread evenly over the offered requests. Without a sheet the same lines
 * are written at price 0 and say so.
 */
export function priceOverheads(
  book: LineBook,
  usage: OverheadUsage,
  sheet: OverheadSheet | null,
): EvaluationCharges {
  const src = (s?: string) => overheadSource(sheet, s);
  const n = usage.sent.length;

  const retrievalTool = sheet?.retrieval.tool ?? "retrieval";
  for (let k = 0; k < usage.tools.req.length; k++) {
    const tool = usage.tools.tool[k]!, req = usage.tools.req[k]!;
    if (tool === retrievalTool) {
      const p = sheet?.retrieval.per_call ?? 0;
      book.add(
        {
          item: "retrieval",
          route: null,
          detail: `${tool} calls`,
          unit: "call",
          unit_price: p,
          source: src(sheet?.retrieval.source),
        },
        1,
        req,
      );
    } else {
      const p = sheet ? sheet.tools.per_tool[tool] ?? sheet.tools.per_call : 0;
      book.add(
        {
          item: "tools",
          route: null,
          detail: `${tool} calls`,
          unit: "call",
          unit_price: p,
          source: src(sheet?.tools.source),
        },
        1,
        req,
      );
    }
  }

  const st = sheet?.storage;
  const gbMonths = st ? st.bytes_per_request / 1e9 * st.retention_months : 0;
  const storageDetail = st
    ? `records of sent requests: ${st.bytes_per_request} bytes × ${st.retention_months} months each`
    : "records of sent requests";
  const obs = sheet?.observability;
  for (let i = 0; i < n; i++) {
    if (!usage.sent[i]) continue;
    book.add(
      {
        item: "storage",
        route: null,
        detail: storageDetail,
        unit: "GB-month",
        unit_price: st?.per_gb_month ?? 0,
        source: src(st?.source),
      },
      gbMonths,
      i,
    );
    book.add(
      {
        item: "observability",
        route: null,
        detail: "traces of sent requests",
        unit: "request",
        unit_price: obs?.per_request ?? 0,
        source: src(obs?.source),
      },
      1,
      i,
    );
    if (obs && obs.per_attempt > 0) {
      book.add(
        {
          item: "observability",
          route: null,
          detail: "spans (one per attempt)",
          unit: "attempt",
          unit_price: obs.per_attempt,
          source: src(obs.source),
        },
        usage.attempts[i]!,
        i,
      );
    }
  }

  // The design's order: ... observability, judge, human review, allocated operations.
  const warnings: string[] = [];
  const judge = priceJudge(book, usage.quality, sheet, warnings);
  const human_review = priceReview(book, usage, sheet, warnings);

  const ops = sheet?.allocated_operations;
  book.addSpread(
    {
      item: "allocated_operations",
      route: null,
      detail: "shared operations × window hours, spread evenly over offered requests",
      unit: "hour",
      unit_price: ops?.per_hour ?? 0,
      source: src(ops?.source),
    },
    usage.measurement_seconds / 3600,
    new Float64Array(n).fill(1),
  );
  return { judge, human_review, warnings };
}
