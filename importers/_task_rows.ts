/**
 * A source whose reader already built the contract's rows (OpenTelemetry traces: whole tasks with their calls, tool
 * steps and phases; importers/source.ts `SourceRows`) as an imported run: the rows are kept as they are, with the
 * import's run id, and run.json says where they came from, how they were mapped (the reader's rules) and what the
 * source lacks (the reader's lacks). The stages are built from the rows' stage labels by the rule every import uses.
 *
 * @module
 */
import type { ImportedManifest } from "../schema/imported_manifest.ts";
import { SCHEMA_MINOR, SCHEMA_VERSION } from "../schema/version.ts";
import type { SourceRows, SourceRun } from "./source.ts";
import { buildStages, STAGE_WINDOW_RULE } from "./_stages.ts";
import type { ContractRun, ToContractOptions } from "./_contract_run.ts";

/** The imported run of a source with rows (see the module doc). */
export function taskRowsContract(source: SourceRun, rows: SourceRows, options: ToContractOptions = {}): ContractRun {
  const run_id = options.run_id ?? `import-${source.tool}-${source.files[0]!.sha256.slice(0, 12)}`;
  const own = <T extends { run_id: string }>(list: readonly T[]) => list.map((r) => ({ ...r, run_id }));
  const requests = own(rows.requests);
  const attempts = own(rows.attempts);
  const lastEnd = new Map<string, number>();
  for (const a of attempts) {
    const end = a.completed_ms ?? a.last_token_ms ?? a.headers_ms ?? a.sent_ms;
    lastEnd.set(a.request_id, Math.max(lastEnd.get(a.request_id) ?? -Infinity, end));
  }
  const placement = {
    timeline: rows.timeline,
    epoch_iso: rows.epoch_iso,
    origin: null,
    times: requests.map((r) => ({
      scheduled: r.scheduled_ms,
      sent: r.first_sent_ms,
      first_token: r.first_token_ms,
      ended: r.completed_ms ?? lastEnd.get(r.request_id) ?? null,
    })),
  };
  const built = buildStages(source.stages, requests.map((r) => r.stage), placement);
  const lacks = [...source.lacks];
  if (built.notes.some((n) => n.includes("overlap"))) {
    lacks.push({
      field: "stage windows",
      consequence: "the arrivals of some stages overlap: a window over several of them counts the overlap's seconds " +
        "twice, so a rate over it is low",
    });
  }
  const routes = [...new Set(requests.map((r) => r.route))];
  const manifest: ContractRun["manifest"] = {
    schema_version: SCHEMA_VERSION,
    schema_minor: SCHEMA_MINOR,
    kind: "imported",
    run_id,
    epoch_iso: rows.epoch_iso,
    source: {
      tool: source.tool as ImportedManifest["source"]["tool"],
      tool_version: source.tool_version,
      files: source.files.map((f) => ({ path: f.path, sha256: f.sha256, format: f.format })),
      model: source.model,
      headlines: [],
      notes: [...source.notes, ...built.notes],
    },
    timeline: rows.timeline,
    lacks,
    mapping: [...rows.mapping, STAGE_WINDOW_RULE],
    workload: { name: `imported:${source.tool}`, classes: rows.classes },
    route: routes.length === 1 ? routes[0]! : `(${routes.length} routes)`,
    stages: built.stages,
    requests: requests.length,
  };
  return { manifest, requests, attempts, tools: own(rows.tools), phases: own(rows.phases) };
}
