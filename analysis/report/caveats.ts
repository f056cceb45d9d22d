/**
 * The caveats a report states on its first screen, under the headline:
 * everything that changes how far its numbers can be trusted. Each kind has
 * one source function reading the run, its verdicts or its results; a new
 * kind of evidence is one more source in {@linkcode CAVEAT_SOURCES}. Each
 * caveat carries its whole text (the detail, kept in the JSON) and one line
 * of at most 140 characters with its severity and a docs anchor: the first
 * screen shows the line (first_screen.ts).
 *
 * @module
 */
import { COLUMN_SINCE_MINOR, EPOCH_COLUMNS, PROVIDER_SIGNAL_COLUMNS, type TableName } from "../../schema/events.ts";
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
import { type CaveatSeverity, oneLine } from "./caveat_line.ts";

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
  | "load_warning"
  | "excluded_levels"
  | "measured_quality";

/** One caveat of a report. */
export interface Caveat {
  kind: CaveatKind;
  /** `alert`: the numbers may not measure what they seem to (shown red); `note`: read them with this in mind. */
  severity: "alert" | "note";
  /** How much it changes, for its one line: INVALID, WARNING or NOTE (caveat_line.ts). */
  level: CaveatSeverity;
  /** A short label in capitals. */
  label: string;
  /** The whole caveat: the detail. */
  text: string;
  /** The caveat in one line of at most 140 characters, its label first: what the first screen shows. */
  line: string;
  /** Where the rule behind it is explained: a docs file and anchor (`docs/verdicts.md#no-capacity`). */
  docs: string;
}

/** The docs anchor of each kind of caveat: the rule behind it. */
export const CAVEAT_DOCS: Record<CaveatKind, string> = {
  run_source: "docs/importing.md#what-the-analysis-does-with-an-imported-run",
  dropped_records: "docs/recorder.md#what-is-dropped-and-counted",
  run_end: "docs/verdicts.md#how-a-run-ended-and-where-its-log-ends",
  no_capacity: "docs/verdicts.md#no-capacity",
  client_limited: "docs/verdicts.md#client-limited-runs-stages-and-load-levels",
  partial_shards: "docs/kubernetes.md#reading-it",
  sweep_stopped: "docs/sweep.md#the-stop-rule",
  plan_too_short: "docs/plans.md#is-the-plan-long-enough-for-the-knee",
  log_lacks_fields: "docs/log_format.md#logs-older-than-13",
  unsupported_percentiles: "docs/percentiles.md#minimum-samples-at-99--one-sided-confidence",
  load_warning: "docs/log_format.md#each-file-describes-itself",
  excluded_levels: "docs/verdicts.md#client-limited-runs-stages-and-load-levels",
  measured_quality: "docs/quality_goodput.md#what-the-disclosure-says",
};

/** A production recording's source caveat points at what its numbers mean, not at importing. */
const PRODUCTION_DOCS = "docs/production_analysis.md#what-a-recordings-numbers-mean";

/** A caveat of `kind`; its line is `line` (else the text) after the label, cut to 140 characters. */
export function makeCaveat(
  kind: CaveatKind,
  level: CaveatSeverity,
  label: string,
  text: string,
  line: string = text,
): Caveat {
  const labelled = line.startsWith(label) ? line : `${label}: ${line}`;
  return {
    kind,
    severity: level === "NOTE" ? "note" : "alert",
    level,
    label,
    text,
    line: oneLine(labelled),
    docs: CAVEAT_DOCS[kind],
  };
}

/**
 * A verdict line as printed by the commands (`runVerdicts(...).lines`, `kneeVerdicts`) as a caveat, its kind and
 * severity read from its label: INCOMPLETE RUN, NO CAPACITY and CLIENT-LIMITED are INVALID; a recording still open and
 * dropped records WARNING; the rest (a run's source, a level cut by the end of the run, "no stage is client-limited")
 * NOTE, of kind `fallback` when no label names it. A line of several runs may start with the run's folder.
 */
export function verdictLineCaveat(line: string, fallback: CaveatKind = "run_source"): Caveat {
  // The line as the commands print it, cut to one line; no label put before it.
  const as = (c: Caveat): Caveat => ({ ...c, line: oneLine(line) });
  const has = (s: string) => line.includes(s);
  if (has("NO CAPACITY")) return as(makeCaveat("no_capacity", "INVALID", "NO CAPACITY", line));
  if (has("INCOMPLETE RUN")) return as(makeCaveat("run_end", "INVALID", "INCOMPLETE RUN", line));
  if (has("CLIENT-LIMITED")) return as(makeCaveat("client_limited", "INVALID", "CLIENT-LIMITED", line));
  if (has("CUT BY THE END OF THE RUN")) return as(makeCaveat("excluded_levels", "NOTE", "LEVELS EXCLUDED", line));
  if (/client-limited by the (stage|level) rule/.test(line)) {
    return as(makeCaveat("client_limited", "NOTE", "CLIENT STAGES", line));
  }
  if (has("PRODUCTION RECORDING") || has("OBSERVED LOAD LEVELS")) {
    return { ...as(makeCaveat("run_source", "NOTE", "PRODUCTION RECORDING", line)), docs: PRODUCTION_DOCS };
  }
  if (has("IMPORTED RUN")) return as(makeCaveat("run_source", "NOTE", "IMPORTED RUN", line));
  if (/still (open|recording)/i.test(line)) {
    return as(makeCaveat("run_end", "WARNING", "RECORDING STILL OPEN", line));
  }
  return as(makeCaveat(fallback, "NOTE", "NOTE", line));
}

