import type { OverheadSheet } from "../../schema/prices.ts";
import type { LineBook } from "./price_lines.ts";

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
}

const NOT_PRICED = "not priced: no overheads sheet given (--overheads)";

/**
 * Prices the overheads every route pays, per request where a request causes
 * them: retrieval and tool calls (failed calls included), storage and
 * observability of every sent request, human review of a sample of
 * accepted or completed tasks (expected reviews = sample_rate × tasks; the
 * basis is stated in the line) plus the corrections it finds, and shared
 * operations over the window, spread evenly over the offered requests.
 * Without a sheet the same lines are written at price 0 and say so.
 */
export function priceOverheads(book: LineBook, usage: OverheadUsage, sheet: OverheadSheet | null): void {
  const src = (s?: string) => (sheet ? `${sheet.name}: ${s ?? sheet.source} (as of ${sheet.as_of})` : NOT_PRICED);
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

  const hr = sheet?.human_review;
  if (hr) {
    const basis = hr.basis === "accepted" ? usage.accepted : usage.completed;
    const reviewHours = hr.minutes_per_review / 60, fixHours = hr.minutes_per_correction / 60;
    const reviewDetail =
      `reviews: ${hr.sample_rate} of ${hr.basis} tasks × ${hr.minutes_per_review} min (expected count)`;
    const fixDetail =
      `corrections: ${hr.correction_rate} of reviews × ${hr.minutes_per_correction} min (expected count)`;
    for (let i = 0; i < n; i++) {
      if (!basis[i]) continue;
      book.add(
        {
          item: "human_review",
          route: null,
          detail: reviewDetail,
          unit: "review",
          unit_price: reviewHours * hr.hourly,
          source: src(hr.source),
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
          source: src(hr.source),
        },
        hr.sample_rate * hr.correction_rate,
        i,
      );
    }
  }

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
}
