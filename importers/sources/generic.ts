/**
 * A per-request JSONL or CSV written by a tool the importers do not know, read through a mapping file
 * (`schema/import_mapping.ts`): the one `.json` file given is the mapping, every `.csv`/`.jsonl` file is data. Each
 * mapped cell is converted only in unit; a value the mapping does not allow (an outcome not listed, a number that is
 * not one) is an InputError naming the file, the line and the column.
 *
 * @module
 */
import { InputError } from "../../schema/errors.ts";
import { ImportMapping, MS_PER_UNIT } from "../../schema/import_mapping.ts";
import type { SourceLack, SourceOutcome, SourceRequest, SourceRun, SourceStage } from "../source.ts";
import { baseName, checked, fileEntry, parseJson, type SourceText } from "./_source_text.ts";
import { type DataFile, type DataRow, hasColumn, readDataFile } from "./generic_rows.ts";

/** Reads the mapping file: its JSON and its shape (an InputError names the file and the key). */
export function readImportMapping(file: SourceText): ImportMapping {
  return checked(ImportMapping, parseJson(file.text, file.path), file.path);
}

/** The lacks the reader finds from what the mapping leaves out (a field the user already declared is not repeated). */
function foundLacks(m: ImportMapping): SourceLack[] {
  const c = m.columns;
  const out: SourceLack[] = [];
  if (!c.scheduled) {
    out.push({
      field: "scheduled_ms",
      consequence: "no scheduled time: latency runs from send, and coordinated omission (a late send hiding queueing " +
        "in the client) is possible and cannot be checked",
    });
  }
  if (!c.sent && !c.first_token && !c.completed) {
    out.push({
      field: "absolute times",
      consequence: "no send or completion time: there is no time window, so rates and goodput per second cannot be " +
        "recomputed",
    });
  } else if (m.times?.clock === "relative" && !m.times.epoch_iso) {
    out.push({
      field: "epoch (wall-clock times)",
      consequence: "relative times with no stated start: durations and gaps are exact, but no wall-clock window or " +
        "run epoch can be stated",
    });
  }
  if (m.every_row_ok) {
    out.push({
      field: "failed requests",
      consequence: "the file lists answered requests only (declared every_row_ok): failures, if any, are not in it, " +
        "so the offered denominator cannot be recovered",
    });
  }
  if (!c.input_tokens && !c.output_tokens) {
    out.push({ field: "token counts", consequence: "no token counts: token throughputs and per-token latencies n/a" });
  } else if (m.token_source === null) {
    out.push({
      field: "token counts",
      consequence: "the mapping does not say whether token counts are the server's usage or the tool's tokenizer",
    });
  }
  out.push({
    field: "gates",
    consequence: "no quality, schema or safety check is mapped: those gates are n/a (not evaluated), not failed",
  });
  const declared = new Set(m.lacks.map((l) => l.field));
  return out.filter((l) => !declared.has(l.field));
}

