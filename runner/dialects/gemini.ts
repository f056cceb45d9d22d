/**
 * The Google Gemini API dialect (`gemini`): `POST /{api_version}/models/{model}:generateContent`, or
 * `:streamGenerateContent?alt=sse` for a streamed call, the key in `x-goog-api-key` (never in the query). The
 * neutral conversation becomes `contents` (roles `user` and `model`), `systemInstruction`, `tools[0]
 * .functionDeclarations` (`parametersJsonSchema`) and `generationConfig` (`maxOutputTokens`,
 * `responseMimeType` + `responseJsonSchema`, `thinkingConfig`). The answer parser is runner/dialects/gemini_answer.ts.
 * See docs/dialects/gemini.md.
 *
 * @module
 */
import { z } from "zod";
import type { WorkloadCase } from "../../schema/mod.ts";
import { InputError } from "../../schema/errors.ts";
import type { Dialect, DialectCall, DialectRouteSpec, PreparedRoute, ProviderLimits, WireMessage } from "./dialect.ts";
import { isObject, parseArgs } from "./answer_base.ts";
import { decodeCallId, GeminiAnswer } from "./gemini_answer.ts";
import { checkedBaseUrl } from "./url.ts";

/** The route's `dialect_options` for Gemini. */
export const GeminiOptions = z.strictObject({
  /** The API version in the path. @default "v1beta" (or the version the route's URL names) */
  api_version: z.string().regex(/^v\d+(?:alpha|beta)?\d*$/, "must look like v1beta, v1 or v1alpha").optional(),
  /** `thinkingConfig.thinkingBudget`: tokens of thinking allowed (0: off, -1: the model decides). */
  thinking_budget: z.number().int().min(-1).optional(),
  /** `thinkingConfig.thinkingLevel` (Gemini 3 models); not together with thinking_budget. */
  thinking_level: z.enum(["minimal", "low", "medium", "high"]).optional(),
}).refine((o) => o.thinking_budget === undefined || o.thinking_level === undefined, {
  message: "thinking_budget and thinking_level cannot both be set",
  path: ["thinking_level"],
});
/** The validated options, as recorded in run.json. */
export type GeminiOptions = z.infer<typeof GeminiOptions> & { api_version: string };

const DEFAULT_VERSION = "v1beta";
/** What the route URL may already end with: a version segment, then optionally the endpoint itself. */
const ENDPOINT_TAIL = /\/models\/[^/]+:(?:stream)?[gG]enerateContent$/;
const VERSION_TAIL = /\/(v\d+(?:alpha|beta)?\d*)$/;
const MODEL = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Validates the options and builds the two endpoints and the headers. */
function prepare(spec: DialectRouteSpec): PreparedRoute {
  const where = spec.where;
  const r = GeminiOptions.safeParse(spec.options);
  if (!r.success) {
    const problems = r.error.issues.flatMap((i) => {
      const keys = i.code === "unrecognized_keys" ? i.keys : [i.path.map(String).join(".")];
      const why = i.code === "unrecognized_keys" ? "unknown option for the gemini dialect" : i.message;
      return keys.map((k) => `${where}.dialect_options.${k}: ${why}`);
    });
    throw new InputError(`${where}: invalid dialect_options for gemini`, problems);
  }
  const model = spec.model.replace(/^models\//, "");
  if (!MODEL.test(model)) {
    throw new InputError(`${where}.model: ${JSON.stringify(model.slice(0, 80))} is not a Gemini model name`);
  }
  const urlWhere = where.startsWith("--") ? where : `${where}.url`;
  const base = checkedBaseUrl(spec.url, urlWhere);
  if (base.searchParams.has("key")) {
    throw new InputError(
      `${urlWhere}: an API key in the URL query is refused; name it in api_key_env (sent as x-goog-api-key)`,
    );
  }
  let path = base.pathname.replace(/\/+$/, "").replace(ENDPOINT_TAIL, "");
  const named = VERSION_TAIL.exec(path)?.[1] ?? null;
  const version = r.data.api_version ?? named ?? DEFAULT_VERSION;
  if (named !== null) {
    if (named !== version) {
      throw new InputError(
        `${urlWhere}: the URL names API version ${named} but ${where}.dialect_options.api_version is ${version}`,
      );
    }
    path = path.slice(0, -named.length - 1);
  }
  const endpoint = (stream: boolean) => {
    const u = new URL(base);
    u.pathname = `${path}/${version}/models/${model}:${stream ? "streamGenerateContent" : "generateContent"}`;
    if (stream) u.searchParams.set("alt", "sse");
    else u.searchParams.delete("alt");
    return u;
  };
  const urls = { plain: endpoint(false), stream: endpoint(true) };
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "accept": "application/json, text/event-stream",
  };
  if (spec.key !== null) headers["x-goog-api-key"] = spec.key;
  const options: GeminiOptions = { ...r.data, api_version: version };
  return {
    url: (stream) => new URL(stream ? urls.stream : urls.plain),
    headers,
    secretHeaders: ["x-goog-api-key"],
    sign: null,
    serviceTier: null,
    options,
  };
}

