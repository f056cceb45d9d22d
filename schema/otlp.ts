/**
 * OpenTelemetry traces as OTLP/JSON (the `ExportTraceServiceRequest` of OTLP/HTTP with `application/json`): the shape
 * the recorder's exporter writes (recorder/otlp.ts) and `deno task import --from otlp` reads
 * (importers/sources/otlp.ts), and the attribute and event names both sides share, so that the mapping between a
 * task's rows and its spans is written once (docs/otlp.md has the table).
 *
 * The JSON encoding is protobuf's JSON mapping as OTLP specifies it: trace and span ids as hex strings, times as
 * unsigned 64-bit integers of nanoseconds since the Unix epoch (decimal strings, numbers accepted), enums as
 * integers (their names accepted), `intValue` as a decimal string (a number accepted).
 *
 * @module
 */
import { z } from "zod";

/** An OTLP attribute value (`AnyValue`): exactly one of its fields is set. */
export type AnyValue = {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number | string;
  arrayValue?: { values?: AnyValue[] };
  kvlistValue?: { values?: KeyValue[] };
  bytesValue?: string;
};
/** One attribute: a key and its value. */
export type KeyValue = { key: string; value?: AnyValue };

const int64 = z.union([z.string().regex(/^-?\d+$/, "not a decimal integer"), z.number().int()]);
/** Nanoseconds since the Unix epoch: a decimal string (or a number). */
const unixNano = z.union([z.string().regex(/^\d+$/, "not a decimal count of nanoseconds"), z.number().int().min(0)]);

export const AnyValue: z.ZodType<AnyValue> = z.lazy(() =>
  z.looseObject({
    stringValue: z.string().optional(),
    boolValue: z.boolean().optional(),
    intValue: int64.optional(),
    doubleValue: z.union([z.number(), z.enum(["NaN", "Infinity", "-Infinity"])]).optional(),
    arrayValue: z.looseObject({ values: z.array(AnyValue).optional() }).optional(),
    kvlistValue: z.looseObject({ values: z.array(KeyValue).optional() }).optional(),
    bytesValue: z.string().optional(),
  })
);
export const KeyValue: z.ZodType<KeyValue> = z.lazy(() =>
  z.looseObject({ key: z.string(), value: AnyValue.optional() })
);

