/**
 * OTLP/JSON trace files read into spans: a file holds one JSON document (`{"resourceSpans": [...]}`, pretty-printed or
 * not) or one document per line (what the recorder's file exporter and the OpenTelemetry Collector's file exporter
 * write). Each span keeps where it was (`file:line`), its attributes as plain values, its times as nanoseconds
 * (bigint: exact), and its ids as lower-case hex. Then the spans are grouped into tasks: a root span with its
 * descendants.
 *
 * @module
 */
import { InputError } from "../../schema/errors.ts";
import { fromAnyValue, type KeyValue, type OtlpSpan, OtlpTraces, STATUS_CODE } from "../../schema/otlp.ts";
import { checked, parseJson, problemsError, type SourceText } from "./_source_text.ts";

/** One span as read. */
export interface ReadSpan {
  /** `file:line` of the document that holds it. */
  at: string;
  traceId: string;
  spanId: string;
  /** null for a span with no parent. */
  parentId: string | null;
  name: string;
  startNs: bigint;
  endNs: bigint;
  attrs: Map<string, unknown>;
  events: { name: string; timeNs: bigint }[];
  /** The span's status was ERROR. */
  error: boolean;
  statusMessage: string | null;
  /** The resource's `service.name` and the instrumentation scope, as stated. */
  service: string | null;
  scope: string | null;
}

/** The documents of one file, each with the line it starts on. */
function documents(file: SourceText): { value: unknown; line: number }[] {
  const text = file.text;
  const trimmed = text.trim();
  if (trimmed === "") throw new InputError(`${file.path}: empty file: no OTLP/JSON traces`);
  // One document (maybe pretty-printed) when the whole text parses; else one document per non-empty line.
  try {
    const value = JSON.parse(text);
    return [{ value, line: text.slice(0, text.length - text.trimStart().length).split("\n").length }];
  } catch {
    // Not one document. When its first line is no document either, it is one document cut or broken somewhere:
    // parseJson names the line and column. Else it is one document per line, and a bad line is named.
    const first = text.split("\n").find((l) => l.trim() !== "")!;
    try {
      JSON.parse(first);
    } catch {
      parseJson(text, file.path);
    }
  }
  const out: { value: unknown; line: number }[] = [];
  text.split("\n").forEach((raw, i) => {
    const line = raw.trim();
    if (line === "") return;
    out.push({ value: parseJson(line, file.path, { line: i + 1 }), line: i + 1 });
  });
  return out;
}

const HEX = /^[0-9a-f]+$/;

/** An id as lower-case hex of `bytes` bytes: hex as OTLP/JSON writes it, or base64 as protobuf's JSON mapping does. */
function idOf(raw: string, bytes: number): string | null {
  const lower = raw.toLowerCase();
  if (lower.length === bytes * 2 && HEX.test(lower)) return lower;
  try {
    const bin = atob(raw);
    if (bin.length !== bytes) return null;
    return [...bin].map((c) => c.charCodeAt(0).toString(16).padStart(2, "0")).join("");
  } catch {
    return null;
  }
}

function attrMap(list: readonly KeyValue[] | undefined): Map<string, unknown> {
  return new Map((list ?? []).map((kv) => [kv.key, fromAnyValue(kv.value)]));
}

function statusIsError(code: NonNullable<OtlpSpan["status"]>["code"]): boolean {
  return code === STATUS_CODE.error || code === "STATUS_CODE_ERROR";
}