/** What the caveat sources read. */
export interface CaveatInput {
  run: LoadedRun;
  verdicts: RunVerdicts;
  disclosure: Disclosure;
  /** The rows of the report's latency table (none: the percentile caveat is not checked). @default [] */
  tableRows?: LatencyRow[];
  /** The rows of the report's percentile-per-class-per-stage figure. @default [] */
  figureRows?: LatencyRow[];
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
  const c = makeCaveat(
    "run_source",
    "NOTE",
    isProduction(m) ? "PRODUCTION RECORDING" : "IMPORTED RUN",
    lines.join(" — "),
  );
  return [isProduction(m) ? { ...c, docs: PRODUCTION_DOCS } : c];
}

/** The records a production recording dropped (its buffer full): every count is then a lower bound. */
function droppedRecords(x: CaveatInput): Caveat[] {
  const m = x.run.manifest;
  if (!isProduction(m) || droppedRows(m) + m.dropped.page_records_unjoined + m.dropped.recorder_errors === 0) return [];
  return [makeCaveat("dropped_records", "WARNING", "DROPPED RECORDS", droppedCaveat(m))];
}

/** How the run ended (interrupted, killed, a recording still open): `runVerdicts`' line after the source. */
function runEnd(x: CaveatInput): Caveat[] {
  const h = x.verdicts.run_end.headline;
  if (!h) return [];
  return [
    x.verdicts.run_end.status === "recording"
      ? makeCaveat("run_end", "WARNING", "RECORDING STILL OPEN", h)
      : makeCaveat("run_end", "INVALID", "INCOMPLETE RUN", h),
  ];
}

function noCapacity(x: CaveatInput): Caveat[] {
  const n = x.verdicts.no_capacity;
  return n ? [makeCaveat("no_capacity", "INVALID", "NO CAPACITY", n)] : [];
}

/** The runner's client verdict and the client-limited stages: `runVerdicts`' remaining lines, one caveat each. */
function clientLimited(x: CaveatInput): Caveat[] {
  const v = x.verdicts;
  const lines = v.lines.filter((l) =>
    l !== v.run_end.headline && !(v.no_capacity && l.endsWith(v.no_capacity)) && !v.source.includes(l)
  );
  return lines.map((l) => verdictLineCaveat(l, "client_limited"));
}

function partialShards(x: CaveatInput): Caveat[] {
  const p = x.disclosure.files.partial;
  if (!p) return [];
  const read = `${x.disclosure.files.shards} of ${p.shard_count} shards read`;
  return [makeCaveat(
    "partial_shards",
    "WARNING",
    "PARTIAL SHARDS",
    `${read} (missing ${p.missing_shards.join(", ")}): the numbers cover only the shards present`,
    `${read}: the numbers cover only the shards present`,
  )];
}

/** A sweep the runner's stop rule ended before its last planned step (run.json `result.stopped_by`). */
function sweepStopped(x: CaveatInput): Caveat[] {
  const m = x.run.manifest;
  const s = isRunnerRun(m) ? m.result.stopped_by : null;
  if (!s || s.rule === "max_rps") return [];
  return [makeCaveat(
    "sweep_stopped",
    "NOTE",
    "SWEEP CUT SHORT",
    `the runner's stop rule ${s.rule} held at step ${s.step} (${sig(s.value)} against ${
      sig(s.threshold)
    }): the later steps were not offered, so the tested range ends there`,
    `stop rule ${s.rule} held at step ${s.step}: the tested range ends there`,
  )];
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
  const bare = w.map((l) => l.replace(/^(warning: )?plan too short for the knee: /, ""));
  // A run of this version keeps one line for the plan; an older run one per level (stage, n expected and needed).
  const line = bare.length === 1 && !bare[0]!.startsWith("stage")
    ? bare[0]!.replace(/; each level: .*$/, "")
    : `${w.length} levels too short for the knee's percentile signals: their departures may be undecidable`;
  return [makeCaveat(
    "plan_too_short",
    "NOTE",
    "PLAN TOO SHORT",
    `the runner warned before ms 0 that the plan's levels are too short for the knee's percentile signals ` +
      `(run.json plan.warnings): ${bare.join(" | ")}`,
    line,
  )];
}

