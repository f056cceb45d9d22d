/**
 * The caveats a report states on its first screen, beside the headline:
 * everything that changes how far its numbers can be trusted. Each kind has
 * one source function reading the run, its verdicts or its results; a new
 * kind of evidence is one more source in {@linkcode CAVEAT_SOURCES}. An
 * imported run's source and what it lacks (run.json `lacks`) are among the
 * run's verdicts (`runVerdicts`), so they stand in the banner above the title.
 *
 * @module
 */
import { COLUMN_SINCE_MINOR, type TableName } from "../../schema/events.ts";
import { SCHEMA_MINOR, SCHEMA_VERSION } from "../../schema/version.ts";
import { sig } from "../../lib/number_format.ts";
import type { Disclosure } from "../goodput/disclosure.ts";
import type { RunVerdicts } from "../knee/verdicts.ts";
import { percentLabel } from "../latency/_percentile_checks.ts";
import { earlyStoppingMinSamples } from "../latency/early_stopping.ts";
import type { LatencyRow } from "../latency/latency.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import { isRunnerRun } from "../run/imported_run.ts";
import { droppedCaveat, droppedRows, isProduction } from "../run/production_run.ts";

/** What a caveat is about. */
export type CaveatKind =
  | "run_source"
  | "dropped_records"
  | "run_end"
  | "no_capacity"
  | "client_limited"
  | "partial_shards"
  | "sweep_stopped"
  | "plan_too_short"
  | "log_lacks_fields"
  | "unsupported_percentiles"
  | "load_warning";

/** One caveat of a report. */
export interface Caveat {
  kind: CaveatKind;
  /** `alert`: the numbers may not measure what they seem to (shown red); `note`: read them with this in mind. */
  severity: "alert" | "note";
  /** A short label in capitals. */
  label: string;
  text: string;
}

/**
 * The caveats that are the run's verdicts (`runVerdicts`: how the run ended, nothing accepted, the client's limits):
 * the report states them in a banner above its title, before any number, as every command prints them first.
 */
export const VERDICT_CAVEATS: ReadonlySet<CaveatKind> = new Set([
  "run_source",
  "dropped_records",
  "run_end",
  "no_capacity",
  "client_limited",
]);

/** What the caveat sources read. */
export interface CaveatInput {
  run: LoadedRun;
  verdicts: RunVerdicts;
  disclosure: Disclosure;
  /** The rows of the report's latency table. */
  tableRows: LatencyRow[];
  /** The rows of the report's percentile-per-class-per-stage figure. */
  figureRows: LatencyRow[];
  /** One-sided confidence of the supported rule. */
  supportConfidence: number;
}

/**
 * Where the run came from (`runVerdicts`' source lines): an imported run's source and lacks, or what a production
 * recording's counts mean; the dropped records of a recording are their own caveat.
 */
function runSource(x: CaveatInput): Caveat[] {
  const m = x.run.manifest;
  const dropped = isProduction(m) && droppedRows(m) + m.dropped.page_records_unjoined + m.dropped.recorder_errors > 0
    ? droppedCaveat(m)
    : null;
  const lines = x.verdicts.source.filter((l) => l !== dropped);
  if (!lines.length) return [];
  return [{
    kind: "run_source",
    severity: "note",
    label: isProduction(m) ? "PRODUCTION RECORDING" : "IMPORTED RUN",
    text: lines.join(" — "),
  }];
}

/** The records a production recording dropped (its buffer full): every count is then a lower bound. */
function droppedRecords(x: CaveatInput): Caveat[] {
  const m = x.run.manifest;
  if (!isProduction(m) || droppedRows(m) + m.dropped.page_records_unjoined + m.dropped.recorder_errors === 0) return [];
  return [{ kind: "dropped_records", severity: "alert", label: "DROPPED RECORDS", text: droppedCaveat(m) }];
}

/** How the run ended (interrupted, killed, a recording still open): `runVerdicts`' line after the source. */
function runEnd(x: CaveatInput): Caveat[] {
  const h = x.verdicts.run_end.headline;
  const label = x.verdicts.run_end.status === "recording" ? "RECORDING STILL OPEN" : "INCOMPLETE RUN";
  return h ? [{ kind: "run_end", severity: "alert", label, text: h }] : [];
}

function noCapacity(x: CaveatInput): Caveat[] {
  const n = x.verdicts.no_capacity;
  return n ? [{ kind: "no_capacity", severity: "alert", label: "NO CAPACITY", text: n }] : [];
}

/** The runner's client verdict and the client-limited stages: `runVerdicts`' remaining lines. */
function clientLimited(x: CaveatInput): Caveat[] {
  const v = x.verdicts;
  const lines = v.lines.filter((l) =>
    l !== v.run_end.headline && !(v.no_capacity && l.endsWith(v.no_capacity)) && !v.source.includes(l)
  );
  if (!lines.length) return [];
  return [{ kind: "client_limited", severity: "alert", label: "CLIENT-LIMITED", text: lines.join(" — ") }];
}

function partialShards(x: CaveatInput): Caveat[] {
  const p = x.disclosure.files.partial;
  if (!p) return [];
  return [{
    kind: "partial_shards",
    severity: "alert",
    label: "PARTIAL SHARDS",
    text: `${x.disclosure.files.shards} of ${p.shard_count} shards read (missing ${
      p.missing_shards.join(", ")
    }): the numbers cover only the shards present`,
  }];
}

