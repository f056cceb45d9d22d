/**
 * What `npx deno task import` says it did: for a run, the rows written by outcome, the timeline, the stages and what the
 * source lacks; for a summary, the claims written. As text for people and as JSON for scripts (`--json`).
 *
 * @module
 */
import { type Outcome, OUTCOMES, type RequestRow } from "../schema/events.ts";
import type { ImportedClaims } from "../schema/imported_claims.ts";
import type { ImportedManifest } from "../schema/imported_manifest.ts";

/** The machine-readable summary of an import that wrote a run. */
export interface RunImportSummary {
  kind: "run";
  out: string;
  run_id: string;
  tool: ImportedManifest["source"]["tool"];
  tool_version: string | null;
  files: ImportedManifest["source"]["files"];
  requests: number;
  outcomes: Partial<Record<Outcome, number>>;
  timeline: ImportedManifest["timeline"];
  stages: {
    name: string;
    kind: string;
    start_ms: number;
    end_ms: number;
    offered_rps: number | null;
    requests: number;
  }[];
  lacks: ImportedManifest["lacks"];
  notes: string[];
  /** The SLO policy copied into the folder, when `--slo` was given. */
  slo: string | null;
}

/** The machine-readable summary of an import that wrote claims (a summary-only source). */
export interface ClaimsImportSummary {
  kind: "claims";
  out: string;
  tool: ImportedClaims["source"]["tool"];
  tool_version: string | null;
  files: ImportedClaims["source"]["files"];
  claims_file: string;
  headlines: number;
  /** The audit claim files written, relative to `out`. */
  claim_files: string[];
  lacks: ImportedClaims["lacks"];
  notes: string[];
}

/** The summary of a written run. */
export function runSummary(out: string, m: ImportedManifest, requests: readonly RequestRow[]): RunImportSummary {
  const outcomes: Partial<Record<Outcome, number>> = {};
  const perStage = new Map<string, number>();
  for (const r of requests) {
    outcomes[r.outcome] = (outcomes[r.outcome] ?? 0) + 1;
    perStage.set(r.stage, (perStage.get(r.stage) ?? 0) + 1);
  }
  return {
    kind: "run",
    out,
    run_id: m.run_id,
    tool: m.source.tool,
    tool_version: m.source.tool_version,
    files: m.source.files,
    requests: requests.length,
    outcomes,
    timeline: m.timeline,
    stages: m.stages.map((s) => ({
      name: s.name,
      kind: s.kind,
      start_ms: s.start_ms,
      end_ms: s.end_ms,
      offered_rps: s.offered_rps,
      requests: perStage.get(s.name) ?? 0,
    })),
    lacks: m.lacks,
    notes: m.source.notes,
    slo: m.slo ? m.slo.file : null,
  };
}

/** The summary of written claims. */
export function claimsSummary(out: string, c: ImportedClaims): ClaimsImportSummary {
  return {
    kind: "claims",
    out,
    tool: c.source.tool,
    tool_version: c.source.tool_version,
    files: c.source.files,
    claims_file: "claims.json",
    headlines: c.headlines.length,
    claim_files: c.headlines.flatMap((h) => (h.claim ? [h.claim.file] : [])),
    lacks: c.lacks,
    notes: c.source.notes,
  };
}

const version = (v: string | null) => v ?? "version not stated";
const filesLine = (files: { path: string; format: string; sha256: string }[]) =>
  files.map((f) => `  ${f.path} (${f.format}; sha256 ${f.sha256})`);

/** The summary in words. */
export function formatImportSummary(s: RunImportSummary | ClaimsImportSummary): string {
  const lacks = ["what the source lacks:", ...s.lacks.map((l) => `  - ${l.field}: ${l.consequence}`)];
  const notes = s.notes.length ? ["notes:", ...s.notes.map((n) => `  - ${n}`)] : [];
  if (s.kind === "claims") {
    return [
      `SUMMARY ONLY: ${s.tool} (${version(s.tool_version)}) files hold no per-request records, so no run was ` +
      `written: its ${s.headlines} headlines are claims in ${s.out}/${s.claims_file}, ${s.claim_files.length} of ` +
      "them (latency percentiles) also as audit claim files:",
      ...s.claim_files.map((f) => `  ${s.out}/${f}`),
      ...(s.claim_files.length
        ? [`audit one against a run: npx deno task audit RUN --claim ${s.out}/${s.claim_files[0]}`]
        : []),
      "files read:",
      ...filesLine(s.files),
      ...lacks,
      ...notes,
    ].join("\n");
  }
  const outcomes = OUTCOMES.filter((o) => s.outcomes[o]).map((o) => `${o} ${s.outcomes[o]}`).join(", ");
  return [
    `imported ${s.requests} requests from ${s.tool} (${version(s.tool_version)}) into ${s.out} (run ${s.run_id}; ` +
    `class imported; gates n/a)`,
    "files read:",
    ...filesLine(s.files),
    `outcomes: ${outcomes}`,
    `timeline (${s.timeline.kind}): ${s.timeline.origin}`,
    ...(s.timeline.rates ? [] : ["NO TIME WINDOW: rates (accepted_goodput, req/s) cannot be recomputed: null"]),
    "stages:",
    ...s.stages.map((st) =>
      `  ${st.name} (${st.kind}): ${st.start_ms.toFixed(1)}–${st.end_ms.toFixed(1)} ms, ${st.requests} requests, ` +
      (st.offered_rps === null ? "no rate set by the tool" : `set to ${st.offered_rps} req/s`)
    ),
    ...lacks,
    ...notes,
    s.slo === null
      ? `next: npx deno task analyze ${s.out} --slo FILE (an SLO policy naming the class "imported", or a default only)`
      : `next: npx deno task analyze ${s.out} (the SLO policy given at import, ${s.out}/${s.slo}, is its default)`,
  ].join("\n");
}