/**
 * Columns of the current contract the log's minor version predates (run.json `schema_minor`): read as null. The epoch
 * columns (1.6) are not among them: a reader derives them from run.json exactly as a writer of 1.6 does; nor are the
 * provider's tier and limit columns (1.7): no runner before them read a provider's limits, so nothing was lost, and
 * the provider-quota section says none were recorded.
 */
function logLacksFields(x: CaveatInput): Caveat[] {
  const minor = Math.min(...x.run.manifests.map((m) => m.schema_minor));
  const derived = new Set<string>([...Object.values(EPOCH_COLUMNS).map((e) => e.name), ...PROVIDER_SIGNAL_COLUMNS]);
  const missing = Object.entries(COLUMN_SINCE_MINOR).flatMap(([table, since]) => {
    const cols = Object.entries(since ?? {}).filter(([c, m]) => m > minor && !derived.has(c)).map(([c]) => c);
    return cols.length ? [{ table: table as TableName, cols }] : [];
  });
  if (!missing.length) return [];
  const count = missing.reduce((n, m) => n + m.cols.length, 0);
  const streamed = missing.some((m) => m.cols.includes("streamed"));
  return [makeCaveat(
    "log_lacks_fields",
    "NOTE",
    "LOG LACKS FIELDS",
    `a contract ${SCHEMA_VERSION}.${minor} log (run.json schema_minor ${minor}): ${count} columns of contract ` +
      `${SCHEMA_VERSION}.${SCHEMA_MINOR} are not recorded and read as null (${
        missing.map((m) => `${m.table}: ${m.cols.join(", ")}`).join("; ")
      })${streamed ? "; streaming is inferred and every required gate applies, as the disclosure's rules state" : ""}`,
    `a contract ${SCHEMA_VERSION}.${minor} log: ${count} columns of ${SCHEMA_VERSION}.${SCHEMA_MINOR} read as null` +
      (streamed ? "; streaming inferred" : ""),
  )];
}

/** The early-stopping minimum n of each percentile in `rows`, as "459 for p99". */
function needed(rows: LatencyRow[], confidence: number): string {
  return [...new Set(rows.map((r) => r.p))].sort((a, b) => a - b)
    .map((p) => `${earlyStoppingMinSamples(p, 0, { confidence })} for ${percentLabel(p)}`).join(", ");
}

/** Percentiles whose n does not meet the early-stopping rule, in the figure (hatched bars) and in the table. */
function unsupportedPercentiles(x: CaveatInput): Caveat[] {
  const figureRows = x.figureRows ?? [], tableRows = x.tableRows ?? [];
  const bars = figureRows.filter((r) => r.value !== null);
  const weakBars = bars.filter((r) => !r.supported);
  const weakRows = tableRows.filter((r) => !(r.supported && r.bound !== null));
  if (!weakBars.length && !weakRows.length) return [];
  const first = figureRows[0];
  const parts = [
    ...(weakBars.length && first
      ? [`${weakBars.length} of ${bars.length} bars of ${percentLabel(first.p)} ${first.metric} per class per stage`]
      : []),
    ...(weakRows.length ? [`${weakRows.length} of ${tableRows.length} rows of the latency table`] : []),
  ];
  const short = [
    ...(weakBars.length ? [`${weakBars.length} of ${bars.length} bars`] : []),
    ...(weakRows.length ? [`${weakRows.length} of ${tableRows.length} table rows`] : []),
  ];
  return [makeCaveat(
    "unsupported_percentiles",
    "NOTE",
    "UNSUPPORTED PERCENTILES",
    `${parts.join(" and ")} have fewer samples than the early-stopping rule needs at ${
      sig(x.supportConfidence * 100)
    } % one-sided confidence (n ≥ ${
      needed([...weakBars, ...weakRows], x.supportConfidence)
    }): not supported estimates (hatched, hollow bars; UNSUPPORTED in the table)`,
    `${short.join(" and ")} have too few samples to support their percentile (hatched; UNSUPPORTED)`,
  )];
}

/** Warnings raised while loading the run (a hash mismatch let through by `--verify warn`, …). */
function loadWarnings(x: CaveatInput): Caveat[] {
  return x.disclosure.warnings.map((w) => makeCaveat("load_warning", "WARNING", "LOAD WARNING", w));
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

const RANK: Record<CaveatSeverity, number> = { INVALID: 0, WARNING: 1, NOTE: 2 };

/** The caveats of a report, INVALID first, then WARNING, then NOTE, each source's in its order. */
export function reportCaveats(x: CaveatInput): Caveat[] {
  const all = CAVEAT_SOURCES.flatMap((source) => source(x));
  return all.map((c, i) => ({ c, i })).sort((a, b) => RANK[a.c.level] - RANK[b.c.level] || a.i - b.i).map((x) => x.c);
}
