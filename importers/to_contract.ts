/**
 * The one place where a peer tool's files, read into a {@linkcode SourceRun}, become the contract's rows and an
 * imported run.json (schema/imported_manifest.ts): every tool's gaps are stated the same way.
 *
 * The rules, stated in run.json `mapping`, in docs/importing.md and in {@linkcode MAPPING_RULES}:
 * - times: see importers/_timeline.ts (scheduled_ms is the tool's schedule when it has one, else its send time;
 *   durations only: every request at ms 0, no time window);
 * - outcomes: ok → ok; error → rejected (HTTP 429), http_error (any other HTTP status), transport_error (no status
 *   recorded); cancelled and incomplete → aborted; error_kind keeps the tool's own label, prefixed `source: `;
 * - one attempt per sent request (the tools make one call per request, no retry of ours);
 * - gates null with applicable_gates "" (no gate applies: n/a, not failed); class `imported`, route the model;
 * - the tool's per-request metrics that have no contract column stay in the source file, named in `mapping`.
 *
 * @module
 */
import { InputError } from "../schema/errors.ts";
import type { AttemptRow, RequestRow } from "../schema/events.ts";
import { IMPORTED_CLASS, type ImportedLack, type ImportedManifest } from "../schema/imported_manifest.ts";
import { SCHEMA_MINOR, SCHEMA_VERSION } from "../schema/version.ts";
import type { SourceRun, SourceTool } from "./source.ts";
import { requestRows } from "./_rows.ts";
import { buildStages, STAGE_WINDOW_RULE } from "./_stages.ts";
import { type Placement, placeRequests } from "./_timeline.ts";
import type { ContractRun, ToContractOptions } from "./_contract_run.ts";
import { taskRowsContract } from "./_task_rows.ts";

export { contractOutcome } from "./_rows.ts";

// The reader's tool names and the contract's are one list: a tool added to one and not the other fails to compile.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const _sameTools: Same<SourceTool, ImportedManifest["source"]["tool"]> = true;
void _sameTools;

export type { ContractRun, ToContractOptions } from "./_contract_run.ts";

/** How the source's outcomes, tokens and metrics were mapped, in words (run.json `mapping`). */
export const MAPPING_RULES: readonly string[] = [
  "outcome: the tool's ok → ok; its error → rejected when the HTTP status is 429, http_error with any other HTTP " +
  "status, transport_error when it recorded no status (the contract has no 'unknown error'); cancelled and " +
  "incomplete (in flight when the tool's window closed) → aborted; error_kind is the tool's own label prefixed " +
  '"source: "',
  "completed_ms is set for ok requests only (the tool's end of an answer); a failed request's end is its attempt's " +
  "completed_ms",
  "attempts: one per request the tool sent (round 0, attempt 1: the tools make one call per request); headers_ms " +
  "null; last_token_ms = the end of an ok answer; itl_p50_ms and itl_max_ms from the tool's inter-token gaps when it " +
  "kept them; token_source usage (the server's usage block) or tokenizer (the tool's own count), null when unknown",
  "gates: output_valid, schema_ok, quality_ok, safety_ok and auth_ok are null and applicable_gates is empty: no " +
  "gate applies, so a gate passes as n/a, never fails; quality_detail and output_sha256 null, prompt_sha256 empty",
  `class: every request is in the one class "${IMPORTED_CLASS}" (the tools record no task class); priority 0; ` +
  "shard 0; case_id empty; route and the attempt's model: the model the source states, else (not stated); " +
  "provider: the tool's name",
  "tokens: the tool's counts as it states them (token_source says whose); a count the source does not hold is " +
  "written 0 (the contract's counts are never null), and the lacks say how many",
  "streamed: true when the tool measured a first token (it streamed), else null (not recorded); send_lag_ms = " +
  "sent − scheduled when the tool keeps a schedule, else null (not recorded)",
  "the tool's other per-request numbers (its TPOT, ITL, throughput per request, queue times) have no contract " +
  "column: they stay in the source file under the tool's own names (source.files, verified by sha256), never " +
  "renamed to ours",
  STAGE_WINDOW_RULE,
];