/** OTLP `Span.SpanKind`. */
export const SPAN_KIND = { unspecified: 0, internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;
/** OTLP `Status.StatusCode`. */
export const STATUS_CODE = { unset: 0, ok: 1, error: 2 } as const;

const kind = z.union([
  z.number().int().min(0).max(5),
  z.enum([
    "SPAN_KIND_UNSPECIFIED",
    "SPAN_KIND_INTERNAL",
    "SPAN_KIND_SERVER",
    "SPAN_KIND_CLIENT",
    "SPAN_KIND_PRODUCER",
    "SPAN_KIND_CONSUMER",
  ]),
]);
const statusCode = z.union([
  z.number().int().min(0).max(2),
  z.enum(["STATUS_CODE_UNSET", "STATUS_CODE_OK", "STATUS_CODE_ERROR"]),
]);

/** A span event (a point in time with a name). */
export const OtlpEvent = z.looseObject({
  timeUnixNano: unixNano,
  name: z.string(),
  attributes: z.array(KeyValue).optional(),
});
export type OtlpEvent = z.infer<typeof OtlpEvent>;

/** A span. Ids: hex (32 digits for a trace, 16 for a span); base64 of the same bytes is accepted on reading. */
export const OtlpSpan = z.looseObject({
  traceId: z.string().min(1),
  spanId: z.string().min(1),
  /** Empty or absent: a root span. */
  parentSpanId: z.string().optional(),
  name: z.string(),
  kind: kind.optional(),
  startTimeUnixNano: unixNano,
  endTimeUnixNano: unixNano,
  attributes: z.array(KeyValue).optional(),
  events: z.array(OtlpEvent).optional(),
  status: z.looseObject({ code: statusCode.optional(), message: z.string().optional() }).optional(),
});
export type OtlpSpan = z.infer<typeof OtlpSpan>;

/** The spans of one instrumentation scope. */
export const OtlpScopeSpans = z.looseObject({
  scope: z.looseObject({ name: z.string().optional(), version: z.string().optional() }).optional(),
  spans: z.array(OtlpSpan).optional(),
});
export type OtlpScopeSpans = z.infer<typeof OtlpScopeSpans>;

/** The spans of one resource (a service). */
export const OtlpResourceSpans = z.looseObject({
  resource: z.looseObject({ attributes: z.array(KeyValue).optional() }).optional(),
  scopeSpans: z.array(OtlpScopeSpans).optional(),
});
export type OtlpResourceSpans = z.infer<typeof OtlpResourceSpans>;

/** One OTLP/JSON traces document (`ExportTraceServiceRequest`, also the file exporter's line). */
export const OtlpTraces = z.looseObject({ resourceSpans: z.array(OtlpResourceSpans).optional() });
export type OtlpTraces = z.infer<typeof OtlpTraces>;

/**
 * The OpenTelemetry GenAI semantic-convention names the mapping uses (semantic-conventions `docs/gen-ai`, status
 * development): the inference span's and the execute-tool span's attributes, `error.type` and the HTTP status.
 * `gen_ai.system` is the name before `gen_ai.provider.name` (≤ v1.36), written beside it for older back ends.
 */
export const SEMCONV = {
  operation: "gen_ai.operation.name",
  provider: "gen_ai.provider.name",
  system: "gen_ai.system",
  requestModel: "gen_ai.request.model",
  responseModel: "gen_ai.response.model",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  cacheReadTokens: "gen_ai.usage.cache_read.input_tokens",
  cacheCreationTokens: "gen_ai.usage.cache_creation.input_tokens",
  reasoningTokens: "gen_ai.usage.reasoning.output_tokens",
  /** Older names of the token counts (semantic conventions before v1.27), read on import only. */
  promptTokensOld: "gen_ai.usage.prompt_tokens",
  completionTokensOld: "gen_ai.usage.completion_tokens",
  finishReasons: "gen_ai.response.finish_reasons",
  toolName: "gen_ai.tool.name",
  errorType: "error.type",
  httpStatus: "http.response.status_code",
  serviceName: "service.name",
} as const;

/** `gen_ai.operation.name` values: an inference call (an attempt), and a tool step. */
export const GENAI_OPERATION = {
  chat: "chat",
  textCompletion: "text_completion",
  generateContent: "generate_content",
  executeTool: "execute_tool",
  retrieval: "retrieval",
} as const;

/** The operations read as a model call (an attempt row). */
export const INFERENCE_OPERATIONS: readonly string[] = [
  GENAI_OPERATION.chat,
  GENAI_OPERATION.textCompletion,
  GENAI_OPERATION.generateContent,
];

/** The namespace of every contract field no semantic-convention attribute carries. */
export const GOODPUT_PREFIX = "goodput.";

/** Root-span attributes the recorder writes besides the row's columns. */
export const GOODPUT_ROOT = {
  /** The recorder's run epoch (ms 0 of its rows), nanoseconds since the Unix epoch as a decimal string. */
  epochUnixNano: "goodput.epoch_unix_nano",
  /** The contract version of the rows, `major.minor`. */
  contract: "goodput.contract",
} as const;

/** Span event names for the instants of a row that are neither its span's start nor its end. */
export const GOODPUT_EVENT = {
  firstSent: "goodput.first_sent",
  headers: "goodput.headers",
  firstToken: "goodput.first_token",
  lastToken: "goodput.last_token",
  completed: "goodput.completed",
} as const;

/** An attribute value in OTLP/JSON from a JS value (null and undefined: no attribute). */
export function anyValue(v: string | number | boolean | string[]): AnyValue {
  if (Array.isArray(v)) return { arrayValue: { values: v.map((s) => ({ stringValue: s })) } };
  if (typeof v === "string") return { stringValue: v };
  if (typeof v === "boolean") return { boolValue: v };
  return Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };
}

/** A JS value from an OTLP attribute value: a number for int and double, an array for arrayValue. */
export function fromAnyValue(v: AnyValue | undefined): unknown {
  if (!v) return null;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return Number(v.doubleValue);
  if (v.arrayValue !== undefined) return (v.arrayValue.values ?? []).map(fromAnyValue);
  if (v.kvlistValue !== undefined) {
    return Object.fromEntries((v.kvlistValue.values ?? []).map((kv) => [kv.key, fromAnyValue(kv.value)]));
  }
  if (v.bytesValue !== undefined) return v.bytesValue;
  return null;
}
