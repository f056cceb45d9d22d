/**
 * OpenTelemetry traces as OTLP/JSON, from the recorder's exporter (recorder/otlp.ts) or from any instrumented app:
 * each task (a root span and the spans under it) becomes the contract's rows — requests, attempts, tools and phases —
 * as importers/sources/otlp_rows.ts maps them (the rules: importers/sources/_otlp_terms.ts, docs/otlp.md). A task the
 * recorder exported is read back exactly; another app's spans say less, and the lacks say what.
 *
 * @example The recorder's spans of one task, read back
 * ```ts
 * import assert from "node:assert/strict";
 * import { readOtlp } from "./otlp.ts";
 * import { sourceText } from "./_source_text.ts";
 * import { tracesDocument } from "../../recorder/otlp.ts";
 * import { exampleTaskRows } from "../../testing/task_rows.ts";
 * const doc = JSON.stringify(tracesDocument([exampleTaskRows()], { "service.name": "chat-app" }));
 * const run = readOtlp([sourceText("traces.jsonl", doc + "\n")]);
 * assert.equal(run.rows!.requests[0]!.completed_ms, 1300);
 * assert.equal(run.rows!.attempts[0]!.first_token_ms, 480.125);
 * ```
 * @module
 */
import { InputError } from "../../schema/errors.ts";
import { GOODPUT_ROOT } from "../../schema/otlp.ts";
import type { SourceRun } from "../source.ts";
import { fileEntry, problemsError, type SourceText } from "./_source_text.ts";
import { OTLP_MAPPING_RULES, otlpLacks } from "./_otlp_terms.ts";
import { groupTasks, readSpans } from "./otlp_spans.ts";
import { isInference, taskRows } from "./otlp_rows.ts";

const NS_PER_MS = 1_000_000n;

/** Reads OTLP/JSON trace files (one document, or one per line). Bad input: an InputError naming file and line. */
export function readOtlp(files: SourceText[]): SourceRun {
  const spans = readSpans(files);
  const { tasks, orphans } = groupTasks(spans);
  const paths = files.map((f) => f.path).join(", ");
  if (!tasks.length) {
    throw new InputError(
      `otlp: ${paths}: no root span (a span with no parent, or with a goodput.request_id): no task to import`,
    );
  }
  const epochs = new Set(tasks.map((t) => t.root.attrs.get(GOODPUT_ROOT.epochUnixNano)));
  const stated = epochs.size === 1 ? [...epochs][0] : undefined;
  const recorderEpoch = typeof stated === "string" && /^\d+$/.test(stated);
  const earliest = tasks.reduce((m, t) => (t.root.startNs < m ? t.root.startNs : m), tasks[0]!.root.startNs);
  const originNs = recorderEpoch ? BigInt(stated) : (earliest / NS_PER_MS) * NS_PER_MS;

  const problems: string[] = [];
  const read = tasks.map((t) => taskRows(t, originNs, problems));
  const ids = new Map<string, string[]>();
  for (const t of read) ids.set(t.request.request_id, [...(ids.get(t.request.request_id) ?? []), t.source.at]);
  for (const [id, at] of ids) {
    if (at.length > 1) {
      problems.push(`request id ${JSON.stringify(id)} is the task of ${at.length} roots: ${at.join("; ")}`);
    }
  }
  if (problems.length) throw problemsError(`otlp: ${paths}: spans that do not map onto the contract`, problems);

  const allRecorded = read.every((t) => t.recorded);
  const epochIso = new Date(Number(originNs / NS_PER_MS)).toISOString();
  const requests = read.map((t) => t.request);
  const attempts = read.flatMap((t) => t.attempts);
  const models = [...new Set(attempts.map((a) => a.model))];
  const scopes = [...new Set(spans.map((s) => s.scope).filter((s): s is string => s !== null))];
  const services = [...new Set(spans.map((s) => s.service).filter((s): s is string => s !== null))];
  const unread = tasks.reduce(
    (n, t, i) =>
      n + t.descendants.length - (read[i]!.attempts.length - (isInference(t.root) ? 1 : 0)) - read[i]!.tools.length -
      read[i]!.phases.length,
    0,
  );
  const notes = [
    `${spans.length} span(s) in ${files.length} file(s): ${tasks.length} task(s) (root spans)` +
    (services.length ? `, service.name ${services.join(", ")}` : ""),
  ];
  if (unread) notes.push(`${unread} span(s) under a root are neither a model call, a tool step nor a phase: not read`);
  if (orphans.length) {
    notes.push(
      `${orphans.length} span(s) whose parent is not in the files belong to no task: not read (first at ${
        orphans[0]!.at
      })`,
    );
  }
  const origin = recorderEpoch
    ? `the recorder's run epoch (goodput.epoch_unix_nano ${originNs}), so the rows' times are the recorder's; ` +
      "scheduled_ms is the user's action as the recorder stated it"
    : `the earliest root span start (${epochIso}), floored to the ms; scheduled_ms is ` +
      (allRecorded ? "the user's action as the recorder stated it" : "each root span's start (no user action)");
  const timeline = {
    kind: "epoch" as const,
    origin,
    epoch_known: true,
    scheduled_from: allRecorded ? "schedule" as const : "send" as const,
    rates: true,
  };
  return {
    tool: "otlp",
    tool_version: scopes.length ? `${scopes.join(", ")} (instrumentation scope)` : null,
    files: files.map((f) => fileEntry(f, "OTLP/JSON traces")),
    model: models.length === 1 ? models[0]! : null,
    stages: [],
    requests: read.map((t) => t.source),
    summary_only: false,
    headlines: [],
    lacks: otlpLacks(read),
    notes,
    rows: {
      epoch_iso: epochIso,
      timeline,
      requests,
      attempts,
      tools: read.flatMap((t) => t.tools),
      phases: read.flatMap((t) => t.phases),
      classes: [...new Set(requests.map((r) => r.class))],
      mapping: [...OTLP_MAPPING_RULES],
    },
  };
}