type Part = Record<string, unknown>;

/**
 * The `contents` and `systemInstruction` of a neutral conversation. System messages become the parts of
 * `systemInstruction` in order; a tool result becomes a `functionResponse` named after the call it answers (found by
 * its `tool_call_id` in an earlier assistant message), consecutive results sharing one `user` turn.
 */
export function geminiContents(messages: readonly WireMessage[]): { system: Part[]; contents: Part[] } {
  const system: Part[] = [];
  const contents: { role: "user" | "model"; parts: Part[]; results?: true }[] = [];
  const names = new Map<string, string>();
  for (const m of messages) {
    if (m.role === "system") system.push({ text: m.content });
    else if (m.role === "user") contents.push({ role: "user", parts: [{ text: m.content }] });
    else if (m.role === "assistant") {
      const parts: Part[] = m.content ? [{ text: m.content }] : [];
      for (const tc of m.tool_calls ?? []) {
        names.set(tc.id, tc.function.name);
        const { id, sig } = decodeCallId(tc.id);
        const call: Part = { name: tc.function.name, args: parseArgs(tc.function.arguments) ?? {} };
        if (id) call.id = id;
        parts.push(sig ? { functionCall: call, thoughtSignature: sig } : { functionCall: call });
      }
      contents.push({ role: "model", parts: parts.length ? parts : [{ text: "" }] });
    } else if (m.role === "tool") {
      const response: Part = { name: names.get(m.tool_call_id) ?? m.tool_call_id, response: { output: m.content } };
      const { id } = decodeCallId(m.tool_call_id);
      if (id) response.id = id;
      const last = contents[contents.length - 1];
      if (last?.results) last.parts.push({ functionResponse: response });
      else contents.push({ role: "user", parts: [{ functionResponse: response }], results: true });
    }
  }
  return { system, contents: contents.map(({ role, parts }) => ({ role, parts })) };
}

/** The JSON body of one call (the model and streaming are in the URL). */
function body(c: WorkloadCase, messages: readonly WireMessage[], call: DialectCall, route: PreparedRoute): string {
  const { system, contents } = geminiContents(messages);
  const out: Record<string, unknown> = { contents };
  if (system.length) out.systemInstruction = { parts: system };
  if (c.tools.length) {
    out.tools = [{
      functionDeclarations: c.tools.map((t) => ({
        name: t.name,
        description: t.description,
        parametersJsonSchema: t.parameters,
      })),
    }];
  }
  const gen: Record<string, unknown> = { maxOutputTokens: call.maxTokens };
  if (c.expected_output_schema) {
    gen.responseMimeType = "application/json";
    gen.responseJsonSchema = c.expected_output_schema;
  }
  const o = route.options as Partial<GeminiOptions>;
  if (o.thinking_budget !== undefined) gen.thinkingConfig = { thinkingBudget: o.thinking_budget };
  if (o.thinking_level !== undefined) gen.thinkingConfig = { thinkingLevel: o.thinking_level };
  out.generationConfig = gen;
  return JSON.stringify(out);
}

/** The `error.status` of a Gemini error body, or null when the body is not one. */
function errorStatus(body: string): string | null {
  try {
    const v = JSON.parse(body);
    return isObject(v) && isObject(v.error) && typeof v.error.status === "string" ? v.error.status : null;
  } catch {
    return null;
  }
}

/** The `error.details` entries of a Gemini error body (empty when it has none or is not one). */
function errorDetails(body: string): Record<string, unknown>[] {
  try {
    const v = JSON.parse(body);
    const d = isObject(v) && isObject(v.error) ? v.error.details : undefined;
    return Array.isArray(d) ? d.filter(isObject) : [];
  } catch {
    return [];
  }
}

/**
 * Milliseconds of a protobuf Duration in its JSON form (`"47s"`, `"0.250s"`), null when malformed.
 *
 * @example
 * ```ts
 * import { durationMs } from "./gemini.ts";
 * import assert from "node:assert/strict";
 * assert.equal(durationMs("47s"), 47000);
 * assert.equal(durationMs("1.2505s"), 1251);
 * assert.equal(durationMs("soon"), null);
 * ```
 */