/** Every span of the files, in file order. Bad JSON or shape, bad ids or times: one InputError naming file and line. */
export function readSpans(files: readonly SourceText[]): ReadSpan[] {
  const spans: ReadSpan[] = [];
  const problems: string[] = [];
  for (const file of files) {
    for (const { value, line } of documents(file)) {
      const where = `${file.path}:${line}`;
      const doc = checked(OtlpTraces, value, where, { what: "OTLP/JSON traces document" });
      (doc.resourceSpans ?? []).forEach((rs, r) => {
        const resource = attrMap(rs.resource?.attributes);
        const service = resource.get("service.name");
        (rs.scopeSpans ?? []).forEach((ss, s) => {
          const scope = ss.scope?.name ? `${ss.scope.name}${ss.scope.version ? ` ${ss.scope.version}` : ""}` : null;
          (ss.spans ?? []).forEach((span, k) => {
            const path = `${where}: resourceSpans[${r}].scopeSpans[${s}].spans[${k}]`;
            const traceId = idOf(span.traceId, 16);
            const spanId = idOf(span.spanId, 8);
            const parent = span.parentSpanId ? idOf(span.parentSpanId, 8) : null;
            if (traceId === null) problems.push(`${path}.traceId: ${JSON.stringify(span.traceId)} is not 16 bytes`);
            if (spanId === null) problems.push(`${path}.spanId: ${JSON.stringify(span.spanId)} is not 8 bytes`);
            if (span.parentSpanId && parent === null) {
              problems.push(`${path}.parentSpanId: ${JSON.stringify(span.parentSpanId)} is not 8 bytes`);
            }
            const startNs = BigInt(span.startTimeUnixNano), endNs = BigInt(span.endTimeUnixNano);
            if (endNs < startNs) problems.push(`${path}: endTimeUnixNano is before startTimeUnixNano`);
            if (traceId === null || spanId === null) return;
            spans.push({
              at: where,
              traceId,
              spanId,
              parentId: parent,
              name: span.name,
              startNs,
              endNs,
              attrs: attrMap(span.attributes),
              events: (span.events ?? []).map((e) => ({ name: e.name, timeNs: BigInt(e.timeUnixNano) })),
              error: span.status?.code !== undefined && statusIsError(span.status.code),
              statusMessage: span.status?.message || null,
              service: typeof service === "string" ? service : null,
              scope,
            });
          });
        });
      });
    }
  }
  if (problems.length) throw problemsError("otlp: spans that cannot be read", problems);
  return spans;
}

/** A task: its root span and the spans under it (not under another task's root), in file order. */
export interface SpanTask {
  root: ReadSpan;
  descendants: ReadSpan[];
  /** The task's request id when the root states none: its trace id (with the root's span id when it shares it). */
  fallbackId: string;
}

/** A root: a span that states a `goodput.request_id`, or a span with no parent. */
const isRoot = (s: ReadSpan) => s.attrs.has("goodput.request_id") || s.parentId === null;

/**
 * The tasks of the spans: one per root, with its descendants (a root under a root starts its own task), and the spans
 * that belong to no task (their parent is not in the files). A span id used twice in a trace is an InputError.
 */
export function groupTasks(spans: readonly ReadSpan[]): { tasks: SpanTask[]; orphans: ReadSpan[] } {
  const key = (trace: string, span: string) => `${trace}/${span}`;
  const byId = new Map<string, ReadSpan>();
  const dupes: string[] = [];
  for (const s of spans) {
    const k = key(s.traceId, s.spanId);
    const seen = byId.get(k);
    if (seen) dupes.push(`span ${s.spanId} of trace ${s.traceId} at ${seen.at} and again at ${s.at}`);
    else byId.set(k, s);
  }
  if (dupes.length) throw problemsError("otlp: a span id is used twice in one trace", dupes);
  const children = new Map<string, ReadSpan[]>();
  for (const s of spans) {
    if (s.parentId === null) continue;
    const k = key(s.traceId, s.parentId);
    children.set(k, [...(children.get(k) ?? []), s]);
  }
  const roots = spans.filter(isRoot);
  const rootsPerTrace = new Map<string, number>();
  for (const r of roots) rootsPerTrace.set(r.traceId, (rootsPerTrace.get(r.traceId) ?? 0) + 1);
  const owned = new Set<ReadSpan>(roots);
  const order = new Map(spans.map((s, i) => [s, i]));
  const tasks = roots.map((root) => {
    const descendants: ReadSpan[] = [];
    const stack = [...(children.get(key(root.traceId, root.spanId)) ?? [])];
    while (stack.length) {
      const s = stack.pop()!;
      if (isRoot(s)) continue;
      descendants.push(s);
      owned.add(s);
      stack.push(...(children.get(key(s.traceId, s.spanId)) ?? []));
    }
    descendants.sort((a, b) => order.get(a)! - order.get(b)!);
    const shared = (rootsPerTrace.get(root.traceId) ?? 0) > 1;
    return { root, descendants, fallbackId: shared ? `${root.traceId}:${root.spanId}` : root.traceId };
  });
  return { tasks, orphans: spans.filter((s) => !owned.has(s)) };
}
