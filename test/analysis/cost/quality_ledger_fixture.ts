/**
 * Prices for the quality fixture run (test/analysis/quality/_quality_fixture.ts, judge m only: 25 requests in the
 * window, one attempt each on route `default` with 10 input and 20 output tokens; judge m's 21 verdicts, 500 input
 * and 20 output tokens each; 17 human and 1 adjudicated verdicts of 30 s each), and the hand-worked ledger:
 *
 * - model bill: 25 × (10 × 100 + 20 × 200) / 1e6 = 25 × 0.005 = 0.125 USD (summ 21 × 0.005 = 0.105, qa 0.02);
 * - judge m: 21 × 500 = 10 500 input tokens × 2 USD/Mtok = 0.021; 21 × 20 = 420 output × 10 USD/Mtok = 0.0042;
 *   0.0252 in all, on summ's requests;
 * - human review (recorded): 18 verdicts × 30 s = 540 s = 0.15 h × 0.6 USD/h = 0.09, on summ's requests;
 * - every other overhead 0. Total 0.125 + 0.0252 + 0.09 = 0.2402: summ 0.2202, qa 0.02.
 */
import type { OverheadSheet, PriceSheet } from "../../../schema/prices.ts";
import { overheadSheet } from "../_fixture.ts";
import { hosted } from "./ledger_fixture.ts";

/** The hand-worked totals of the module doc. */
export const TOTAL = 0.2402, SUMM_TOTAL = 0.2202, QA_TOTAL = 0.02;

/** Route `default` at 100 USD/Mtok input, 200 output. */
export function qualitySheet(): PriceSheet {
  return {
    price_sheet_version: 1,
    name: "sheet-q",
    currency: "USD",
    as_of: "2026-01-02",
    source: "test sheet Q",
    notes: "",
    routes: { default: hosted(100, null, 200, { rejected: false, failed: true, cancelled: true }) },
  };
}

/** Judge m at 2 / 10 USD per Mtok, reviewers at 0.6 USD/h, every other overhead 0. */
export function qualityOverheads(): OverheadSheet {
  return overheadSheet({ name: "overheads-q", as_of: "2026-01-03", source: "test overheads Q" }, {
    retrieval: { per_call: 0 },
    tools: { per_call: 0 },
    storage: { per_gb_month: 0, bytes_per_request: 0, retention_months: 0 },
    observability: { per_request: 0 },
    human_review: {
      basis: "accepted",
      sample_rate: 0.5,
      minutes_per_review: 6,
      correction_rate: 0,
      minutes_per_correction: 0,
      hourly: 0.6,
    },
    evaluation: { judge_models: { m: { input_per_mtok: 2, output_per_mtok: 10, source: "test judge quote" } } },
    allocated_operations: { per_hour: 0 },
  });
}