export function durationMs(v: unknown): number | null {
  if (typeof v !== "string") return null;
  const m = /^(\d{1,12})(?:\.(\d{1,9}))?s$/.exec(v);
  if (!m) return null;
  return Math.round(Number(m[1]) * 1000 + Number(`0.${m[2] ?? "0"}`) * 1000);
}

const RETRY_INFO = "type.googleapis.com/google.rpc.RetryInfo";
const QUOTA_FAILURE = "type.googleapis.com/google.rpc.QuotaFailure";

/**
 * The `retryDelay` of a Gemini error body's `google.rpc.RetryInfo` detail, in ms; null when absent or malformed.
 * Gemini sends no `retry-after` header: this is where a 429 says when to come back.
 *
 * @example
 * ```ts
 * import { retryDelayMs } from "./gemini.ts";
 * import assert from "node:assert/strict";
 * const body = JSON.stringify({ error: { code: 429, status: "RESOURCE_EXHAUSTED", message: "quota",
 *   details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "26s" }] } });
 * assert.equal(retryDelayMs(body), 26000);
 * assert.equal(retryDelayMs("<html>"), null);
 * ```
 */
export function retryDelayMs(body: string): number | null {
  const d = errorDetails(body).find((x) => x["@type"] === RETRY_INFO);
  return d ? durationMs(d.retryDelay) : null;
}

/**
 * The quota a Gemini 429 body says was exceeded (`google.rpc.QuotaFailure` violations with a `quotaValue`): a
 * violation whose `quotaId` or `quotaMetric` names requests sets `limit_requests`, one naming tokens sets
 * `limit_tokens` (the smallest when several), its remaining count is 0, and the resets are the RetryInfo delay.
 * Null when the body states no quota value.
 *
 * @example
 * ```ts
 * import { quotaLimits } from "./gemini.ts";
 * import assert from "node:assert/strict";
 * const body = JSON.stringify({ error: { code: 429, status: "RESOURCE_EXHAUSTED", details: [
 *   { "@type": "type.googleapis.com/google.rpc.QuotaFailure", violations: [
 *     { quotaId: "GenerateRequestsPerMinutePerProjectPerModel", quotaValue: "15" }] },
 *   { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "3s" }] } });
 * assert.deepEqual(quotaLimits(body), { limit_requests: 15, remaining_requests: 0, limit_tokens: null,
 *   remaining_tokens: null, reset_requests_ms: 3000, reset_tokens_ms: null });
 * ```
 */
export function quotaLimits(body: string): ProviderLimits | null {
  let requests: number | null = null;
  let tokens: number | null = null;
  for (const d of errorDetails(body)) {
    if (d["@type"] !== QUOTA_FAILURE || !Array.isArray(d.violations)) continue;
    for (const v of d.violations) {
      if (!isObject(v) || typeof v.quotaValue !== "string" || !/^\d{1,15}$/.test(v.quotaValue)) continue;
      const n = Number(v.quotaValue);
      const what = `${typeof v.quotaId === "string" ? v.quotaId : ""} ${
        typeof v.quotaMetric === "string" ? v.quotaMetric : ""
      }`.toLowerCase();
      if (what.includes("token")) tokens = Math.min(tokens ?? n, n);
      else if (what.includes("request")) requests = Math.min(requests ?? n, n);
    }
  }
  if (requests === null && tokens === null) return null;
  const delay = retryDelayMs(body);
  return {
    limit_requests: requests,
    remaining_requests: requests === null ? null : 0,
    limit_tokens: tokens,
    remaining_tokens: tokens === null ? null : 0,
    reset_requests_ms: requests === null ? null : delay,
    reset_tokens_ms: tokens === null ? null : delay,
  };
}

/** The Gemini API dialect. */
export const geminiDialect: Dialect = {
  name: "gemini",
  prepare,
  body,
  framing: "sse",
  streamContentType: "text/event-stream",
  newAnswer: () => new GeminiAnswer(),
  classifyError(status, _headers, body) {
    const st = errorStatus(body);
    const load = status === 429 || status === 503 || st === "RESOURCE_EXHAUSTED";
    return { kind: `http_${status}`, outcome: load ? "rejected" : "http_error" };
  },
  /** Gemini sends no rate-limit headers: its quota is stated only in a 429's body (see {@linkcode quotaLimits}). */
  readLimits: (_headers): ProviderLimits | null => null,
  readErrorBody: (body: string) => ({ retryAfterMs: retryDelayMs(body), limits: quotaLimits(body) }),
};
