import { z } from "zod";

/** A time or duration unit a per-request file may use (apart from the log's own `TimeUnit` of schema/events.ts). */
export const SourceTimeUnit = z.enum(["s", "ms", "us", "ns"]);
export type SourceTimeUnit = z.infer<typeof SourceTimeUnit>;

/** Milliseconds per unit. */
export const MS_PER_UNIT: Record<SourceTimeUnit, number> = { s: 1000, ms: 1, us: 1e-3, ns: 1e-6 };

const column = z.string().min(1);

/** The per-request fields a column can feed (the {@linkcode SourceRequest} fields of importers/source.ts). */
const Columns = z.object({
  /** The request's id (else its position: `#0`, `#1`, …). */
  id: column.optional(),
  /** The stage label (else every row is in `default_stage`). */
  stage: column.optional(),
  /** The outcome, mapped to ok/error/cancelled/incomplete by `outcomes`. */
  outcome: column.optional(),
  /** The tool's own status or error label, kept verbatim. */
  tool_status: column.optional(),
  http_status: column.optional(),
  /** Times (see `times`): when the request was meant to go, was sent, got its first token, was complete. */
  scheduled: column.optional(),
  sent: column.optional(),
  first_token: column.optional(),
  completed: column.optional(),
  /** Durations as the tool measured them (see `durations`). */
  ttft: column.optional(),
  e2e: column.optional(),
  /** Inter-token gaps: a JSON array (JSONL) or a JSON array in one CSV cell. */
  itl: column.optional(),
  input_tokens: column.optional(),
  output_tokens: column.optional(),
}).strict();

const TIME_COLUMNS = ["scheduled", "sent", "first_token", "completed"] as const;
const DURATION_COLUMNS = ["ttft", "e2e", "itl"] as const;

/**
 * A mapping file for a per-request JSONL or CSV written by a tool the importers do not know: which column feeds
 * which field, the units, how outcome values read, the tool as the user names it, and what the user declares the
 * file lacks. Documented with an example in docs/peer_definitions.md (`data/import-examples/`).
 */
export const ImportMapping = z.object({
  /** The tool that wrote the file, as the user states it. */
  tool: z.object({ name: z.string().min(1), version: z.string().nullable() }).strict(),
  /** The model, when the user knows it. */
  model: z.string().nullable().default(null),
  columns: Columns,
  /** Units and clock of the time columns: epoch (since 1970-01-01 UTC) or relative to the run's start. */
  times: z.object({
    unit: SourceTimeUnit,
    clock: z.enum(["epoch", "relative"]),
    /** For relative times: the wall-clock time of 0, when the user knows it (else the times keep no epoch). */
    epoch_iso: z.iso.datetime({ offset: true }).optional(),
  }).strict().optional(),
  /** Unit of the duration columns (ttft, e2e, itl). */
  durations: z.object({ unit: SourceTimeUnit }).strict().optional(),
  /** The outcome column's values, each listed under the kind it means (a value listed nowhere is an error). */
  outcomes: z.object({
    ok: z.array(z.string()).min(1),
    error: z.array(z.string()).default([]),
    cancelled: z.array(z.string()).default([]),
    incomplete: z.array(z.string()).default([]),
  }).strict().optional(),
  /** Declares that the file lists only answered requests (no outcome column): every row is `ok`. */
  every_row_ok: z.literal(true).optional(),
  /** Where the token counts come from, when the user knows. */
  token_source: z.enum(["server_usage", "tool_tokenizer"]).nullable().default(null),
  /** The stage of every row when there is no stage column. */
  default_stage: z.string().min(1).default("all"),
  /** The tool's other per-request numbers to keep, under the user's names: name → column (units in the name). */
  tool_metrics: z.record(z.string().min(1), column).default({}),
  /** What the user declares the file does not hold, with the consequence, in addition to what the reader finds. */
  lacks: z.array(z.object({ field: z.string().min(1), consequence: z.string().min(1) }).strict()).default([]),
}).strict().superRefine((m, ctx) => {
  const has = (k: keyof typeof m.columns) => m.columns[k] !== undefined;
  if (TIME_COLUMNS.some(has) && !m.times) {
    ctx.addIssue({
      code: "custom",
      path: ["times"],
      message: "a time column is mapped: give times.unit and times.clock",
    });
  }
  if (DURATION_COLUMNS.some(has) && !m.durations) {
    ctx.addIssue({ code: "custom", path: ["durations"], message: "a duration column is mapped: give durations.unit" });
  }
  if (m.times?.epoch_iso !== undefined && m.times.clock !== "relative") {
    ctx.addIssue({ code: "custom", path: ["times", "epoch_iso"], message: "epoch_iso applies to relative times only" });
  }
  if (has("outcome") && !m.outcomes) {
    ctx.addIssue({ code: "custom", path: ["outcomes"], message: "columns.outcome is mapped: list its values" });
  }
  if (has("outcome") && m.every_row_ok) {
    ctx.addIssue({ code: "custom", path: ["every_row_ok"], message: "give columns.outcome or every_row_ok, not both" });
  }
  if (!has("outcome") && !m.every_row_ok) {
    ctx.addIssue({
      code: "custom",
      path: ["columns", "outcome"],
      message: "map an outcome column, or declare every_row_ok: true (the file lists answered requests only)",
    });
  }
  if (m.outcomes) {
    const seen = new Map<string, string>();
    for (const kind of ["ok", "error", "cancelled", "incomplete"] as const) {
      for (const v of m.outcomes[kind]) {
        const before = seen.get(v);
        if (before) {
          ctx.addIssue({
            code: "custom",
            path: ["outcomes", kind],
            message: `"${v}" is listed under ${before} too`,
          });
        }
        seen.set(v, kind);
      }
    }
  }
});
export type ImportMapping = z.infer<typeof ImportMapping>;
