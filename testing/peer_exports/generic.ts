/**
 * Our rows as a generic per-request CSV with its mapping file (schema/import_mapping.ts), for round-trip tests of the
 * generic reader — what a user of a tool the importers do not know would hand over.
 *
 * What the export carries: every offered row (never-sent ones too, with outcome `not_sent`), our outcomes verbatim
 * (mapped: `ok` → ok, the rest → error), times in ms relative to the run epoch (stated in the mapping), TTFT and e2e
 * from send, tokens from the server's usage. It carries no gates and no schedule (declared in the mapping's lacks).
 *
 * @module
 */
import { stringify } from "csv-stringify/sync";
import { OUTCOMES, type RequestRow } from "../../schema/events.ts";
import type { ImportMapping } from "../../schema/import_mapping.ts";

/** The CSV text and the mapping (as JSON text) for these rows; `epochIso` is the run's `epoch_iso`. */
export function exportGeneric(rows: readonly RequestRow[], epochIso: string): { csv: string; mapping: string } {
  const header = ["id", "stage", "outcome", "http", "sent_ms", "first_token_ms", "completed_ms", "ttft_ms", "e2e_ms"];
  const body = rows.map((r) => {
    const sent = r.first_sent_ms;
    return [
      r.request_id,
      r.stage,
      r.outcome,
      r.http_status ?? "",
      sent ?? "",
      r.first_token_ms ?? "",
      r.completed_ms ?? "",
      sent !== null && r.first_token_ms !== null ? r.first_token_ms - sent : "",
      sent !== null && r.completed_ms !== null ? r.completed_ms - sent : "",
      r.input_tokens,
      r.output_tokens,
    ];
  });
  const mapping: ImportMapping = {
    tool: { name: "goodput-runner", version: null },
    model: null,
    columns: {
      id: "id",
      stage: "stage",
      outcome: "outcome",
      tool_status: "outcome",
      http_status: "http",
      sent: "sent_ms",
      first_token: "first_token_ms",
      completed: "completed_ms",
      ttft: "ttft_ms",
      e2e: "e2e_ms",
      input_tokens: "input_tokens",
      output_tokens: "output_tokens",
    },
    times: { unit: "ms", clock: "relative", epoch_iso: epochIso },
    durations: { unit: "ms" },
    outcomes: { ok: ["ok"], error: OUTCOMES.filter((o) => o !== "ok"), cancelled: [], incomplete: [] },
    token_source: "server_usage",
    default_stage: "all",
    tool_metrics: {},
    lacks: [{ field: "scheduled_ms", consequence: "the export writes no scheduled time: latency runs from send" }],
  };
  return {
    csv: stringify([[...header, "input_tokens", "output_tokens"], ...body]),
    mapping: JSON.stringify(mapping, null, 2),
  };
}
