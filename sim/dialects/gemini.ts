/**
 * The simulator's Gemini API: `POST …/{version}/models/{model}:generateContent` and
 * `:streamGenerateContent?alt=sse`. A request's `contents` and `systemInstruction` are read back into the neutral
 * messages the runner started from; answers are `GenerateContentResponse` objects (streamed as SSE `data:` lines,
 * `\r\n\r\n`-separated, no end marker; a function call arrives whole in the last chunk); errors are
 * `{error: {code, message, status, details}}`. Gemini sends no rate-limit headers: a 429 states its quota and retry
 * delay in `google.rpc.QuotaFailure` and `google.rpc.RetryInfo` details. See docs/dialects/gemini.md.
 *
 * @module
 */
import { z } from "zod";
import type { SimMessage } from "../chat_request.ts";
import type {
  SimAnswerBody,
  SimDialect,
  SimError,
  SimErrorClass,
  SimQuota,
  SimStreamFormat,
  SimUsage,
} from "./dialect.ts";
import { bodyProblem } from "./dialect.ts";

const Part = z.looseObject({
  text: z.string().optional(),
  thought: z.boolean().optional(),
  functionCall: z.looseObject({ name: z.string().min(1), args: z.record(z.string(), z.unknown()).optional() })
    .optional(),
  functionResponse: z.looseObject({ name: z.string(), response: z.record(z.string(), z.unknown()) }).optional(),
});
type Part = z.infer<typeof Part>;

/** The fields of a generateContent request the simulator reads; others are accepted and ignored. */
const GenerateRequest = z.looseObject({
  contents: z.array(z.looseObject({ role: z.enum(["user", "model"]).optional(), parts: z.array(Part).min(1) })).min(1),
  systemInstruction: z.looseObject({ parts: z.array(Part) }).optional(),
  generationConfig: z.looseObject({ maxOutputTokens: z.number().int().positive().optional() }).optional(),
  tools: z.array(z.looseObject({})).optional(),
});

/** A tool result's text: `response.output` when it is a string (as the runner sends it), else the JSON. */
function resultText(response: Record<string, unknown>): string {
  return typeof response.output === "string" ? response.output : JSON.stringify(response);
}

/** The neutral messages of a request (see the module doc); a problem names the field. */
function messagesOf(req: z.infer<typeof GenerateRequest>): SimMessage[] | { param: string; message: string } {
  const out: SimMessage[] = [];
  for (const p of req.systemInstruction?.parts ?? []) {
    out.push({ role: "system", content: p.text ?? "", toolCallText: "" });
  }
  for (const [i, c] of req.contents.entries()) {
    const visible = c.parts.filter((p) => p.thought !== true);
    const text = visible.map((p) => p.text ?? "").join("");
    if (c.role === "model") {
      const calls = visible.flatMap((p) => p.functionCall ? [p.functionCall] : []);
      out.push({
        role: "assistant",
        content: text,
        toolCallText: calls.map((f) => f.name + JSON.stringify(f.args ?? {})).join(""),
      });
      continue;
    }
    const results = visible.filter((p: Part) => p.functionResponse);
    if (results.length && results.length !== visible.length) {
      return {
        param: `contents.${i}.parts`,
        message: `contents.${i}.parts: function responses mixed with other parts`,
      };
    }
    if (results.length) {
      for (const p of results) {
        out.push({ role: "tool", content: resultText(p.functionResponse!.response), toolCallText: "" });
      }
    } else out.push({ role: "user", content: text, toolCallText: "" });
  }
  return out;
}

const STATUS: Record<SimErrorClass, [number, string]> = {
  invalid_request: [400, "INVALID_ARGUMENT"],
  not_found: [404, "NOT_FOUND"],
  server_error: [500, "INTERNAL"],
  unavailable: [503, "UNAVAILABLE"],
  overloaded: [503, "UNAVAILABLE"],
  rate_limited: [429, "RESOURCE_EXHAUSTED"],
  client_closed: [499, "CANCELLED"],
};

/** Headers of the simulator's other dialects that Gemini never sends (their content moves into the error body). */
const NOT_GEMINI = /^(retry-after(-ms)?|x-ratelimit-.*)$/i;