/** A sweep the runner's stop rule ended before its last planned step (run.json `result.stopped_by`). */
function sweepStopped(x: CaveatInput): Caveat[] {
  const m = x.run.manifest;
  const s = isRunnerRun(m) ? m.result.stopped_by : null;
  if (!s || s.rule === "max_rps") return [];
  return [{
    kind: "sweep_stopped",
    severity: "note",
    label: "SWEEP CUT SHORT",
    text: `the runner's stop rule ${s.rule} held at step ${s.step} (${sig(s.value)} against ${
      sig(s.threshold)
    }): the later steps were not offered, so the tested range ends there`,
  }];
}

/**
 * Levels the runner found too short for the knee's percentile signals before ms 0 (run.json `plan.warnings`,
 * runner/plan_length.ts): their percentile departures may be "undecidable". Shard 0's list (every shard checks the
 * same plan).
 */
function planTooShort(x: CaveatInput): Caveat[] {
  const m = x.run.manifest;
  const w = isRunnerRun(m) ? m.plan.warnings ?? [] : [];
  if (!w.length) return [];
  return [{
    kind: "plan_too_short",
    severity: "note",
    label: "PLAN TOO SHORT",
    text: `the runner warned before ms 0 that ${w.length} of the plan's levels are too short for the knee's ` +
      `percentile signals (run.json plan.warnings): ${
        w.map((l) => l.replace(/^warning: plan too short for the knee: /, "")).join(" | ")
      }`,
  }];
}

/** Columns of the current contract the log's minor version predates (run.json `schema_minor`): read as null. */
function logLacksFields(x: CaveatInput): Caveat[] {
  const minor = Math.min(...x.run.manifests.map((m) => m.schema_minor));
  const missing = Object.entries(COLUMN_SINCE_MINOR).flatMap(([table, since]) => {
    const cols = Object.entries(since ?? {}).filter(([, m]) => m > minor).map(([c]) => c);
    return cols.length ? [{ table: table as TableName, cols }] : [];
  });
  if (!missing.length) return [];
  const count = missing.reduce((n, m) => n + m.cols.length, 0);
  const streamed = missing.some((m) => m.cols.includes("streamed"));
  return [{
    kind: "log_lacks_fields",
    severity: "note",
    label: "LOG LACKS FIELDS",
    text: `a contract ${SCHEMA_VERSION}.${minor} log (run.json schema_minor ${minor}): ${count} columns of contract ` +
      `${SCHEMA_VERSION}.${SCHEMA_MINOR} are not recorded and read as null (${
        missing.map((m) => `${m.table}: ${m.cols.join(", ")}`).join("; ")
      })${streamed ? "; streaming is inferred and every required gate applies, as the disclosure's rules state" : ""}`,
  }];
}

/** The early-stopping minimum n of each percentile in `rows`, as "459 for p99". */
function needed(rows: LatencyRow[], confidence: number): string {
  return [...new Set(rows.map((r) => r.p))].sort((a, b) => a - b)
    .map((p) => `${earlyStoppingMinSamples(p, 0, { confidence })} for ${percentLabel(p)}`).join(", ");
}

/** Percentiles whose n does not meet the early-stopping rule, in the figure (hatched bars) and in the table. */
function unsupportedPercentiles(x: CaveatInput): Caveat[] {
  const bars = x.figureRows.filter((r) => r.value !== null);
  const weakBars = bars.filter((r) => !r.supported);
  const weakRows = x.tableRows.filter((r) => !(r.supported && r.bound !== null));
  if (!weakBars.length && !weakRows.length) return [];
  const first = x.figureRows[0];
  const parts = [
    ...(weakBars.length && first
      ? [`${weakBars.length} of ${bars.length} bars of ${percentLabel(first.p)} ${first.metric} per class per stage`]
      : []),
    ...(weakRows.length ? [`${weakRows.length} of ${x.tableRows.length} rows of the latency table`] : []),
  ];
  return [{
    kind: "unsupported_percentiles",
    severity: "note",
    label: "UNSUPPORTED PERCENTILES",
    text: `${parts.join(" and ")} have fewer samples than the early-stopping rule needs at ${
      sig(x.supportConfidence * 100)
    } % one-sided confidence (n ≥ ${
      needed([...weakBars, ...weakRows], x.supportConfidence)
    }): not supported estimates (hatched, hollow bars; UNSUPPORTED in the table)`,
  }];
}

/** Warnings raised while loading the run (a hash mismatch let through by `--verify warn`, …). */
function loadWarnings(x: CaveatInput): Caveat[] {
  return x.disclosure.warnings.map((w) => ({ kind: "load_warning", severity: "alert", label: "WARNING", text: w }));
}

/** Every caveat source, in the order the report lists them. */
export const CAVEAT_SOURCES: readonly ((x: CaveatInput) => Caveat[])[] = [
  runSource,
  droppedRecords,
  runEnd,
  noCapacity,
  clientLimited,
  partialShards,
  sweepStopped,
  planTooShort,
  logLacksFields,
  unsupportedPercentiles,
  loadWarnings,
];

/** What the sources check, in words: printed when none applies. */
export const CAVEATS_CHECKED = "where the run came from (runner, import, production recording), dropped records, " +
  "how the run ended, capacity, the client's limits, shards, the sweep's stop rule, the plan's length, the " +
  "log's fields against the current contract, percentile support, load warnings";

/** The caveats of a report, alerts first, each source's in its order. */
export function reportCaveats(x: CaveatInput): Caveat[] {
  const all = CAVEAT_SOURCES.flatMap((source) => source(x));
  return [...all.filter((c) => c.severity === "alert"), ...all.filter((c) => c.severity === "note")];
}