/** One row as a {@linkcode SourceRequest}; every conversion failure names file, line and column. */
function toRequest(m: ImportMapping, file: string, row: DataRow, index: number): SourceRequest {
  const at = (column: string) => `${file}:${row.line}: column "${column}"`;
  const num = (key: keyof ImportMapping["columns"]): number | null => {
    const column = m.columns[key];
    if (!column) return null;
    const v = row.cell(column);
    if (v === null) return null;
    const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : Number.NaN;
    if (!Number.isFinite(n)) throw new InputError(`${at(column)}: ${JSON.stringify(v)} is not a number`);
    return n;
  };
  const str = (column: string | undefined): string | null => {
    const v = column ? row.cell(column) : null;
    return v === null ? null : typeof v === "object" ? JSON.stringify(v) : String(v);
  };
  const int = (key: "http_status" | "input_tokens" | "output_tokens") => {
    const n = num(key);
    if (n !== null && (!Number.isInteger(n) || n < 0)) {
      throw new InputError(`${at(m.columns[key]!)}: ${n} is not a whole number ≥ 0`);
    }
    return n;
  };
  let outcome: SourceOutcome = "ok";
  if (m.columns.outcome) {
    const v = str(m.columns.outcome);
    const kind = (["ok", "error", "cancelled", "incomplete"] as const).find((k) => m.outcomes![k].includes(v ?? ""));
    if (!kind) {
      throw new InputError(
        `${at(m.columns.outcome)}: value ${JSON.stringify(v)} is not listed in the mapping's outcomes`,
      );
    }
    outcome = kind;
  }
  const timeMs = (key: "scheduled" | "sent" | "first_token" | "completed") => {
    const v = num(key);
    return v === null ? null : v * MS_PER_UNIT[m.times!.unit];
  };
  const epochBase = m.times?.clock === "epoch" ? 0 : m.times?.epoch_iso ? Date.parse(m.times.epoch_iso) : null;
  const times = {
    scheduled: timeMs("scheduled"),
    sent: timeMs("sent"),
    first_token: timeMs("first_token"),
    completed: timeMs("completed"),
  };
  const epoch = (t: number | null) => t === null || epochBase === null ? null : epochBase + t;
  const dur = (key: "ttft" | "e2e") => {
    const v = num(key);
    return v === null ? null : v * MS_PER_UNIT[m.durations!.unit];
  };
  let itl: number[] | null = null;
  if (m.columns.itl) {
    let v = row.cell(m.columns.itl);
    if (typeof v === "string") {
      try {
        v = JSON.parse(v);
      } catch {
        throw new InputError(`${at(m.columns.itl)}: not a JSON array of numbers`);
      }
    }
    if (v !== null) {
      if (!Array.isArray(v) || !v.every((g) => typeof g === "number" && Number.isFinite(g))) {
        throw new InputError(`${at(m.columns.itl)}: not a JSON array of numbers`);
      }
      itl = v.map((g: number) => g * MS_PER_UNIT[m.durations!.unit]);
    }
  }
  const metrics: Record<string, number | null> = {};
  for (const [name, column] of Object.entries(m.tool_metrics)) {
    const v = row.cell(column);
    const n = v === null ? null : Number(v);
    if (n !== null && !Number.isFinite(n)) throw new InputError(`${at(column)}: ${JSON.stringify(v)} is not a number`);
    metrics[name] = n;
  }
  const request: SourceRequest = {
    id: str(m.columns.id) ?? `#${index}`,
    at: `${file}:${row.line}`,
    stage: str(m.columns.stage) ?? m.default_stage,
    outcome,
    tool_status: str(m.columns.tool_status),
    http_status: int("http_status"),
    scheduled_epoch_ms: epoch(times.scheduled),
    sent_epoch_ms: epoch(times.sent),
    first_token_epoch_ms: epoch(times.first_token),
    completed_epoch_ms: epoch(times.completed),
    ttft_ms: dur("ttft"),
    e2e_ms: dur("e2e"),
    itl_ms: itl,
    input_tokens: int("input_tokens"),
    output_tokens: int("output_tokens"),
    token_source: m.token_source,
    tool_metrics: metrics,
  };
  if (m.times && epochBase === null) request.clock_ms = times;
  return request;
}

/** Reads a generic per-request file (or several) with its mapping file. */
export function readGeneric(files: SourceText[]): SourceRun {
  const mappings = files.filter((f) => baseName(f.path).toLowerCase().endsWith(".json"));
  const data = files.filter((f) => !mappings.includes(f));
  if (mappings.length !== 1) {
    throw new InputError(`generic: give exactly one mapping file (.json) with the data files (got ${mappings.length})`);
  }
  if (data.length === 0) throw new InputError("generic: no data file (.csv or .jsonl) given with the mapping");
  const mapping = readImportMapping(mappings[0]!);
  const requests: SourceRequest[] = [];
  const formats: string[] = [];
  for (const f of data) {
    const read: DataFile = readDataFile(f);
    formats.push(`per-request ${read.format} (mapped)`);
    for (const [key, column] of [...Object.entries(mapping.columns), ...Object.entries(mapping.tool_metrics)]) {
      if (column && !hasColumn(read, column)) {
        throw new InputError(`${f.path}: column "${column}" (mapping ${key}) is not in the file`);
      }
    }
    read.rows.forEach((row) => requests.push(toRequest(mapping, f.path, row, requests.length)));
  }
  const stageNames = [...new Set(requests.map((r) => r.stage))];
  const stages: SourceStage[] = stageNames.map((name) => ({
    name,
    rate_rps: null,
    concurrency: null,
    start_epoch_ms: null,
    end_epoch_ms: null,
    duration_s: null,
    totals: { ok: null, error: null, cancelled: null, incomplete: null },
  }));
  return {
    tool: "generic",
    tool_version: `${mapping.tool.name}${
      mapping.tool.version ? ` ${mapping.tool.version}` : ""
    } (as the mapping states)`,
    files: [fileEntry(mappings[0]!, "import mapping"), ...data.map((f, i) => fileEntry(f, formats[i]!))],
    model: mapping.model,
    stages,
    requests,
    summary_only: false,
    headlines: [],
    lacks: [...mapping.lacks, ...foundLacks(mapping)],
    notes: [
      `tool named by the mapping: ${mapping.tool.name} ${
        mapping.tool.version ?? "(version not stated)"
      }; stage totals ` +
      "are not stated by a generic file",
    ],
  };
}