/** A Gemini error response; a known retry delay becomes a RetryInfo detail, a quota a QuotaFailure. */
function error(e: SimError): Response {
  const [code, status] = STATUS[e.class];
  const h = Object.fromEntries(Object.entries(e.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  const details: Record<string, unknown>[] = [];
  const violations = (["requests", "tokens"] as const).flatMap((kind) => {
    const limit = h[`x-ratelimit-limit-${kind}`];
    if (limit === undefined || !/^\d+$/.test(limit)) return [];
    const quotaId = kind === "requests"
      ? "GenerateRequestsPerMinutePerProjectPerModel"
      : "GenerateContentInputTokensPerModelPerMinute";
    return [{ quotaMetric: `generativelanguage.googleapis.com/generate_content_${kind}`, quotaId, quotaValue: limit }];
  });
  if (violations.length) details.push({ "@type": "type.googleapis.com/google.rpc.QuotaFailure", violations });
  const ms = h["retry-after-ms"] ?? (h["retry-after"] !== undefined ? String(Number(h["retry-after"]) * 1000) : null);
  if (ms !== null && /^\d+(\.\d+)?$/.test(ms)) {
    details.push({
      "@type": "type.googleapis.com/google.rpc.RetryInfo",
      retryDelay: `${(Number(ms) / 1000).toFixed(3)}s`,
    });
  }
  const message = e.class === "overloaded"
    ? `The model is overloaded. Please try again later. (${e.message})`
    : e.message;
  const body: Record<string, unknown> = { code, message, status };
  if (details.length) body.details = details;
  const headers = Object.fromEntries(Object.entries(e.headers ?? {}).filter(([k]) => !NOT_GEMINI.test(k)));
  return Response.json({ error: body }, { status: code, headers });
}

/** The neutral finish reason in Gemini's words. */
function geminiFinish(finish: string): string {
  if (finish === "stop" || finish === "tool_calls") return "STOP";
  if (finish === "length") return "MAX_TOKENS";
  if (finish === "content_filter") return "SAFETY";
  return "OTHER";
}

/** `usageMetadata` of neutral counts: thoughts reported apart from the candidates, as Gemini does. */
export function usageMetadata(u: SimUsage): Record<string, number> {
  const thoughts = u.reasoning ?? 0;
  const m: Record<string, number> = { promptTokenCount: u.prompt, candidatesTokenCount: u.output - thoughts };
  if (u.cached > 0) m.cachedContentTokenCount = u.cached;
  if (u.reasoning !== undefined) m.thoughtsTokenCount = u.reasoning;
  m.totalTokenCount = u.prompt + u.output;
  return m;
}

/** The parts of an answer's content: its text, or its function call when the arguments are a JSON object. */
function answerParts(text: string, call: { name: string; arguments: string } | null): Record<string, unknown>[] {
  if (!call) return [{ text }];
  let args: unknown;
  try {
    args = JSON.parse(call.arguments);
  } catch {
    args = undefined;
  }
  const ok = args !== null && typeof args === "object" && !Array.isArray(args);
  return ok ? [{ functionCall: { name: call.name, args } }] : [];
}

/** A function call cut before its arguments closed cannot be sent whole: Gemini reports it malformed. */
function finishOf(finish: string, parts: readonly Record<string, unknown>[], call: boolean): string {
  return call && parts.length === 0 && finish === "tool_calls" ? "MALFORMED_FUNCTION_CALL" : geminiFinish(finish);
}

/** The SSE frames of one streamed answer; a function call is held until the end and sent whole. */
class GeminiStream implements SimStreamFormat {
  readonly #tail: string;
  #call: { name: string; arguments: string } | null = null;

  constructor(id: string, model: string) {
    this.#tail = `,"modelVersion":${JSON.stringify(model)},"responseId":${JSON.stringify(id)}}\r\n\r\n`;
  }

  #chunk(parts: readonly unknown[], finish: string | null, usage: SimUsage | null): string {
    const cand: Record<string, unknown> = { content: { parts, role: "model" } };
    if (finish !== null) cand.finishReason = finish;
    cand.index = 0;
    const u = usage ? `,"usageMetadata":${JSON.stringify(usageMetadata(usage))}` : "";
    return `data: {"candidates":[${JSON.stringify(cand)}]${u}${this.#tail}`;
  }

  start(): string {
    return "";
  }
  content(piece: string): string {
    return this.#chunk([{ text: piece }], null, null);
  }
  toolCallStart(_callId: string, name: string): string {
    this.#call = { name, arguments: "" };
    return "";
  }
  toolCallArguments(piece: string): string {
    if (this.#call) this.#call.arguments += piece;
    return "";
  }
  end(finish: string, usage: SimUsage, _includeUsage: boolean): string {
    const parts = this.#call ? answerParts("", this.#call) : [{ text: "" }];
    return this.#chunk(parts, finishOf(finish, parts, this.#call !== null), usage);
  }
}

/** The simulator's Gemini API dialect. */
export const geminiSimDialect: SimDialect = {
  name: "gemini",
  match(method, url) {
    if (method !== "POST") return null;
    const m = /\/v\d+(?:alpha|beta)?\d*\/models\/([^/:]+):(generateContent|streamGenerateContent)$/.exec(url.pathname);
    if (!m) return null;
    const stream = m[2] === "streamGenerateContent";
    if (stream && url.searchParams.get("alt") !== "sse") return null; // only the SSE form is simulated
    let model: string;
    try {
      model = decodeURIComponent(m[1]!);
    } catch {
      return null;
    }
    return { model, stream };
  },
  parse(body, match) {
    const r = GenerateRequest.safeParse(body);
    if (!r.success) return bodyProblem(r.error.issues);
    const messages = messagesOf(r.data);
    if (!Array.isArray(messages)) return { ok: false, ...messages };
    const stream = match.stream === true;
    return {
      ok: true,
      value: {
        model: match.model ?? "",
        messages,
        maxTokens: r.data.generationConfig?.maxOutputTokens ?? null,
        stream,
        includeUsage: stream,
        serviceTier: null,
      },
    };
  },
  error,
  limitHeaders: (_q: SimQuota) => ({}),
  streamContentType: "text/event-stream",
  stream: (id, model) => new GeminiStream(id, model),
  body(a: SimAnswerBody) {
    const parts = answerParts(a.text ?? "", a.toolCall);
    const finishReason = finishOf(a.finish, parts, a.toolCall !== null);
    return {
      candidates: [{ content: { parts, role: "model" }, finishReason, index: 0 }],
      usageMetadata: usageMetadata(a.usage),
      modelVersion: a.model,
      responseId: a.id,
    };
  },
};
