/**
 * Production recordings written by hand from contract rows, as the recorder lays them out (contract 1.5): run.json
 * of kind `production` and `part-NNNNN/` folders, each holding the tables as CSV (+ schema sidecars) or Parquet, with
 * run.json listing each rotated part's files with their sha256. The writers are the runner's sinks (test code only:
 * analysis/ never imports runner/).
 */
import { join } from "node:path";
import { CsvSink } from "../../runner/sinks/csv_sink.ts";
import { writeCsvSchema } from "../../runner/sinks/csv_schema.ts";
import { writeParquetFromRows } from "../../runner/sinks/parquet_writer.ts";
import type { AttemptRow, PhaseRow, RequestRow, ToolRow } from "../../schema/events.ts";
import type { RowOf } from "../../schema/column_kinds.ts";
import type { Stage } from "../../schema/plan.ts";
import { partDir, type ProductionManifest, type ProductionPart } from "../../schema/production_manifest.ts";
import { SCHEMA_MINOR } from "../../schema/version.ts";
import { sha256, writeManifest } from "./_fixture.ts";

export const PROD_RUN = "prod-run";
export const PROD_EPOCH = "2026-05-01T08:00:00.000Z";

/** One part's rows and how it is stored. */
export interface PartRows {
  format: "csv" | "parquet";
  requests?: RequestRow[];
  attempts?: AttemptRow[];
  tools?: ToolRow[];
  phases?: PhaseRow[];
  /** A table this part does not hold at all (no file), e.g. a part without page records has no phases file. */
  omit?: ("requests" | "attempts" | "tools" | "phases")[];
  /** The part's window on the run's clock; `ended_ms` null: the part being written. @default [0, null] for csv */
  started_ms?: number;
  ended_ms?: number | null;
}

/** A stage window of a recording (kind steady, as the recorder writes them); offered_rps as run.json says. */
export function windowStage(name: string, startS: number, endS: number, offered_rps = 0): Stage {
  return { name, kind: "steady", start_ms: startS * 1000, end_ms: endS * 1000, offered_rps };
}

/** A valid run.json of a closed production recording (two parts are added by `writeProduction`); `over` replaces keys. */
export function productionManifest(over: Partial<ProductionManifest> = {}): ProductionManifest {
  return {
    schema_version: 1,
    schema_minor: SCHEMA_MINOR,
    kind: "production",
    run_id: PROD_RUN,
    epoch_iso: PROD_EPOCH,
    app: { name: "chat-app", version: "1.4.2" },
    conditions: { model: "sim-llm", region: "local" },
    observation: {
      status: "closed",
      started_iso: PROD_EPOCH,
      ended_iso: "2026-05-01T08:00:20.000Z",
      ended_ms: 20_000,
      stage_s: 10,
    },
    sampling: { rate: 1, rule: "every request id" },
    definitions: {
      offered: "the user actions observed and sampled",
      measurement_seconds: "the observation window, stage window by stage window",
    },
    workload: { name: "chat", classes: ["chat", "summarize"] },
    route: "app",
    stages: [windowStage("w0000", 0, 10), windowStage("w0001", 10, 20)],
    parts: [{ dir: partDir(0), started_ms: 0, ended_ms: null, format: "csv", requests: 0, files: {} }],
    requests: 0,
    dropped: { requests: 0, attempts: 0, tools: 0, phases: 0, page_records_unjoined: 0, recorder_errors: 0 },
    recorder: {
      name: "goodput-recorder",
      version: "0.1.0",
      runtime: "deno 2.9.6",
      buffer_rows: 10_000,
      flush_ms: 1000,
      rotate_s: 3600,
      rotate_bytes: 64 << 20,
    },
    ...over,
  };
}

const TABLES = ["requests", "attempts", "tools", "phases"] as const;

/** Every row's run_id set to the run's, as the recorder writes it. */
const own = <T extends { run_id: string }>(rows: readonly T[] | undefined, runId: string): T[] =>
  (rows ?? []).map((r) => ({ ...r, run_id: runId }));

/**
 * Writes a production recording: run.json (`manifest`, its `parts` and `requests` filled from `parts`) and one folder
 * per part. A Parquet part is a rotated one: its files are listed in run.json with their sha256 and it has an end; a
 * CSV part is the one being written (`ended_ms` null, no files listed) unless `ended_ms` is given, which lists them.
 * Returns the folder.
 */
export function writeProduction(dir: string, manifest: ProductionManifest, parts: PartRows[]): string {
  Deno.mkdirSync(dir, { recursive: true });
  const identity = { run_id: manifest.run_id, epoch_iso: manifest.epoch_iso };
  const listed: ProductionPart[] = [];
  for (const [i, p] of parts.entries()) {
    const folder = join(dir, partDir(i));
    Deno.mkdirSync(folder, { recursive: true });
    const files: Record<string, string> = {};
    const ended = p.ended_ms !== undefined ? p.ended_ms : p.format === "parquet" ? manifest.observation.ended_ms : null;
    for (const table of TABLES) {
      if (p.omit?.includes(table)) continue;
      const rows = own(p[table] as { run_id: string }[] | undefined, manifest.run_id) as RowOf<typeof table>[];
      if (p.format === "parquet") {
        const name = `${table}.parquet`;
        writeParquetFromRows(join(folder, name), table, rows, { identity });
        files[name] = sha256(join(folder, name));
      } else {
        const sink = CsvSink.open(folder, table, { epochMs: Date.parse(manifest.epoch_iso) });
        for (const r of rows) sink.append(r);
        sink.close();
        writeCsvSchema(folder, table, { identity });
        if (ended !== null) files[`${table}.csv`] = sha256(join(folder, `${table}.csv`));
      }
    }
    listed.push({
      dir: partDir(i),
      started_ms: p.started_ms ?? 0,
      ended_ms: ended,
      format: p.format,
      requests: p.requests?.length ?? 0,
      files,
    });
  }
  const requests = listed.reduce((n, p) => n + p.requests, 0);
  writeManifest(dir, { ...manifest, parts: listed, requests });
  return dir;
}

/** A phase row of request `request_id` (a page-side row carries the page's clock offset and its error). */
export function phase(request_id: string, name: string, started_ms: number, ended_ms: number): PhaseRow {
  const page = name === "page" || name === "render" || name.startsWith("network");
  return {
    run_id: PROD_RUN,
    request_id,
    phase: name,
    side: name === "page" || name === "render" ? "page" : name.startsWith("network") ? "network" : "service",
    started_ms,
    ended_ms,
    clock_offset_ms: page ? 3 : null,
    clock_error_ms: page ? 0.5 : null,
  };
}

/** A tool row of request `request_id` (`retrieval` or a tool's name), ok. */
export function toolRow(request_id: string, tool: string, started_ms: number, ended_ms: number, round = 0): ToolRow {
  return { run_id: PROD_RUN, request_id, round, tool, started_ms, ended_ms, ok: true, error_kind: null };
}