/** The lacks the mapping adds to the reader's, each only when the reader does not state that field already. */
function mappingLacks(source: SourceRun, placement: Placement): ImportedLack[] {
  const out: ImportedLack[] = [];
  const tl = placement.timeline;
  if (tl.scheduled_from !== "schedule") {
    out.push({
      field: "scheduled_ms",
      consequence: "no scheduled time: scheduled_ms is the tool's send time (durations only: ms 0), so latency runs " +
        "from send and coordinated omission is possible (a request the tool sent late looks fast)",
    });
  }
  if (tl.kind === "clock") {
    out.push({
      field: "epoch",
      consequence: "no wall-clock time: epoch_iso is a placeholder (1970-01-01T00:00:00Z) and times are differences " +
        "on the tool's own clock (so are the epoch columns: scheduled_epoch_ms, sent_epoch_ms …)",
    });
  }
  if (tl.kind === "durations_only") {
    out.push({
      field: "time window",
      consequence: "durations only: every request is placed at ms 0, so no rate can be recomputed (accepted_goodput " +
        "is null); counts, ratios and latency distributions stand",
    });
  }
  out.push({
    field: "gates",
    consequence: "no quality, schema, safety or authorization check: gates are n/a, not failed",
  });
  out.push({
    field: "class",
    consequence: `the tool records no task class: every request is in the one class "${IMPORTED_CLASS}", so an SLO ` +
      "policy names that class or applies its default",
  });
  const noIn = source.requests.filter((r) => r.input_tokens === null).length;
  const noOut = source.requests.filter((r) => r.output_tokens === null).length;
  if (noIn || noOut) {
    out.push({
      field: "token counts (some records)",
      consequence: `${noIn} record(s) without input tokens and ${noOut} without output tokens (a failed request, for ` +
        "most tools): written as 0, so token sums and costs undercount them",
    });
  }
  const seen = new Set(source.lacks.map((l) => l.field));
  return out.filter((l) => !seen.has(l.field));
}

/** The request ids must be unique (one row per request): every duplicate is named with its records. */
function checkIds(source: SourceRun): void {
  const at = new Map<string, string[]>();
  for (const r of source.requests) at.set(r.id, [...(at.get(r.id) ?? []), r.at]);
  const dupes = [...at].filter(([, where]) => where.length > 1);
  if (!dupes.length) return;
  throw new InputError(
    `${source.tool}: ${dupes.length} request id(s) used by more than one record (one row per request)`,
    dupes.slice(0, 10).map(([id, where]) => `request id ${JSON.stringify(id)}: ${where.join("; ")}`),
  );
}

/**
 * Maps a source with per-request records onto the contract: the rows of requests and attempts (tools: none) and
 * run.json of kind `imported` (without `files`, `importer`, `slo`, which the writer adds). A source whose reader built
 * the rows itself (OTLP traces: importers/_task_rows.ts) keeps them, with its own mapping rules and lacks. A
 * summary-only source is an InputError (it becomes claims, importers/to_claims.ts).
 *
 * @example LLMPerf's durations become rows at ms 0 with no time window
 * ```ts
 * import assert from "node:assert/strict";
 * import { toContract } from "./to_contract.ts";
 * import { readSource } from "./sources/mod.ts";
 * const source = await readSource("llmperf", ["data/peers/llmperf/individual/groq_70b.json"]);
 * const { manifest, requests } = toContract(source);
 * assert.equal(manifest.timeline.kind, "durations_only");
 * assert.equal(requests[0]!.scheduled_ms, 0);
 * assert.equal(requests[0]!.completed_ms, source.requests[0]!.e2e_ms);
 * ```
 */
export function toContract(source: SourceRun, options: ToContractOptions = {}): ContractRun {
  if (source.summary_only || !source.requests.length) {
    throw new InputError(
      `${source.tool}: ${source.files.map((f) => f.path).join(", ")}: no per-request records (a summary): it ` +
        "becomes aggregate claims, not a run",
    );
  }
  checkIds(source);
  if (source.rows) return taskRowsContract(source, source.rows, options);
  const run_id = options.run_id ?? `import-${source.tool}-${source.files[0]!.sha256.slice(0, 12)}`;
  const placement = placeRequests(source);
  const route = source.model ?? "(not stated)";
  const built = buildStages(source.stages, source.requests.map((r) => r.stage), placement);
  const requests: RequestRow[] = [];
  const attempts: AttemptRow[] = [];
  for (const [i, r] of source.requests.entries()) {
    const out = requestRows(source.tool, r, placement.times[i]!, { run_id, route });
    requests.push(out.request);
    if (out.attempt) attempts.push(out.attempt);
  }
  const lacks = [...source.lacks, ...mappingLacks(source, placement)];
  if (built.notes.some((n) => n.includes("overlap"))) {
    lacks.push({
      field: "stage windows",
      consequence: "the arrivals of some stages overlap: a window over several of them counts the overlap's seconds " +
        "twice, so a rate over it is low",
    });
  }
  const manifest: ContractRun["manifest"] = {
    schema_version: SCHEMA_VERSION,
    schema_minor: SCHEMA_MINOR,
    kind: "imported",
    run_id,
    epoch_iso: placement.epoch_iso,
    source: {
      tool: source.tool,
      tool_version: source.tool_version,
      files: source.files.map((f) => ({ path: f.path, sha256: f.sha256, format: f.format })),
      model: source.model,
      headlines: source.headlines.map((h) => ({
        key: h.key,
        stage: h.stage,
        value: h.value,
        ...(h.text === undefined ? {} : { text: h.text }),
        unit: h.unit,
        definition: h.definition,
      })),
      notes: [...source.notes, ...built.notes],
    },
    timeline: placement.timeline,
    lacks,
    mapping: [...MAPPING_RULES],
    workload: { name: `imported:${source.tool}`, classes: [IMPORTED_CLASS] },
    route,
    stages: built.stages,
    requests: requests.length,
  };
  return { manifest, requests, attempts };
}
